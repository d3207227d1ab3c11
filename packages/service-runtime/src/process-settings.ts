// The settings every process reads the same way: its database (with deadlines), its HTTP server's
// limits, its log level, and what both HTTP services read alike. One place, so the same variable
// means the same thing in every app.
import { DEFAULT_HTTP_LIMITS, type HttpServerLimits } from './http-server.js';
import type { SettingsReader } from './settings.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** LOG_LEVEL, default `info`. */
export function readLogLevel(read: SettingsReader): LogLevel {
  return read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info');
}

/** How long a database may take to connect and to answer one statement. */
export interface DatabaseDeadlineSettings {
  connectTimeoutMs: number;
  statementTimeoutMs: number;
}

/**
 * What the database layer says about DATABASE_URL: how to read it (throwing with a message for an
 * operator when it cannot) and the deadlines it uses by default. The apps pass persistence's own,
 * so this package knows no database.
 */
export interface DatabaseUrlFormat<C extends object> {
  /** `undefined` (unset) gives the default database. */
  parse(url: string | undefined, cwd: string): C;
  defaultDeadlines: DatabaseDeadlineSettings;
}

/**
 * DATABASE_URL (read by `format.parse`) with DB_CONNECT_TIMEOUT_MS, DB_STATEMENT_TIMEOUT_MS and DB_POOL_SIZE.
 *
 * @example
 * readDatabaseConfig(read, { parse: parseDatabaseUrl, defaultDeadlines: DEFAULT_DATABASE_DEADLINES })
 * // { dialect: 'sqlite', location: '/srv/data/pits.sqlite', poolSize: 10, deadlines: { connectTimeoutMs: 2000, statementTimeoutMs: 5000 } }
 */
export function readDatabaseConfig<C extends object>(read: SettingsReader, format: DatabaseUrlFormat<C>, cwd = process.cwd()): C & { poolSize: number; deadlines: DatabaseDeadlineSettings } {
  const deadlines = {
    connectTimeoutMs: read.integer('DB_CONNECT_TIMEOUT_MS', { default: format.defaultDeadlines.connectTimeoutMs, min: 100, max: 60_000 }),
    statementTimeoutMs: read.integer('DB_STATEMENT_TIMEOUT_MS', { default: format.defaultDeadlines.statementTimeoutMs, min: 100, max: 600_000 }),
  };
  const poolSize = read.integer('DB_POOL_SIZE', { default: 10, min: 1, max: 500 });
  let config: C;
  try {
    config = format.parse(read.raw('DATABASE_URL'), cwd);
  } catch (error) {
    read.problem('DATABASE_URL', (error as Error).message);
    // Never used: the reader's done() throws for the problem just recorded.
    config = format.parse(undefined, cwd);
  }
  return { ...config, poolSize, deadlines };
}

/** HTTP_HEADERS_TIMEOUT_MS, HTTP_REQUEST_TIMEOUT_MS, HTTP_KEEP_ALIVE_TIMEOUT_MS and HTTP_MAX_HEADER_BYTES. */
export function readHttpLimits(read: SettingsReader): HttpServerLimits {
  const limits: HttpServerLimits = {
    headersTimeoutMs: read.integer('HTTP_HEADERS_TIMEOUT_MS', { default: DEFAULT_HTTP_LIMITS.headersTimeoutMs, min: 1000, max: 300_000 }),
    requestTimeoutMs: read.integer('HTTP_REQUEST_TIMEOUT_MS', { default: DEFAULT_HTTP_LIMITS.requestTimeoutMs, min: 1000, max: 3_600_000 }),
    keepAliveTimeoutMs: read.integer('HTTP_KEEP_ALIVE_TIMEOUT_MS', { default: DEFAULT_HTTP_LIMITS.keepAliveTimeoutMs, min: 0, max: 600_000 }),
    maxHeaderBytes: read.integer('HTTP_MAX_HEADER_BYTES', { default: DEFAULT_HTTP_LIMITS.maxHeaderBytes, min: 1024, max: 1_048_576 }),
  };
  if (limits.requestTimeoutMs < limits.headersTimeoutMs) {
    read.problem('HTTP_REQUEST_TIMEOUT_MS', `must be at least HTTP_HEADERS_TIMEOUT_MS (${limits.headersTimeoutMs}), got ${limits.requestTimeoutMs}`);
  }
  return limits;
}

/** The settings the two HTTP services (the gateway and the internal API) read alike. */
export interface ServiceSettings<D> {
  database: D;
  logLevel: LogLevel;
  /** SHUTDOWN_TIMEOUT_MS: how long shutdown waits for in-flight requests before cutting connections. */
  shutdownTimeoutMs: number;
  /** The HTTP server's limits on slow or oversized requests. */
  http: HttpServerLimits;
  /** REQUEST_DEADLINE_MS: a request not finished within this is refused SERVICE_UNAVAILABLE (503), and its work does not commit. */
  requestDeadlineMs: number;
  /** READY_TIMEOUT_MS: /readyz answers within this, 503 when the database has not answered by then. */
  readyTimeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: webhook endpoints may point at http:// and private, loopback... hosts (development and tests only). */
  webhookAllowPrivateUrls: boolean;
}

/**
 * What an HTTP service reads the same way in each app: its database (`readDatabaseConfig`), log
 * level, HTTP limits, SHUTDOWN_TIMEOUT_MS, REQUEST_DEADLINE_MS, READY_TIMEOUT_MS and
 * WEBHOOK_ALLOW_PRIVATE_URLS. Each app adds its own host, port and the rest.
 *
 * @example
 * const service = readServiceSettings(read, { parse: parseDatabaseUrl, defaultDeadlines: DEFAULT_DATABASE_DEADLINES });
 * // { database: {...}, logLevel: 'info', shutdownTimeoutMs: 10000, http: {...}, requestDeadlineMs: 10000, readyTimeoutMs: 1000, webhookAllowPrivateUrls: false }
 */
export function readServiceSettings<C extends object>(read: SettingsReader, format: DatabaseUrlFormat<C>): ServiceSettings<C & { poolSize: number; deadlines: DatabaseDeadlineSettings }> {
  return {
    database: readDatabaseConfig(read, format),
    logLevel: readLogLevel(read),
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', { default: 10_000, min: 0, max: 600_000 }),
    http: readHttpLimits(read),
    requestDeadlineMs: read.integer('REQUEST_DEADLINE_MS', { default: 10_000, min: 100, max: 600_000 }),
    readyTimeoutMs: read.integer('READY_TIMEOUT_MS', { default: 1000, min: 50, max: 60_000 }),
    webhookAllowPrivateUrls: read.boolean('WEBHOOK_ALLOW_PRIVATE_URLS', false),
  };
}

/** Where the operator port binds when neither METRICS_HOST nor the app's own `..._METRICS_HOST` says. */
export const DEFAULT_METRICS_HOST = '127.0.0.1';

const HOST_FORM = /^(\[?[0-9A-Fa-f:.]+\]?|[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*)$/;

/**
 * The operator port of one process (`prefix` is `GATEWAY`, `INTERNAL_API` or `WEBHOOK_WORKER`):
 * `<prefix>_METRICS_PORT` (unset: no metrics server; 0: a free port, for tests) and
 * `<prefix>_METRICS_HOST`, else METRICS_HOST, else 127.0.0.1. `otherPorts` are ports of the same
 * process the metrics port must not share (its partner or API port).
 *
 * @example readMetricsEndpoint(read, 'GATEWAY', { GATEWAY_PORT: 4000 }) // { host: '127.0.0.1', port: 9464 } or null
 */
export function readMetricsEndpoint(read: SettingsReader, prefix: string, otherPorts: Readonly<Record<string, number>> = {}): { host: string; port: number } | null {
  const portVariable = `${prefix}_METRICS_PORT`;
  const hostVariable = `${prefix}_METRICS_HOST`;
  const hint = 'must be an IP address or a host name, e.g. 127.0.0.1';
  const sharedHost = read.optional('METRICS_HOST', { pattern: HOST_FORM, hint });
  const ownHost = read.optional(hostVariable, { pattern: HOST_FORM, hint });
  const port = read.optionalInteger(portVariable, { min: 0, max: 65535 });
  if (port === undefined) return null;
  for (const [name, other] of Object.entries(otherPorts)) {
    if (port !== 0 && port === other) read.problem(portVariable, `must differ from ${name} (${other}): metrics are served on a port of their own, never to partners`);
  }
  const host = (ownHost ?? sharedHost ?? DEFAULT_METRICS_HOST).replace(/^\[(.*)\]$/, '$1');
  return { host, port };
}
