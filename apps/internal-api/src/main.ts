// Entry point: configuration, server, then the database (migrated; while it is not reachable yet
// calls answer SERVICE_UNAVAILABLE and it keeps trying), and a graceful stop on SIGTERM/SIGINT.
// The steps are runDatabaseService's (@pits/service-runtime); what is the internal API's is here.
import { serviceDatabase } from '@pits/persistence';
import { runDatabaseService } from '@pits/service-runtime';
import { loadInternalApiConfig } from './config.js';
import { createInternalApi } from './create-internal-api.js';

void runDatabaseService({
  app: 'internal-api',
  loadConfig: () => loadInternalApiConfig(process.env),
  database: serviceDatabase,
  build({ config, logger, metrics, database }) {
    const api = createInternalApi(config, { database, logger, ready: false, metrics });
    return {
      messages: { databaseUnavailable: 'database not reachable yet; answering SERVICE_UNAVAILABLE meanwhile', stopping: 'shutting down: finishing in-flight requests', stopped: 'stopped' },
      async listen() {
        const { url, metricsUrl } = await api.listen();
        logger.info({ url: `${url}/trpc`, metrics_url: metricsUrl ?? 'off (set INTERNAL_API_METRICS_PORT)', database: database.description }, 'internal API listening');
      },
      ready() {
        api.markReady();
        logger.info('database migrated; serving calls');
      },
      stop: () => api.close(),
    };
  },
});
