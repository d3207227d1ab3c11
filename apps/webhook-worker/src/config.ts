// The webhook worker's configuration, read from the environment here and nowhere else, validated
// at start-up. A bad value stops the process with a message naming the variable, what was wrong
// and what was found.
import { DEFAULT_DATABASE_DEADLINES, type DatabaseConfig, parseDatabaseUrl } from '@pits/persistence';
import { ConfigError, type Env, type LogLevel, type OperatorEndpoint, SettingsReader, readDatabaseConfig, readLogLevel, readMetricsEndpoint } from '@pits/service-runtime';

export { ConfigError };

export interface WebhookWorkerConfig {
  database: DatabaseConfig;
  /** Key of the endpoints' signing secrets, encrypted at rest (the gateway's CREDENTIALS_KEY). */
  credentialsKey: string;
  logLevel: LogLevel;
  pollMs: number;
  timeoutMs: number;
  concurrency: number;
  batchSize: number;
  /** How long a claimed delivery stays with a worker; after a crash it is sent again once this runs out. */
  leaseMs: number;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: also deliver over http:// and to private, loopback... addresses. */
  allowPrivateUrls: boolean;
  /** WEBHOOK_WORKER_METRICS_PORT / WEBHOOK_WORKER_METRICS_HOST (or METRICS_HOST): the operator port serving /metrics; null (unset) serves none. */
  metrics: OperatorEndpoint | null;
}

/**
 * DATABASE_URL, CREDENTIALS_KEY, LOG_LEVEL and the WEBHOOK_* settings.
 *
 * @example
 * const config = loadWebhookWorkerConfig(process.env); // throws ConfigError naming each bad variable
 */
export function loadWebhookWorkerConfig(env: Env): WebhookWorkerConfig {
  const read = new SettingsReader(env);
  const database = readDatabaseConfig(read, { parse: parseDatabaseUrl, defaultDeadlines: DEFAULT_DATABASE_DEADLINES });
  const credentialsKey = read.required('CREDENTIALS_KEY', { minLength: 32, hint: '64 hex characters, or a passphrase of 32+ characters' });
  const logLevel = readLogLevel(read);
  const timeoutMs = read.integer('WEBHOOK_TIMEOUT_MS', { default: 10_000, min: 100, max: 120_000 });
  const config: WebhookWorkerConfig = {
    database,
    credentialsKey,
    logLevel,
    pollMs: read.integer('WEBHOOK_POLL_MS', { default: 100, min: 10, max: 60_000 }),
    timeoutMs,
    concurrency: read.integer('WEBHOOK_CONCURRENCY', { default: 16, min: 1, max: 256 }),
    batchSize: read.integer('WEBHOOK_BATCH_SIZE', { default: 50, min: 1, max: 1000 }),
    leaseMs: Math.max(read.integer('WEBHOOK_LEASE_MS', { default: 30_000, min: 1000, max: 3_600_000 }), timeoutMs + 1000),
    allowPrivateUrls: read.boolean('WEBHOOK_ALLOW_PRIVATE_URLS', false),
    metrics: readMetricsEndpoint(read, 'WEBHOOK_WORKER'),
  };
  read.done('webhook worker');
  return config;
}
