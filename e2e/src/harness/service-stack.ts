// What most e2e files need: one database, the internal API to onboard partners through, and one
// gateway, all real processes sharing the same secrets. Further gateways can join the same
// database (rate limits across processes).
import { randomBytes } from 'node:crypto';
import type { Dialect } from '@pits/persistence';
import type { InternalClient } from '@pits/internal-api/client';
import type { ChildService, ExitInfo } from './child-service.js';
import { type E2eDatabase, createE2eDatabase } from './e2e-database.js';
import { type GatewayProcessOptions, startGatewayProcess } from './start-gateway.js';
import { startInternalApiProcess } from './start-internal-api.js';

export interface ServiceStack {
  database: E2eDatabase;
  internalApi: ChildService;
  internal: InternalClient;
  /** The internal API's service token, for requests the typed client cannot make (raw bodies). */
  internalToken: string;
  gateway: ChildService;
  credentialsKey: string;
  /** Another gateway process on the same database and secrets. Stopped by `stop()`. */
  startGateway(options?: Omit<GatewayProcessOptions, 'databaseUrl' | 'credentialsKey'>): Promise<ChildService>;
  /** Every process started so far. */
  services(): ChildService[];
  /** Stops every process (SIGTERM) and removes the database; returns how each process exited. Idempotent. */
  stop(): Promise<Record<string, ExitInfo>>;
}

/**
 * The internal API starts first (it migrates the database), then the gateway.
 *
 * @example
 * const stack = await startStack('sqlite', { gatewayEnv: { RATE_LIMIT_SMALL: '5' } });
 * afterAll(() => stack.stop());
 */
export async function startStack(
  dialect: Dialect,
  options: { gatewayEnv?: Record<string, string>; internalApiEnv?: Record<string, string>; redisUrl?: string } = {},
): Promise<ServiceStack> {
  const database = await createE2eDatabase(dialect);
  const credentialsKey = randomBytes(32).toString('hex');
  const token = randomBytes(24).toString('base64url');
  const extra: ChildService[] = [];
  let internal;
  try {
    internal = await startInternalApiProcess({ databaseUrl: database.url, credentialsKey, token, ...(options.internalApiEnv ? { env: options.internalApiEnv } : {}) });
  } catch (error) {
    await database.cleanup();
    throw error;
  }
  const startGateway = async (more: Omit<GatewayProcessOptions, 'databaseUrl' | 'credentialsKey'> = {}) => {
    const gateway = await startGatewayProcess({ databaseUrl: database.url, credentialsKey, ...more });
    extra.push(gateway);
    return gateway;
  };
  let gateway: ChildService;
  try {
    gateway = await startGatewayProcess({
      databaseUrl: database.url,
      credentialsKey,
      ...(options.redisUrl ? { redisUrl: options.redisUrl } : {}),
      ...(options.gatewayEnv ? { env: options.gatewayEnv } : {}),
    });
  } catch (error) {
    await internal.service.stop();
    await database.cleanup();
    throw error;
  }
  const services = () => [internal.service, gateway, ...extra];
  let stopped: Promise<Record<string, ExitInfo>> | undefined;
  const stopAll = async () => {
    const exits: Record<string, ExitInfo> = {};
    const all = services();
    const results = await Promise.all(all.map((s) => s.stop()));
    all.forEach((s, i) => (exits[`${s.name}:${s.pid}`] = results[i]!));
    await database.cleanup();
    return exits;
  };
  return {
    database,
    internalApi: internal.service,
    internal: internal.client,
    internalToken: token,
    gateway,
    credentialsKey,
    startGateway,
    services,
    stop() {
      stopped ??= stopAll();
      return stopped;
    },
  };
}
