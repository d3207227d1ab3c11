// The one `main` of every long-running process (gateway, internal API, webhook worker): read the
// configuration (exit 2 with the bad variables), open the process's logger, metrics and database,
// build the service, then run it in the process shell (run-service.ts): listen, migrate the
// database once it is reachable (concurrent starts are serialised by the migration itself), ready,
// and a graceful stop on SIGTERM/SIGINT that releases the database last. The database layer is
// passed in (persistence's `serviceDatabase`): this package knows no database.
import type { DestinationStream, Logger } from 'pino';
import { type AppName, createProcessLogger } from './log-fields.js';
import type { LogLevel } from './process-settings.js';
import { type ConnectionsReporter, type DatabaseErrorClassification, type ProcessMetrics, createProcessMetrics } from './metrics.js';
import { type ServiceDefinition, type ServiceProcess, runService } from './run-service.js';
import { configOrExit } from './settings.js';

/** What the recipe needs of the database layer: how to open, describe and migrate a database. */
export interface ServiceDatabaseLayer<DatabaseOptions, Db extends ConnectionsReporter & { destroy(): Promise<void> }> extends DatabaseErrorClassification {
  /** Opens the database (it connects lazily), reporting to `events`; `applicationName` names its sessions. */
  open(options: DatabaseOptions, applicationName: string, events: { logger: Logger; onQueryError: (error: unknown) => void }): Db;
  /** The database as a log line shows it, never with a password. */
  describe(options: DatabaseOptions): string;
  /** Migrates to the latest version, waiting for a database that is not reachable yet; stops waiting when `signal` aborts. */
  migrate(database: Db, options: { signal: AbortSignal; onUnavailable: (error: Error, retryInMs: number) => void }): Promise<unknown>;
}

/** What every process has before its service is built. */
export interface ServiceParts<Config, Db> {
  readonly config: Config;
  readonly logger: Logger;
  readonly metrics: ProcessMetrics;
  readonly database: Db;
}

/** A service built from its parts: its ports, what ready means, how it stops, and its words. */
export interface BuiltService extends Pick<ServiceDefinition, 'listen' | 'ready' | 'stop'> {
  messages: {
    /** Fatal, when `listen` rejects; 'cannot listen' when absent. */
    listenFailed?: string;
    /** Warned at each failed attempt to reach the database before it is migrated (with `reason`, `retry_in_ms`). */
    databaseUnavailable: string;
    stopping: string;
    stopped?: string;
  };
}

/** What every process's configuration has; its host, port and metrics endpoint (when it has them) go on the fatal lines. */
export interface ServiceConfig<DatabaseOptions> {
  logLevel: LogLevel;
  database: DatabaseOptions;
  host?: string;
  port?: number;
  metrics?: unknown;
}

export interface DatabaseServiceRecipe<Config extends ServiceConfig<DatabaseOptions>, DatabaseOptions, Db extends ConnectionsReporter & { destroy(): Promise<void> }> {
  app: AppName;
  /** Reads the configuration; a `ConfigError` ends the process with exit 2 (`configOrExit`). */
  loadConfig(): Config;
  database: ServiceDatabaseLayer<DatabaseOptions, Db>;
  /** Builds the service from its parts (the database is opened, not migrated yet). */
  build(parts: ServiceParts<Config, Db>): BuiltService;
  /** Where the signals come from and the exit goes; the real process by default. */
  process?: ServiceProcess;
  /** Where the log lines go; standard output by default (tests read them). */
  logDestination?: DestinationStream;
}

/**
 * Runs one process of the service from its configuration to its exit; resolves with the exit
 * code, as `runService` does.
 *
 * @example
 * void runDatabaseService({
 *   app: 'internal-api',
 *   loadConfig: () => loadInternalApiConfig(process.env),
 *   database: serviceDatabase,
 *   build: ({ config, logger, metrics, database }) => {
 *     const api = createInternalApi(config, { database, logger, metrics, ready: false });
 *     return { messages: { databaseUnavailable: 'database not reachable yet', stopping: 'shutting down' }, listen: () => api.listen().then(() => undefined), ready: () => api.markReady(), stop: () => api.close() };
 *   },
 * });
 */
export function runDatabaseService<Config extends ServiceConfig<DatabaseOptions>, DatabaseOptions, Db extends ConnectionsReporter & { destroy(): Promise<void> }>(
  recipe: DatabaseServiceRecipe<Config, DatabaseOptions, Db>,
): Promise<number> {
  const { app, database: layer } = recipe;
  const config = configOrExit(recipe.loadConfig);
  const logger = createProcessLogger(app, config.logLevel, recipe.logDestination);
  const metrics = createProcessMetrics(app, layer);
  const database = layer.open(config.database, `pits-${app}-${process.pid}`, { logger, ...metrics.databaseEvents });
  const service = recipe.build({ config, logger, metrics, database });
  const { messages } = service;
  return runService({
    logger,
    // Where it listens and what it opened, so an operator sees what failed.
    context: { ...(config.host === undefined ? {} : { host: config.host }), ...(config.port === undefined ? {} : { port: config.port }), ...('metrics' in config ? { metrics: config.metrics } : {}), database: layer.describe(config.database) },
    messages: { listenFailed: messages.listenFailed ?? 'cannot listen', prepareFailed: 'cannot migrate the database', stopping: messages.stopping, ...(messages.stopped === undefined ? {} : { stopped: messages.stopped }) },
    listen: service.listen,
    prepare: (signal) =>
      layer.migrate(database, {
        signal,
        onUnavailable: (error, retryInMs) => logger.warn({ reason: error.message, retry_in_ms: retryInMs }, messages.databaseUnavailable),
      }),
    ready: service.ready,
    stop: service.stop,
    release: () => database.destroy(),
    ...(recipe.process === undefined ? {} : { process: recipe.process }),
  });
}
