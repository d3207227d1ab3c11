// The gateway's configuration, read from the environment here and nowhere else, validated at
// start-up. A bad value stops the process with a message naming the variable.
import { type DatabaseConfig, parseDatabaseUrl } from '@pits/persistence';
import { z } from 'zod';

export interface GatewayConfig {
  host: string;
  port: number;
  database: DatabaseConfig;
  /** Shared rate-limit counters when set; counters in memory otherwise (one process only). */
  redisUrl: string | null;
  /** Key for credentials encrypted at rest (logistics). */
  credentialsKey: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** How long a verified API key is trusted before it is looked up again (revocation delay). */
  keyCacheTtlMs: number;
  /** `storeTimeoutMs`: a rate-limit store slower than this lets the request through uncounted (logged). */
  rateLimit: { windowMs: number; tiers: { small: number; medium: number; large: number }; operation: number; storeTimeoutMs: number };
  /** How long shutdown waits for in-flight requests. */
  shutdownTimeoutMs: number;
}

/** The webhook worker's settings (same app, its own entry point). */
export interface WebhookWorkerConfig {
  database: DatabaseConfig;
  credentialsKey: string;
  logLevel: GatewayConfig['logLevel'];
  pollMs: number;
  timeoutMs: number;
  concurrency: number;
  batchSize: number;
  /** How long a claimed delivery stays with a worker; after a crash it is sent again once this runs out. */
  leaseMs: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const schema = z.object({
  GATEWAY_HOST: z.string().min(1).default('0.0.0.0'),
  GATEWAY_PORT: int(0, 65535).default(4000),
  DATABASE_URL: z.string().optional(),
  REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL').optional(),
  CREDENTIALS_KEY: z.string().min(32, 'must be at least 32 characters (64 hex characters recommended)'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  KEY_CACHE_TTL_MS: int(0, 60_000).default(2000),
  RATE_LIMIT_WINDOW_MS: int(1000, 3_600_000).default(60_000),
  RATE_LIMIT_SMALL: int(1, 1_000_000).default(1000),
  RATE_LIMIT_MEDIUM: int(1, 1_000_000).default(2000),
  RATE_LIMIT_LARGE: int(1, 1_000_000).default(5000),
  RATE_LIMIT_OPERATION: int(1, 1_000_000).default(200),
  RATE_LIMIT_STORE_TIMEOUT_MS: int(10, 60_000).default(250),
  SHUTDOWN_TIMEOUT_MS: int(0, 600_000).default(10_000),
  WEBHOOK_POLL_MS: int(10, 60_000).default(100),
  WEBHOOK_TIMEOUT_MS: int(100, 120_000).default(10_000),
  WEBHOOK_CONCURRENCY: int(1, 256).default(16),
  WEBHOOK_BATCH_SIZE: int(1, 1000).default(50),
  WEBHOOK_LEASE_MS: int(1000, 3_600_000).default(30_000),
});

function parse(env: Record<string, string | undefined>) {
  const parsed = schema.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== '')));
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.code === 'invalid_type' && i.input === undefined ? 'is required' : i.message}`);
    throw new ConfigError(`invalid configuration:\n  ${problems.join('\n  ')}`);
  }
  let database: DatabaseConfig;
  try {
    database = parseDatabaseUrl(parsed.data.DATABASE_URL);
  } catch (error) {
    throw new ConfigError(`invalid configuration:\n  DATABASE_URL: ${(error as Error).message}`);
  }
  return { e: parsed.data, database };
}

/** The worker's configuration: DATABASE_URL, CREDENTIALS_KEY, LOG_LEVEL and the WEBHOOK_* settings. */
export function loadWebhookWorkerConfig(env: Record<string, string | undefined>): WebhookWorkerConfig {
  const { e, database } = parse(env);
  return {
    database,
    credentialsKey: e.CREDENTIALS_KEY,
    logLevel: e.LOG_LEVEL,
    pollMs: e.WEBHOOK_POLL_MS,
    timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    concurrency: e.WEBHOOK_CONCURRENCY,
    batchSize: e.WEBHOOK_BATCH_SIZE,
    leaseMs: Math.max(e.WEBHOOK_LEASE_MS, e.WEBHOOK_TIMEOUT_MS + 1000),
  };
}

/**
 * @example
 * const config = loadGatewayConfig(process.env); // throws ConfigError naming each bad variable
 */
export function loadGatewayConfig(env: Record<string, string | undefined>): GatewayConfig {
  const { e, database } = parse(env);
  return {
    host: e.GATEWAY_HOST,
    port: e.GATEWAY_PORT,
    database,
    redisUrl: e.REDIS_URL ?? null,
    credentialsKey: e.CREDENTIALS_KEY,
    logLevel: e.LOG_LEVEL,
    keyCacheTtlMs: e.KEY_CACHE_TTL_MS,
    rateLimit: {
      windowMs: e.RATE_LIMIT_WINDOW_MS,
      tiers: { small: e.RATE_LIMIT_SMALL, medium: e.RATE_LIMIT_MEDIUM, large: e.RATE_LIMIT_LARGE },
      operation: e.RATE_LIMIT_OPERATION,
      storeTimeoutMs: e.RATE_LIMIT_STORE_TIMEOUT_MS,
    },
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
  };
}
