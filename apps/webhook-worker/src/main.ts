#!/usr/bin/env node
// Starts a webhook delivery worker. Run as many as needed: claims are leased, so no delivery is
// sent by two workers at once. A database that is unreachable (at start or later) is waited for
// with backoff; the process never exits for it. SIGTERM/SIGINT finish the round in flight, then exit.
import { createCredentialCipher, createDatabase, describeDatabase, migrateWhenReachable, DATABASE_ERROR_KINDS, classifyDatabaseError } from '@pits/persistence';
import { configOrExit, createOperatorServer, createProcessLogger, createProcessMetrics } from '@pits/service-runtime';
import { loadWebhookWorkerConfig } from './config.js';
import { webhookMetrics } from './webhooks/webhook-metrics.js';
import { createWebhookWorker } from './webhooks/webhook-worker.js';

const config = configOrExit(() => loadWebhookWorkerConfig(process.env));
const logger = createProcessLogger('webhook-worker', config.logLevel);
const metrics = createProcessMetrics('webhook-worker', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
const database = createDatabase({ ...config.database, applicationName: `pits-webhook-worker-${process.pid}` }, { logger, ...metrics.databaseEvents });
metrics.watchDatabase(database);
const worker = createWebhookWorker({
  database,
  cipher: createCredentialCipher(config.credentialsKey),
  logger,
  pollMs: config.pollMs,
  timeoutMs: config.timeoutMs,
  concurrency: config.concurrency,
  batchSize: config.batchSize,
  leaseMs: config.leaseMs,
  allowPrivateUrls: config.allowPrivateUrls,
  metrics: webhookMetrics(metrics.registry, database),
});
const stopping = new AbortController();

// The operator port first: a worker whose metrics port is taken says so at once.
const operator = config.metrics ? createOperatorServer(metrics, config.metrics) : null;
let metricsUrl: string | null = null;
try {
  metricsUrl = operator ? (await operator.listen()).url : null;
} catch (error) {
  logger.fatal({ err: error, metrics: config.metrics }, 'cannot listen on the metrics port');
  await database.destroy().catch(() => undefined);
  process.exit(1);
}

async function stop(signal: string): Promise<void> {
  if (stopping.signal.aborted) return;
  stopping.abort();
  logger.info({ signal }, 'webhook worker stopping');
  await worker.stop();
  await operator?.close();
  await database.destroy();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

try {
  await migrateWhenReachable(database, {
    signal: stopping.signal,
    onUnavailable: (error, retryInMs) => logger.warn({ reason: error.message, retry_in_ms: retryInMs }, 'database not reachable yet'),
  });
} catch (error) {
  if (stopping.signal.aborted) process.exit(0);
  logger.fatal({ database: describeDatabase(config.database), err: (error as Error).message }, 'cannot migrate the database');
  await database.destroy().catch(() => undefined);
  process.exit(1);
}
worker.start();
logger.info(
  { workerId: worker.workerId, database: describeDatabase(config.database), allowPrivateUrls: config.allowPrivateUrls, metrics_url: metricsUrl ?? 'off (set WEBHOOK_WORKER_METRICS_PORT)' },
  'webhook worker started',
);
