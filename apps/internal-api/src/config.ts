// The internal API's configuration, read from the environment here and nowhere else, validated at
// start-up. A bad value stops the process with a message naming every bad variable.
import { DEFAULT_DATABASE_DEADLINES, type DatabaseConfig, createCredentialCipher, parseDatabaseUrl } from '@pits/persistence';
import {
  ConfigError,
  type Env,
  type HttpServerLimits,
  type LogLevel,
  SettingsReader,
  type OperatorEndpoint,
  readDatabaseConfig,
  readHttpLimits,
  readLogLevel,
  readMetricsEndpoint,
} from '@pits/service-runtime';

export { LOG_LEVELS, type LogLevel } from '@pits/service-runtime';

export interface InternalApiConfig {
  host: string;
  /** Never the partners' (gateway's) port; 0 picks a free one (tests). */
  port: number;
  database: DatabaseConfig;
  /** The internal service token every call must present as `Authorization: Bearer <token>`. */
  serviceToken: string;
  /** Key for credentials encrypted at rest (logistics), as `createCredentialCipher` accepts it. */
  credentialsKey: string;
  logLevel: LogLevel;
  /** How long shutdown waits for in-flight requests before cutting connections. */
  shutdownTimeoutMs: number;
  /** The HTTP server's limits on slow or oversized requests. */
  http: HttpServerLimits;
  /** A call not finished within this is refused SERVICE_UNAVAILABLE, and its work does not commit. */
  requestDeadlineMs: number;
  /** /readyz answers within this, 503 when the database has not answered by then. */
  readyTimeoutMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: `webhooks.create` accepts http:// and private, loopback... hosts (development and tests only). */
  webhookAllowPrivateUrls: boolean;
  /** INTERNAL_API_METRICS_PORT / INTERNAL_API_METRICS_HOST (or METRICS_HOST): the operator port serving /metrics; null (unset) serves none. */
  metrics: OperatorEndpoint | null;
}

export { ConfigError };

/** The gateway's default port, which the internal API must never share. */
const GATEWAY_DEFAULT_PORT = 4000;

/**
 * Reads and checks the environment; throws a `ConfigError` naming each bad variable, what was
 * wrong with it and what was found.
 *
 * @example
 * const config = loadInternalApiConfig(process.env);
 * // INTERNAL_API_TOKEN unset -> ConfigError: "... INTERNAL_API_TOKEN: is required"
 */
export function loadInternalApiConfig(env: Env = process.env): InternalApiConfig {
  const read = new SettingsReader(env);
  const port = read.integer('INTERNAL_API_PORT', { default: 4001, min: 0, max: 65535 });
  const gatewayPort = read.integer('GATEWAY_PORT', { default: GATEWAY_DEFAULT_PORT, min: 0, max: 65535 });
  if (port !== 0 && port === gatewayPort) read.problem('INTERNAL_API_PORT', `must differ from the partners' port (GATEWAY_PORT ${gatewayPort})`);
  const credentialsKey = read.required('CREDENTIALS_KEY');
  if (credentialsKey !== '') {
    try {
      createCredentialCipher(credentialsKey);
    } catch (error) {
      read.problem('CREDENTIALS_KEY', (error as Error).message);
    }
  }
  const config: InternalApiConfig = {
    host: read.text('INTERNAL_API_HOST', '127.0.0.1'),
    port,
    database: readDatabaseConfig(read, { parse: parseDatabaseUrl, defaultDeadlines: DEFAULT_DATABASE_DEADLINES }),
    serviceToken: read.required('INTERNAL_API_TOKEN', { minLength: 24 }),
    credentialsKey,
    logLevel: readLogLevel(read),
    shutdownTimeoutMs: read.integer('SHUTDOWN_TIMEOUT_MS', { default: 10_000, min: 0, max: 600_000 }),
    http: readHttpLimits(read),
    requestDeadlineMs: read.integer('REQUEST_DEADLINE_MS', { default: 10_000, min: 100, max: 600_000 }),
    readyTimeoutMs: read.integer('READY_TIMEOUT_MS', { default: 1000, min: 50, max: 60_000 }),
    webhookAllowPrivateUrls: read.boolean('WEBHOOK_ALLOW_PRIVATE_URLS', false),
    metrics: readMetricsEndpoint(read, 'INTERNAL_API', { INTERNAL_API_PORT: port, GATEWAY_PORT: gatewayPort }),
  };
  read.done('internal-api');
  return config;
}
