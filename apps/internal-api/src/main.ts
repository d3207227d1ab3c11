// Entry point: configuration, server, then the database (migrated; while it is not reachable yet
// calls answer SERVICE_UNAVAILABLE and it keeps trying), and a graceful stop on SIGTERM/SIGINT.
import { createDatabase, describeDatabase, migrateWhenReachable, DATABASE_ERROR_KINDS, classifyDatabaseError } from '@pits/persistence';
import { configOrExit, createProcessLogger, createProcessMetrics } from '@pits/service-runtime';
import { loadInternalApiConfig } from './config.js';
import { createInternalApi } from './create-internal-api.js';

const config = configOrExit(() => loadInternalApiConfig(process.env));

const logger = createProcessLogger('internal-api', config.logLevel);
const metrics = createProcessMetrics('internal-api', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
const database = createDatabase({ ...config.database, applicationName: `pits-internal-api-${process.pid}` }, { logger, ...metrics.databaseEvents });
const api = createInternalApi(config, { database, logger, ready: false, metrics });
const stopping = new AbortController();

let url: string;
let metricsUrl: string | null;
try {
  ({ url, metricsUrl } = await api.listen());
} catch (error) {
  logger.fatal({ err: error, host: config.host, port: config.port, metrics: config.metrics }, 'cannot listen');
  await database.destroy();
  process.exit(1);
}
logger.info({ url: `${url}/trpc`, metrics_url: metricsUrl ?? 'off (set INTERNAL_API_METRICS_PORT)', database: describeDatabase(config.database) }, 'internal API listening');

async function stop(signal: NodeJS.Signals): Promise<void> {
  if (stopping.signal.aborted) return;
  stopping.abort();
  logger.info({ signal }, 'shutting down: finishing in-flight requests');
  try {
    await api.close();
    await database.destroy();
    logger.info('stopped');
    process.exit(0);
  } catch (error) {
    logger.error({ err: error }, 'unclean shutdown');
    process.exit(1);
  }
}
process.on('SIGTERM', (signal) => void stop(signal));
process.on('SIGINT', (signal) => void stop(signal));

try {
  await migrateWhenReachable(database, {
    signal: stopping.signal,
    onUnavailable: (error, retryInMs) => logger.warn({ reason: error.message, retry_in_ms: retryInMs }, 'database not reachable yet; answering SERVICE_UNAVAILABLE meanwhile'),
  });
  api.markReady();
  logger.info('database migrated; serving calls');
} catch (error) {
  if (!stopping.signal.aborted) {
    logger.fatal({ err: error, database: describeDatabase(config.database) }, 'cannot migrate the database');
    await api.close();
    await database.destroy().catch(() => undefined);
    process.exit(1);
  }
}
