#!/usr/bin/env node
// Starts the partner gateway: config, server, then the database (migrated; while it is not
// reachable yet the gateway answers 503 and keeps trying); SIGTERM/SIGINT stop it gracefully.
import { setFlagsFromString } from 'node:v8';
import { DATABASE_ERROR_KINDS, classifyDatabaseError, createDatabase, describeDatabase, migrateWhenReachable } from '@pits/persistence';
import { configOrExit, createProcessLogger, createProcessMetrics, runService } from '@pits/service-runtime';
import { loadGatewayConfig } from './config.js';
import { createGateway } from './create-gateway.js';

const config = configOrExit(() => loadGatewayConfig(process.env));
// Each request's short-lived objects that survive two young collections land in the old generation,
// which V8 otherwise lets grow to several times its live size before a full collection: on the
// embedded database about 8 KB of resident memory per keyed create until then. A smaller growing
// factor collects that garbage sooner and holds resident memory flat
// (docs/benchmarks.md#idempotency-memory-under-keyed-creates).
// Read at every full collection, so setting it once the process runs takes effect.
if (config.heapGrowingPercent > 0) setFlagsFromString(`--heap-growing-percent=${config.heapGrowingPercent}`);
const logger = createProcessLogger('gateway', config.logLevel);
const metrics = createProcessMetrics('gateway', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
const database = createDatabase({ ...config.database, applicationName: `pits-gateway-${process.pid}` }, { logger, ...metrics.databaseEvents });
const gateway = createGateway(config, { database, logger, ready: false, metrics });

void runService({
  logger,
  context: { host: config.host, port: config.port, metrics: config.metrics, database: describeDatabase(config.database) },
  messages: { listenFailed: 'cannot listen', prepareFailed: 'cannot migrate the database', stopping: 'gateway stopping: finishing in-flight requests', stopped: 'gateway stopped' },
  async listen() {
    const { url, metricsUrl } = await gateway.listen();
    logger.info(
      { url, metrics_url: metricsUrl ?? 'off (set GATEWAY_METRICS_PORT)', database: describeDatabase(config.database), rate_limits: config.redisUrl ? 'redis' : 'memory' },
      'gateway listening',
    );
  },
  prepare: (signal) =>
    migrateWhenReachable(database, {
      signal,
      onUnavailable: (error, retryInMs) => logger.warn({ reason: error.message, retry_in_ms: retryInMs }, 'database not reachable yet; answering 503 meanwhile'),
    }),
  ready() {
    gateway.markReady();
    logger.info('database migrated; serving partner calls');
  },
  stop: () => gateway.close(),
  release: () => database.destroy(),
});
