// The internal API (apps/internal-api/dist/main.js) as a child process on a free port, and the
// typed tRPC client the fixtures onboard partners with.
import { type InternalClient, createInternalClient } from '@pits/internal-api/client';
import { type ChildService, startService } from './child-service.js';
import { freePort } from './free-port.js';

export interface InternalApiProcess {
  service: ChildService;
  client: InternalClient;
}

/**
 * @example
 * const { service, client } = await startInternalApiProcess({ databaseUrl, credentialsKey, token });
 * await client.partners.list.query();
 */
export async function startInternalApiProcess(options: {
  databaseUrl: string;
  credentialsKey: string;
  token: string;
  /** Any further variables (REQUEST_DEADLINE_MS, DB_STATEMENT_TIMEOUT_MS, ...); they win over the defaults. */
  env?: Record<string, string>;
  name?: string;
  /** How long to wait for /readyz; default startService's. */
  readyTimeoutMs?: number;
}): Promise<InternalApiProcess> {
  const port = await freePort();
  const service = await startService({
    name: options.name ?? 'internal-api',
    script: 'apps/internal-api/dist/main.js',
    port,
    ...(options.readyTimeoutMs ? { readyTimeoutMs: options.readyTimeoutMs } : {}),
    env: {
      INTERNAL_API_HOST: '127.0.0.1',
      INTERNAL_API_PORT: String(port),
      INTERNAL_API_TOKEN: options.token,
      CREDENTIALS_KEY: options.credentialsKey,
      DATABASE_URL: options.databaseUrl,
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '2000',
      ...options.env,
    },
  });
  return { service, client: createInternalClient(service.url, options.token) };
}
