// Builds the partner gateway from its configuration and dependencies. main.ts and the tests use
// the same factory; nothing here reads the environment.
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AppError, type HostResolver, domainError } from '@pits/domain';
import {
  type Database,
  DATABASE_ERROR_KINDS,
  DEFAULT_IDEMPOTENCY_TIMINGS,
  abandonIdempotencyKey,
  claimIdempotencyKey,
  classifyDatabaseError,
  completeIdempotencyKey,
  createCredentialCipher,
  resolveApiKey,
  isDatabaseReachable,
} from '@pits/persistence';
import { PROBE_PATHS, readyGate, requestDeadline, requestId, securityHeaders } from '@pits/http-edge';
import { type OperatorServer, type ProcessMetrics, createLimitedServer, createOperatorServer, createProcessLogger, createProcessMetrics, systemHostResolver, urlHost } from '@pits/service-runtime';
import type { GatewayConfig } from './config.js';
import { buildOpenApiDocument } from './docs/openapi-document.js';
import { readScalarBundle, renderDocsPage } from './docs/docs-page.js';
import { partnerGuide } from './docs/guides.js';
import {
  type GatewayState,
  type IdempotencyStore,
  type RateLimitStore,
  DEFAULT_OPERATION_LIMITS,
  accessLog,
  anonymousLimit,
  createMemoryRateLimitStore,
  createRedisRateLimitStore,
  errorMapper,
  methodNotAllowed,
} from './http/index.js';
import { gatewayMetrics } from './http/gateway-metrics.js';
import { createExpirySweeper } from './expiry-sweeper.js';
import { type RetentionJob, createRetentionJob } from './retention-job.js';
import { mountRoutes } from './routes/mount-routes.js';
import { PUBLIC_ROUTES, mountPublicRoutes } from './routes/public-routes.js';
import type { Route } from './routes/route-spec.js';
import { partnerRoutes } from './routes/partner-routes.js';

export const SERVICE_VERSION = '1.0.0';

export interface GatewayDeps {
  database: Database;
  logger?: Logger;
  /** Overrides the store chosen from config.redisUrl (tests). */
  rateLimitStore?: RateLimitStore;
  /** How webhook host names are resolved at registration (tests map names to addresses); the system resolver by default. */
  resolveHost?: HostResolver;
  now?: () => Date;
  /**
   * False when the database is not migrated yet (main.ts starts serving first, then migrates):
   * until `markReady()`, partner calls answer 503 and /readyz says no. Default true.
   */
  ready?: boolean;
  /**
   * The process's metrics (main.ts creates them first, so the database it opens reports to them);
   * the gateway creates its own when absent.
   */
  metrics?: ProcessMetrics;
  /**
   * False keeps the expiry sweep off, for tests that move a hold's expiry by hand and decide
   * themselves what ends it. Default true: every gateway sweeps (docs/holds.md#states-and-expiry).
   */
  sweepHolds?: boolean;
}

export interface Gateway {
  readonly app: Koa<GatewayState>;
  readonly routes: readonly Route[];
  readonly logger: Logger;
  readonly retention: RetentionJob;
  readonly metrics: ProcessMetrics;
  /**
   * Starts listening on config.host:config.port (0 picks a free port), the operator port when
   * config.metrics sets one (`metricsUrl`), the retention job, and (once ready) the expiry sweeper.
   */
  listen(): Promise<{ port: number; url: string; metricsUrl: string | null }>;
  /** The database is migrated: serve partner calls, and sweep expired holds from now on. */
  markReady(): void;
  /**
   * Stops accepting, closes idle keep-alive connections at once, lets in-flight requests finish
   * (up to config.shutdownTimeoutMs), stops the retention job and the expiry sweeper, closes Redis. The database stays
   * open: its owner closes it.
   */
  close(): Promise<void>;
}

function databaseIdempotencyStore(database: Database, claimLeaseMs: number): IdempotencyStore {
  const timings = { ...DEFAULT_IDEMPOTENCY_TIMINGS, claimLeaseMs };
  return {
    begin: (partnerId, key, fingerprint, now) => claimIdempotencyKey(database, partnerId, key, fingerprint, now, timings),
    complete: (scope, partnerId, key, token, status, body) => completeIdempotencyKey(scope ?? database, partnerId, key, token, status, body),
    abandon: (partnerId, key, token) => abandonIdempotencyKey(database, partnerId, key, token),
  };
}

/** A Redis client that never stops the gateway: unreachable at start-up or later, rate limits fail open and it keeps reconnecting. */
function connectRedis(url: string, logger: Logger): Redis {
  const redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000, retryStrategy: (times) => Math.min(times * 200, 2000) });
  let down = false;
  redis.on('error', (error: Error) => {
    if (down) return;
    down = true;
    logger.warn({ reason: error.message }, 'redis unreachable; rate limits fail open until it is back');
  });
  redis.on('ready', () => {
    if (down) logger.info('redis reachable again; rate limits are shared');
    down = false;
  });
  return redis;
}

/** The public routes meant for people (the reference, its renderer, its document): the only answers a cache may keep. */
const PUBLIC_PAGES: ReadonlySet<string> = new Set(PUBLIC_ROUTES.filter((route) => !route.probe).map((route) => route.path));

/**
 * @example
 * const gateway = createGateway(config, { database });
 * const { url } = await gateway.listen();
 */
export function createGateway(config: GatewayConfig, deps: GatewayDeps): Gateway {
  const { database } = deps;
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger ?? createProcessLogger('gateway', config.logLevel);
  const metrics = deps.metrics ?? createProcessMetrics('gateway', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
  metrics.watchDatabase(database);
  const counts = gatewayMetrics(metrics.registry);
  const cipher = createCredentialCipher(config.credentialsKey);
  const redis = !deps.rateLimitStore && config.redisUrl ? connectRedis(config.redisUrl, logger) : null;
  const rateLimitStore = deps.rateLimitStore ?? (redis ? createRedisRateLimitStore({ redis, prefix: config.rateLimit.keyPrefix }) : createMemoryRateLimitStore());
  // Until the database is migrated partner calls are refused 503 (the error mapper's envelope); the probes answer.
  const gate = readyGate<GatewayState>({
    ready: deps.ready ?? true,
    exempt: (path) => PROBE_PATHS.has(path),
    refuse: () => {
      throw new AppError(domainError('SERVICE_UNAVAILABLE', 'the service is starting', { issue: 'the database is not ready yet; retry after the Retry-After delay' }));
    },
  });

  const routes = partnerRoutes({
    cipher,
    urlPolicy: { allowPrivate: config.webhookAllowPrivateUrls },
    resolveHost: deps.resolveHost ?? systemHostResolver(),
    // A test send answers within the request's deadline, with room left to record it.
    testSend: { timeoutMs: Math.max(100, Math.min(5000, Math.floor(config.requestDeadlineMs / 2))), logger },
  });

  const operationLimit = config.rateLimit.operation;
  const operations = Object.fromEntries(Object.keys(DEFAULT_OPERATION_LIMITS).map((name) => [name, operationLimit]));
  // Requests without a valid key and the public endpoints spend a budget per client address (the
  // socket's: no X-Forwarded-For is honoured), in the same store (docs/rate-limits.md#without-a-valid-key).
  const anonymous = anonymousLimit({
    store: rateLimitStore,
    logger,
    limit: config.rateLimit.anonymous,
    windowMs: config.rateLimit.windowMs,
    storeTimeoutMs: config.rateLimit.storeTimeoutMs,
    now: () => now().getTime(),
    onRefused: counts.rateLimitRefused,
  });
  // One route table for the partner and the public routes (their paths never overlap).
  const router = new Router<GatewayState>();
  mountRoutes(router, routes, {
    database,
    resolveApiKey: async (secret, tenantId) => {
      const key = await resolveApiKey(database, secret, tenantId);
      return key && { partner: { partnerId: key.partnerId, name: key.name, email: key.email, tier: key.tier, keyId: key.keyId }, installation: key.installation };
    },
    rateLimitStore,
    idempotencyStore: databaseIdempotencyStore(database, config.idempotencyClaimLeaseMs),
    logger,
    rateLimit: { windowMs: config.rateLimit.windowMs, tiers: config.rateLimit.tiers, operations, storeTimeoutMs: config.rateLimit.storeTimeoutMs },
    now,
    metrics: counts,
    anonymousGuard: anonymous.guard,
  });

  let openApi: object | undefined;
  let docsHtml: string | undefined;
  let docsBundle: Buffer | undefined;
  // Getting started shows where this gateway listens: known once it does (port 0 picks one).
  let origin = `http://${urlHost(config.host)}:${config.port}`;
  const sandboxTenantId = config.docsSandboxTenantId;
  const document = () => (openApi ??= buildOpenApiDocument(routes, PUBLIC_ROUTES, { version: SERVICE_VERSION, description: partnerGuide({ origin, sandboxTenantId }), sandboxTenantId, sandboxIds: config.docsSandboxIds }));
  mountPublicRoutes(router, {
    isReady: async () => gate.ready && !http.closing && (await isDatabaseReachable(database, config.readyTimeoutMs)),
    openApi: document,
    docsHtml: () => (docsHtml ??= renderDocsPage()),
    docsBundle: () => (docsBundle ??= readScalarBundle()),
    limit: anonymous.publicRoutes,
  });

  const app = new Koa<GatewayState>({ proxy: false });
  app
    .use(requestId())
    .use(securityHeaders({ publicPages: PUBLIC_PAGES }))
    .use(accessLog({ logger, metrics: metrics.http }))
    .use(errorMapper({ logger }))
    .use(requestDeadline({ timeoutMs: config.requestDeadlineMs, exempt: (path) => PROBE_PATHS.has(path) }))
    .use(gate.middleware)
    // @koa/router's own dispatch: measured against the earlier hand-made one (a chain composed
    // once per route), it costs 2 to 5 us more per request, about 1 % of a detail read's CPU and far
    // inside bench:inventory's run-to-run spread, so no dispatch of our own is kept.
    .use(router.routes())
    .use(methodNotAllowed(router));

  const http = createLimitedServer(app.callback(), config.http);
  const operator: OperatorServer | null = config.metrics ? createOperatorServer(metrics, config.metrics, config.http) : null;
  const retention = createRetentionJob({
    database,
    logger,
    intervalMs: config.retention.intervalMs,
    settings: { deliveryRetentionMs: config.retention.deliveryRetentionMs, batchSize: config.retention.batchSize },
    now,
  });
  // Every gateway sweeps: it is the one process every deployment runs (docs/holds.md#states-and-expiry).
  const expirySweeper = createExpirySweeper({
    database,
    logger,
    intervalMs: config.reservationSweep.intervalMs,
    batchSize: config.reservationSweep.batchSize,
    registry: metrics.registry,
  });
  let listening = false;
  // Its first run is due at once, but not before the database is migrated.
  const startSweeping = () => {
    if (listening && gate.ready && deps.sweepHolds !== false) expirySweeper.start();
  };
  return {
    app,
    routes,
    logger,
    retention,
    metrics,
    async listen() {
      http.server.listen(config.port, config.host);
      await Promise.race([once(http.server, 'listening'), once(http.server, 'error').then(([error]) => Promise.reject(error as Error))]);
      let metricsUrl: string | null = null;
      try {
        metricsUrl = operator ? (await operator.listen()).url : null;
      } catch (error) {
        await http.close(0);
        throw error;
      }
      retention.start();
      listening = true;
      startSweeping();
      const { port } = http.server.address() as AddressInfo;
      origin = `http://${urlHost(config.host)}:${port}`;
      openApi = undefined;
      return { port, url: origin, metricsUrl };
    },
    markReady() {
      gate.open();
      startSweeping();
    },
    async close() {
      await Promise.all([http.close(config.shutdownTimeoutMs), operator?.close()]);
      listening = false;
      await Promise.all([retention.stop(), expirySweeper.stop()]);
      if (redis) await redis.quit().catch(() => redis.disconnect());
    },
  };
}
