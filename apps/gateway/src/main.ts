#!/usr/bin/env node
// Starts the partner gateway: config, server, then the database (migrated; while it is not
// reachable yet the gateway answers 503 and keeps trying); SIGTERM/SIGINT stop it gracefully.
// The steps are runDatabaseService's (@pits/service-runtime); what is the gateway's is here.
import { setFlagsFromString } from 'node:v8';
import { serviceDatabase } from '@pits/persistence';
import { runDatabaseService } from '@pits/service-runtime';
import { loadGatewayConfig } from './config.js';
import { createGateway } from './create-gateway.js';

void runDatabaseService({
  app: 'gateway',
  loadConfig: () => loadGatewayConfig(process.env),
  database: serviceDatabase,
  build({ config, logger, metrics, database }) {
    // Each request's short-lived objects that survive two young collections land in the old generation,
    // which V8 otherwise lets grow to several times its live size before a full collection: on the
    // embedded database about 8 KB of resident memory per keyed create until then. A smaller growing
    // factor collects that garbage sooner and holds resident memory flat
    // (docs/benchmarks.md#idempotency-memory-under-keyed-creates).
    // Read at every full collection, so setting it once the process runs takes effect.
    if (config.heapGrowingPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
    const gateway = createGateway(config, { database, logger, ready: false, metrics });
    return {
      messages: { databaseUnavailable: 'database not reachable yet; answering 503 meanwhile', stopping: 'gateway stopping: finishing in-flight requests', stopped: 'gateway stopped' },
      async listen() {
        const { url, metricsUrl } = await gateway.listen();
        logger.info(
          { url, metrics_url: metricsUrl ?? 'off (set GATEWAY_METRICS_PORT)', database: database.description, rate_limits: config.redisUrl ? 'redis' : 'memory' },
          'gateway listening',
        );
      },
      ready() {
        gateway.markReady();
        logger.info('database migrated; serving partner calls');
      },
      stop: () => gateway.close(),
    };
  },
});
