// The processes a fault scenario runs against: the internal API, the gateway and (where it
// matters) a webhook worker, each talking to PostgreSQL through its own fault proxy (and the
// gateway to Redis through another), with short deadlines so the suite is fast; plus a partner and
// tenant with stock, and the test's own direct connection for audits and lock holders.
import { randomBytes, randomInt } from 'node:crypto';
import { type Database, type Dialect, createDatabase, parseDatabaseUrl } from '@pits/persistence';
import type { InternalClient } from '@pits/internal-api/client';
import pg from 'pg';
import type { ChildService } from '../harness/child-service.js';
import { type E2eDatabase, createE2eDatabase } from '../harness/e2e-database.js';
import { type FaultProxy, startFaultProxy } from '../harness/fault-proxy.js';
import { gatewayClient } from '../harness/gateway-client.js';
import { type CatalogueProduct, createProducts, recordOpening } from '../harness/inventory-fixtures.js';
import { type OnboardedPartner, onboardPartner } from '../harness/partner-onboarding.js';
import { startGatewayProcess } from '../harness/start-gateway.js';
import { startInternalApiProcess } from '../harness/start-internal-api.js';
import { type WorkerProcess, startWorkerProcess } from '../harness/webhook-worker-process.js';

/** The deadlines every process of the suite runs with: short, so a fault shows within seconds. */
export const FAULT_SETTINGS = {
  connectTimeoutMs: 500,
  statementTimeoutMs: 1000,
  requestDeadlineMs: 2000,
  readyTimeoutMs: 500,
  /** Must be longer than the request deadline; a dead claim can be re-claimed after it. */
  claimLeaseMs: 3000,
  rateLimitStoreTimeoutMs: 250,
} as const;

/** Slack on top of every bound, for a busy two-core machine: a call may answer this much later than its deadline. */
export const MARGIN_MS = 1000;

/** What a test has to say about a process: which one, and that it is still the same process. */
export interface FaultProcess {
  readonly name: string;
  readonly pid: number;
  output(): string[];
  describe(lines?: number): string;
}

export interface FaultStackOptions {
  /** Route each process's DATABASE_URL through its own fault proxy (PostgreSQL only). */
  proxied: boolean;
  /** Also start a webhook worker. */
  worker?: boolean;
  /** The gateway's REDIS_URL, routed through a fault proxy; memory counters without it. */
  redisUrl?: string;
  /** More gateway variables (they win). */
  gatewayEnv?: Record<string, string>;
}

export interface ProxiedGatewayOptions {
  name: string;
  /** Start the gateway behind this database proxy (e.g. one already cut); default a new proxy when the stack is proxied, else the direct URL. */
  databaseProxy?: FaultProxy;
  /** Give it the stack's Redis proxy. */
  redis?: boolean;
  readyPath?: '/readyz' | '/healthz';
}

export interface FaultStack {
  readonly dialect: Dialect;
  readonly database: E2eDatabase;
  readonly internalApi: ChildService;
  readonly internal: InternalClient;
  readonly internalToken: string;
  readonly gateway: ChildService;
  readonly worker: WorkerProcess | undefined;
  /** Between each process and PostgreSQL, by process name (empty on SQLite). */
  readonly databaseProxies: ReadonlyMap<string, FaultProxy>;
  readonly redisProxy: FaultProxy | undefined;
  readonly partner: OnboardedPartner;
  readonly tenant: string;
  readonly locationId: number;
  readonly products: readonly CatalogueProduct[];
  /** The test's own connection to the database (never through a proxy): audits read through it. */
  readonly inspector: Database;
  /** Applies one proxy control to every database proxy of the stack's first three processes at once. */
  databaseFault(action: 'pass' | 'cut' | 'reset' | 'stall'): Promise<void>;
  /** `pg_terminate_backend` of every backend of this stack's processes, found by application_name; returns how many. */
  terminateBackends(): Promise<number>;
  /** Another gateway on the same database and secrets. Stopped by `stop()`. */
  startGateway(options: ProxiedGatewayOptions): Promise<ChildService>;
  /** A proxy to PostgreSQL that `stop()` closes. */
  newDatabaseProxy(): Promise<FaultProxy>;
  /** Every process started so far (the worker included). */
  processes(): FaultProcess[];
  /** Every HTTP process started so far (for showOutputOnFailure). */
  services(): ChildService[];
  /** The processes (by pid) that are no longer running: empty while every one survives. */
  exitedProcesses(): string[];
  /** Stops every process, closes every proxy and the inspector, removes the database. Idempotent. */
  stop(): Promise<void>;
}

/** The variables every process gets: the suite's deadlines, and loopback webhook URLs allowed (tests deliver to 127.0.0.1). */
function commonEnv(): Record<string, string> {
  return {
    DB_CONNECT_TIMEOUT_MS: String(FAULT_SETTINGS.connectTimeoutMs),
    DB_STATEMENT_TIMEOUT_MS: String(FAULT_SETTINGS.statementTimeoutMs),
    REQUEST_DEADLINE_MS: String(FAULT_SETTINGS.requestDeadlineMs),
    READY_TIMEOUT_MS: String(FAULT_SETTINGS.readyTimeoutMs),
    WEBHOOK_ALLOW_PRIVATE_URLS: 'true',
  };
}

/**
 * A rate-limit window of its own length: Redis counters are keyed by partner id and window start,
 * and every run's first partner has id 1, so another suite sharing the Redis (60 s windows) never
 * counts into this one's keys. Long, so the window hardly ever rolls over during a scenario.
 */
const RATE_WINDOW_MS = String(3_000_000 + randomInt(0, 500_000));

function gatewayEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...commonEnv(),
    IDEMPOTENCY_CLAIM_LEASE_MS: String(FAULT_SETTINGS.claimLeaseMs),
    RATE_LIMIT_STORE_TIMEOUT_MS: String(FAULT_SETTINGS.rateLimitStoreTimeoutMs),
    // The traffic of a whole suite stays far below the limit: a 429 would hide what the fault did.
    RATE_LIMIT_LARGE: '1000000',
    RATE_LIMIT_WINDOW_MS: RATE_WINDOW_MS,
    ...extra,
  };
}

const APP_NAME_PREFIX: Record<string, string> = { gateway: 'pits-gateway', 'internal-api': 'pits-internal-api', 'webhook-worker': 'pits-webhook-worker' };

/** The application_name a process sets on its PostgreSQL sessions (see the apps' main.ts). */
function applicationName(kind: 'gateway' | 'internal-api' | 'webhook-worker', pid: number): string {
  return `${APP_NAME_PREFIX[kind]}-${pid}`;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts the stack and onboards one partner (large tier) with one tenant, one location and four
 * products with 100 in good stock each. Cleans up whatever it started when a step fails.
 *
 * @example
 * const stack = await startFaultStack('postgres', { proxied: true, worker: true });
 * await stack.databaseFault('cut');
 * await stack.databaseFault('pass');
 * await stack.stop();
 */
export async function startFaultStack(dialect: Dialect, options: FaultStackOptions): Promise<FaultStack> {
  if (options.proxied && dialect !== 'postgres') throw new Error('fault stack: only PostgreSQL connections can be proxied');
  const database = await createE2eDatabase(dialect);
  const credentialsKey = randomBytes(32).toString('hex');
  const internalToken = randomBytes(24).toString('base64url');
  const proxies: FaultProxy[] = [];
  const databaseProxies = new Map<string, FaultProxy>();
  const gateways: ChildService[] = [];
  const kinds = new Map<number, 'gateway' | 'internal-api' | 'webhook-worker'>();
  let internalApi: ChildService | undefined;
  let worker: WorkerProcess | undefined;
  let inspector: Database | undefined;
  let redisProxy: FaultProxy | undefined;

  const newDatabaseProxy = async () => {
    const { port } = new URL(database.url);
    const proxy = await startFaultProxy({ target: { host: '127.0.0.1', port: Number(port || 5432) } });
    proxies.push(proxy);
    return proxy;
  };
  const urlFor = async (name: string, given?: FaultProxy) => {
    if (!options.proxied) return database.url;
    const proxy = given ?? (await newDatabaseProxy());
    databaseProxies.set(name, proxy);
    return proxy.url(database.url);
  };

  const startGateway = async (more: ProxiedGatewayOptions): Promise<ChildService> => {
    const gateway = await startGatewayProcess({
      name: more.name,
      databaseUrl: await urlFor(more.name, more.databaseProxy),
      credentialsKey,
      ...(more.redis && redisProxy && options.redisUrl ? { redisUrl: redisProxy.url(options.redisUrl) } : {}),
      ...(more.readyPath ? { readyPath: more.readyPath } : {}),
      env: gatewayEnv(options.gatewayEnv),
    });
    gateways.push(gateway);
    kinds.set(gateway.pid, 'gateway');
    return gateway;
  };

  let stopped: Promise<void> | undefined;
  const stop = () =>
    (stopped ??= (async () => {
      const failures: unknown[] = [];
      const attempt = async (step: () => Promise<unknown>) => step().catch((error: unknown) => failures.push(error));
      // Processes first (their pools may reconnect through the proxies while they stop), then the rest.
      await Promise.all([...gateways.map((g) => attempt(() => g.stop(5000))), ...(worker ? [attempt(() => worker!.stop(5000))] : [])]);
      if (internalApi) await attempt(() => internalApi!.stop(5000));
      for (const proxy of proxies) await attempt(() => proxy.close());
      if (inspector) await attempt(() => inspector!.destroy());
      await attempt(() => database.cleanup());
      if (failures.length > 0) throw failures[0];
    })());

  try {
    if (options.redisUrl) {
      const { hostname, port } = new URL(options.redisUrl);
      redisProxy = await startFaultProxy({ target: { host: hostname || '127.0.0.1', port: Number(port || 6379) } });
      proxies.push(redisProxy);
    }
    const started = await startInternalApiProcess({ databaseUrl: await urlFor('internal-api'), credentialsKey, token: internalToken, env: commonEnv() });
    internalApi = started.service;
    kinds.set(internalApi.pid, 'internal-api');
    const gateway = await startGateway({ name: 'gateway', redis: true });
    if (options.worker) {
      worker = await startWorkerProcess({
        databaseUrl: await urlFor('webhook-worker'),
        credentialsKey,
        env: { ...commonEnv(), WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_LEASE_MS: '4000' },
      });
      kinds.set(worker.pid, 'webhook-worker');
    }
    const config = parseDatabaseUrl(database.url);
    inspector = createDatabase(config.dialect === 'postgres' ? { ...config, poolSize: 2, applicationName: 'pits-fault-suite-inspector' } : config);

    const partner = await onboardPartner(started.client, gatewayClient(gateway.url), { label: 'Faults', tier: 'large', tenants: 1, locations: 1 });
    const tenant = partner.tenants[0]!;
    const locationId = tenant.locationIds[0]!;
    const products = await createProducts(started.client, tenant.id, 4, 'FAULT');
    for (const product of products) await recordOpening(started.client, tenant.id, locationId, product.id, { good: '100' }, `OPEN-${product.id}`);

    const firstThree = [...databaseProxies.values()];
    return {
      dialect,
      database,
      internalApi,
      internal: started.client,
      internalToken,
      gateway,
      worker,
      databaseProxies,
      redisProxy,
      partner,
      tenant: tenant.id,
      locationId,
      products,
      inspector,
      async databaseFault(action) {
        if (firstThree.length === 0) throw new Error('fault stack: no database proxies (SQLite, or proxied: false)');
        await Promise.all(firstThree.map((proxy) => proxy[action]()));
      },
      async terminateBackends() {
        if (dialect !== 'postgres') throw new Error('fault stack: pg_terminate_backend needs PostgreSQL');
        // Only this stack's own processes: other suites share the server.
        const names = [...kinds].map(([pid, kind]) => applicationName(kind, pid));
        const client = new pg.Client({ connectionString: database.url, application_name: 'pits-fault-suite' });
        await client.connect();
        try {
          const result = await client.query<{ terminated: boolean }>(
            'select pg_terminate_backend(pid) as terminated from pg_stat_activity where datname = current_database() and application_name = any($1::text[]) and pid <> pg_backend_pid()',
            [names],
          );
          return result.rows.filter((r) => r.terminated).length;
        } finally {
          await client.end();
        }
      },
      startGateway,
      newDatabaseProxy,
      processes: () => [internalApi!, ...gateways, ...(worker ? [worker] : [])],
      services: () => [internalApi!, ...gateways],
      exitedProcesses: () =>
        [internalApi!, ...gateways, ...(worker ? [worker] : [])].filter((p) => !isRunning(p.pid)).map((p) => `${p.name} (pid ${p.pid})`),
      stop,
    };
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
}
