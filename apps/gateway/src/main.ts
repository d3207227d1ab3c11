#!/usr/bin/env node
// Starts the partner gateway: config, server, then the database (migrated; while it is not
// reachable yet the gateway answers 503 and keeps trying); SIGTERM/SIGINT stop it gracefully.
import { createDatabase, describeDatabase, migrateWhenReachable, DATABASE_ERROR_KINDS, classifyDatabaseError } from '@pits/persistence';
import { configOrExit, createProcessLogger, createProcessMetrics } from '@pits/service-runtime';
import { loadGatewayConfig } from './config.js';
import { createGateway } from './create-gateway.js';

const config = configOrExit(() => loadGatewayConfig(process.env));
const logger = createProcessLogger('gateway', config.logLevel);
const metrics = createProcessMetrics('gateway', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
const database = createDatabase({ ...config.database, applicationName: `pits-gateway-${process.pid}` }, { logger, ...metrics.databaseEvents });
const gateway = createGateway(config, { database, logger, ready: false, metrics });
const stopping = new AbortController();

let url: string;
let metricsUrl: string | null;
try {
  ({ url, metricsUrl } = await gateway.listen());
} catch (error) {
  logger.fatal({ err: error, host: config.host, port: config.port, metrics: config.metrics }, 'cannot listen');
  await database.destroy().catch(() => undefined);
  process.exit(1);
}
logger.info(
  { url, metrics_url: metricsUrl ?? 'off (set GATEWAY_METRICS_PORT)', database: describeDatabase(config.database), rateLimits: config.redisUrl ? 'redis' : 'memory' },
  'gateway listening',
);

async function stop(signal: string): Promise<void> {
  if (stopping.signal.aborted) return;
  stopping.abort();
  logger.info({ signal }, 'gateway stopping: finishing in-flight requests');
  await gateway.close();
  await database.destroy();
  logger.info('gateway stopped');
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));

try {
  await migrateWhenReachable(database, {
    signal: stopping.signal,
    onUnavailable: (error, retryInMs) => logger.warn({ reason: error.message, retry_in_ms: retryInMs }, 'database not reachable yet; answering 503 meanwhile'),
  });
  gateway.markReady();
  logger.info('database migrated; serving partner calls');
} catch (error) {
  if (!stopping.signal.aborted) {
    logger.fatal({ database: describeDatabase(config.database), err: (error as Error).message }, 'cannot migrate the database');
    await gateway.close();
    await database.destroy().catch(() => undefined);
    process.exit(1);
  }
}
