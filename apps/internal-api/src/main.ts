// Entry point: configuration, server, then the database (migrated; while it is not reachable yet
// calls answer SERVICE_UNAVAILABLE and it keeps trying), and a graceful stop on SIGTERM/SIGINT.
import { DATABASE_ERROR_KINDS, classifyDatabaseError, createDatabase, describeDatabase, migrateWhenReachable } from '@pits/persistence';
import { configOrExit, createProcessLogger, createProcessMetrics, runService } from '@pits/service-runtime';
import { loadInternalApiConfig } from './config.js';
import { createInternalApi } from './create-internal-api.js';

const config = configOrExit(() => loadInternalApiConfig(process.env));

const logger = createProcessLogger('internal-api', config.logLevel);
const metrics = createProcessMetrics('internal-api', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
const database = createDatabase({ ...config.database, applicationName: `pits-internal-api-${process.pid}` }, { logger, ...metrics.databaseEvents });
const api = createInternalApi(config, { database, logger, ready: false, metrics });

void runService({
  logger,
  context: { host: config.host, port: config.port, metrics: config.metrics, database: describeDatabase(config.database) },
  messages: { listenFailed: 'cannot listen', prepareFailed: 'cannot migrate the database', stopping: 'shutting down: finishing in-flight requests', stopped: 'stopped' },
  async listen() {
    const { url, metricsUrl } = await api.listen();
    logger.info({ url: `${url}/trpc`, metrics_url: metricsUrl ?? 'off (set INTERNAL_API_METRICS_PORT)', database: describeDatabase(config.database) }, 'internal API listening');
  },
  prepare: (signal) =>
    migrateWhenReachable(database, {
      signal,
      onUnavailable: (error, retryInMs) => logger.warn({ reason: error.message, retry_in_ms: retryInMs }, 'database not reachable yet; answering SERVICE_UNAVAILABLE meanwhile'),
    }),
  ready() {
    api.markReady();
    logger.info('database migrated; serving calls');
  },
  stop: () => api.close(),
  release: () => database.destroy(),
});
