#!/usr/bin/env node
// Starts a webhook delivery worker. Run as many as needed: claims are leased, so no delivery is
// sent by two workers at once. A database that is unreachable (at start or later) is waited for
// with backoff; the process never exits for it. SIGTERM/SIGINT finish the round in flight, then exit.
import { pino } from 'pino';
import { createCredentialCipher, createDatabase, describeDatabase, migrateWhenReachable } from '@pits/persistence';
import { ConfigError, type WebhookWorkerConfig, loadWebhookWorkerConfig } from './config.js';
import { createWebhookWorker } from './webhooks/webhook-worker.js';

let config: WebhookWorkerConfig;
try {
  config = loadWebhookWorkerConfig(process.env);
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(error.message);
  process.exit(1);
}
const logger = pino({ level: config.logLevel, base: { service: 'webhook-worker' } });
const database = createDatabase({ ...config.database, applicationName: `pits-webhook-worker-${process.pid}` }, { logger });
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
});
const stopping = new AbortController();

async function stop(signal: string): Promise<void> {
  if (stopping.signal.aborted) return;
  stopping.abort();
  logger.info({ signal }, 'webhook worker stopping');
  await worker.stop();
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
logger.info({ workerId: worker.workerId, database: describeDatabase(config.database), allowPrivateUrls: config.allowPrivateUrls }, 'webhook worker started');
