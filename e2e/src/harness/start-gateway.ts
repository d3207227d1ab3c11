// The partner gateway (apps/gateway/dist/main.js) as a child process on a free port.
import { createHash } from 'node:crypto';
import { type ChildService, startService } from './child-service.js';
import { freePort } from './free-port.js';

export interface GatewayProcessOptions {
  databaseUrl: string;
  credentialsKey: string;
  /** Shared rate-limit counters; without it the process counts in memory. */
  redisUrl?: string;
  /** Any further variables (RATE_LIMIT_SMALL, REQUEST_DEADLINE_MS, ...); they win over the defaults. */
  env?: Record<string, string>;
  name?: string;
  /** `/healthz` to return as soon as the process is up (its database may be unreachable); default `/readyz`. */
  readyPath?: '/readyz' | '/healthz';
  /** How long to wait for it; default startService's. */
  readyTimeoutMs?: number;
}

/**
 * Redis keys of one test database's gateways: partner ids restart at 1 in every test database, so
 * without it suites sharing the Redis server would count each other's requests. The database's
 * name (not its URL: a fault proxy changes the port) keeps every gateway of one stack together.
 */
function rateLimitPrefix(databaseUrl: string): string {
  const name = /^postgres(ql)?:\/\//.test(databaseUrl) ? new URL(databaseUrl).pathname : databaseUrl;
  return `e2e:${createHash('sha256').update(name).digest('hex').slice(0, 16)}:`;
}

/**
 * Defaults chosen for tests: loopback only and a short shutdown grace.
 *
 * @example
 * const gateway = await startGatewayProcess({ databaseUrl, credentialsKey, env: { RATE_LIMIT_SMALL: '5' } });
 */
/** The budget per address every e2e gateway gets unless a test sets its own (see startGatewayProcess). */
export const E2E_ANONYMOUS_LIMIT = '1000000';

export async function startGatewayProcess(options: GatewayProcessOptions): Promise<ChildService> {
  const port = await freePort();
  return startService({
    name: options.name ?? 'gateway',
    script: 'apps/gateway/dist/main.js',
    port,
    ...(options.readyPath ? { readyPath: options.readyPath } : {}),
    ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
    env: {
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: String(port),
      DATABASE_URL: options.databaseUrl,
      CREDENTIALS_KEY: options.credentialsKey,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '2000',
      // Every suite talks from 127.0.0.1, so the budget per address for 401s and public endpoints
      // (docs/rate-limits.md#without-a-valid-key) would be shared by unrelated tests; the tests of
      // that budget set their own.
      RATE_LIMIT_ANONYMOUS: E2E_ANONYMOUS_LIMIT,
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl, RATE_LIMIT_KEY_PREFIX: rateLimitPrefix(options.databaseUrl) } : {}),
      ...options.env,
    },
  });
}
