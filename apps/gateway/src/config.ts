// The gateway's configuration, read from the environment here and nowhere else, validated at
// start-up. A bad value stops the process with a message naming the variable, what was wrong and
// what was found.
import { DEFAULT_DATABASE_DEADLINES, type DatabaseConfig, parseDatabaseUrl } from '@pits/persistence';
import { type SandboxIds, parseSandboxIds } from './docs/sandbox-ids.js';
import { ConfigError, type Env, type OperatorEndpoint, SettingsReader, type ServiceSettings, readMetricsEndpoint, readServiceSettings } from '@pits/service-runtime';

export { ConfigError };

/** The settings both HTTP services read (`ServiceSettings`), and the gateway's own. */
export interface GatewayConfig extends ServiceSettings<DatabaseConfig> {
  host: string;
  port: number;
  /** Shared rate-limit counters when set; counters in memory otherwise (one process only). */
  redisUrl: string | null;
  /** Key for credentials encrypted at rest (logistics). */
  credentialsKey: string;
  /**
   * `storeTimeoutMs`: a rate-limit store slower than this lets the request through uncounted (logged).
   * `keyPrefix`: prepended to every Redis counter key, so deployments (or benchmark runs) sharing one Redis do not share counts.
   * `anonymous`: requests per window per client address that fail authentication or reach a public endpoint (docs/rate-limits.md#without-a-valid-key).
   */
  rateLimit: {
    windowMs: number;
    tiers: { small: number; medium: number; large: number };
    operation: number;
    anonymous: number;
    storeTimeoutMs: number;
    keyPrefix: string;
  };
  /** An unfinished Idempotency-Key claim older than this is taken to be dead (its process crashed). */
  idempotencyClaimLeaseMs: number;
  /** The retention purge: how often it runs, how long finished webhook deliveries are kept, rows per batch. */
  retention: { intervalMs: number; deliveryRetentionMs: number; batchSize: number };
  /**
   * The order-hold expiry sweep (docs/holds.md#states-and-expiry): the mean wait between runs
   * (each wait is jittered by ±20 %) and holds per pass.
   */
  reservationSweep: { intervalMs: number; batchSize: number };
  /**
   * DOCS_SANDBOX_TENANT_ID: the demo tenant of a sandbox database (npm start sets it); /docs
   * pre-fills X-Tenant-Id with it, so Test Request answers. Null: the reference's example id.
   */
  docsSandboxTenantId: string | null;
  /**
   * DOCS_SANDBOX_IDS: `record=id` pairs of the sandbox's records (npm start sets them to what it
   * seeded); /docs pre-fills each route's path id with its record's, so Test Request finds it.
   * Empty: the reference's example ids.
   */
  docsSandboxIds: SandboxIds;
  /** GATEWAY_METRICS_PORT / GATEWAY_METRICS_HOST (or METRICS_HOST): the operator port serving /metrics; null (unset) serves none. */
  metrics: OperatorEndpoint | null;
  /**
   * GATEWAY_HEAP_GROWING_PERCENT: how far V8 lets the old generation grow past its live size before
   * the next full collection (main.ts sets it at start-up; 0 leaves V8's own heuristics). Bounds the
   * resident memory of keyed creates on the embedded database (docs/benchmarks.md#idempotency-memory-under-keyed-creates).
   */
  heapGrowingPercent: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;

function readSandboxIds(read: SettingsReader): SandboxIds {
  const text = read.optional('DOCS_SANDBOX_IDS');
  if (text === undefined) return {};
  const parsed = parseSandboxIds(text);
  if (parsed.ok) return parsed.ids;
  read.problem('DOCS_SANDBOX_IDS', parsed.problem);
  return {};
}

/**
 * @example
 * const config = loadGatewayConfig(process.env); // throws ConfigError naming each bad variable
 */
export function loadGatewayConfig(env: Env): GatewayConfig {
  const read = new SettingsReader(env);
  const service = readServiceSettings(read, { parse: parseDatabaseUrl, defaultDeadlines: DEFAULT_DATABASE_DEADLINES });
  const credentialsKey = read.required('CREDENTIALS_KEY', { minLength: 32, hint: '64 hex characters, or a passphrase of 32+ characters' });
  const { requestDeadlineMs } = service;
  const idempotencyClaimLeaseMs = read.integer('IDEMPOTENCY_CLAIM_LEASE_MS', { default: 60_000, min: 1000, max: DAY_MS });
  if (idempotencyClaimLeaseMs <= requestDeadlineMs) {
    read.problem('IDEMPOTENCY_CLAIM_LEASE_MS', `must be longer than REQUEST_DEADLINE_MS (${requestDeadlineMs}), got ${idempotencyClaimLeaseMs}`);
  }
  const port = read.integer('GATEWAY_PORT', { default: 4000, min: 0, max: 65535 });
  const config: GatewayConfig = {
    ...service,
    credentialsKey,
    host: read.text('GATEWAY_HOST', '0.0.0.0'),
    port,
    redisUrl: read.optional('REDIS_URL', { pattern: /^rediss?:\/\//, hint: 'must be a redis:// or rediss:// URL' }) ?? null,
    rateLimit: {
      windowMs: read.integer('RATE_LIMIT_WINDOW_MS', { default: 60_000, min: 1000, max: 3_600_000 }),
      tiers: {
        small: read.integer('RATE_LIMIT_SMALL', { default: 1000, min: 1, max: 1_000_000 }),
        medium: read.integer('RATE_LIMIT_MEDIUM', { default: 2000, min: 1, max: 1_000_000 }),
        large: read.integer('RATE_LIMIT_LARGE', { default: 5000, min: 1, max: 1_000_000 }),
      },
      operation: read.integer('RATE_LIMIT_OPERATION', { default: 200, min: 1, max: 1_000_000 }),
      anonymous: read.integer('RATE_LIMIT_ANONYMOUS', { default: 300, min: 1, max: 1_000_000 }),
      storeTimeoutMs: read.integer('RATE_LIMIT_STORE_TIMEOUT_MS', { default: 250, min: 10, max: 60_000 }),
      keyPrefix: read.optional('RATE_LIMIT_KEY_PREFIX', { pattern: /^[\w:.-]{1,64}$/, hint: 'must be 1 to 64 letters, digits or : . _ -' }) ?? 'rl:',
    },
    idempotencyClaimLeaseMs,
    retention: {
      intervalMs: read.integer('RETENTION_INTERVAL_MS', { default: 10 * 60_000, min: 1000, max: DAY_MS }),
      deliveryRetentionMs: read.integer('WEBHOOK_RETENTION_MS', { default: 30 * DAY_MS, min: 1000, max: 3650 * DAY_MS }),
      batchSize: read.integer('RETENTION_BATCH_SIZE', { default: 500, min: 1, max: 100_000 }),
    },
    reservationSweep: {
      // A hold gives its stock back within 60 s of its expiry: the longest wait between runs, the
      // interval plus 20 % jitter, is 60 s at the largest interval allowed.
      intervalMs: read.integer('RESERVATION_SWEEP_INTERVAL_MS', { default: 15_000, min: 1000, max: 50_000 }),
      batchSize: read.integer('RESERVATION_SWEEP_BATCH', { default: 100, min: 1, max: 1000 }),
    },
    docsSandboxTenantId: read.optional('DOCS_SANDBOX_TENANT_ID', { pattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i, hint: 'must be a tenant id (a UUID)' })?.toLowerCase() ?? null,
    docsSandboxIds: readSandboxIds(read),
    metrics: readMetricsEndpoint(read, 'GATEWAY', { GATEWAY_PORT: port }),
    heapGrowingPercent: read.integer('GATEWAY_HEAP_GROWING_PERCENT', { default: 20, min: 0, max: 400 }),
  };
  read.done('gateway');
  return config;
}
