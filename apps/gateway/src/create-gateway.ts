// Builds the partner gateway from its configuration and dependencies. main.ts and the tests use
// the same factory; nothing here reads the environment.
import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { Redis } from 'ioredis';
import { type Logger, pino } from 'pino';
import {
  type Database,
  abandonIdempotencyKey,
  claimIdempotencyKey,
  completeIdempotencyKey,
  createCredentialCipher,
  findKeyOwner,
  installationState,
} from '@pits/persistence';
import type { GatewayConfig } from './config.js';
import { buildOpenApiDocument } from './docs/openapi-document.js';
import { renderDocsPage } from './docs/docs-page.js';
import { webhookGuide } from './docs/webhook-guide.js';
import {
  type GatewayState,
  type IdempotencyStore,
  type RateLimitStore,
  DEFAULT_OPERATION_LIMITS,
  accessLog,
  createCachedKeyLookup,
  createMemoryRateLimitStore,
  createRedisRateLimitStore,
  errorMapper,
  methodNotAllowed,
  requestId,
} from './http/index.js';
import { mountRoutes } from './routes/mount-routes.js';
import { PUBLIC_ROUTES, mountPublicRoutes } from './routes/public-routes.js';
import type { RouteSpec } from './routes/route-spec.js';
import { adjustmentRoutes } from './routes/adjustment-routes.js';
import { areaRoutes } from './routes/area-routes.js';
import { inboundRoutes } from './routes/inbound-routes.js';
import { webhookRoutes } from './routes/webhook-routes.js';
import { stockRoutes } from './routes/stock-routes.js';
import { tenantRoutes } from './routes/tenant-routes.js';
import { transferRoutes } from './routes/transfer-routes.js';

export const SERVICE_VERSION = '1.0.0';

export interface GatewayDeps {
  database: Database;
  logger?: Logger;
  /** Overrides the store chosen from config.redisUrl (tests). */
  rateLimitStore?: RateLimitStore;
  now?: () => Date;
}

export interface Gateway {
  readonly app: Koa<GatewayState>;
  readonly routes: readonly RouteSpec[];
  readonly logger: Logger;
  /** Starts listening on config.host:config.port (0 picks a free port). */
  listen(): Promise<{ port: number; url: string }>;
  /** Stops accepting, lets in-flight requests finish (up to config.shutdownTimeoutMs), closes Redis. The database stays open: its owner closes it. */
  close(): Promise<void>;
}

function databaseIdempotencyStore(database: Database): IdempotencyStore {
  return {
    begin: (partnerId, key, fingerprint, now) => claimIdempotencyKey(database, partnerId, key, fingerprint, now),
    complete: (partnerId, key, status, body) => completeIdempotencyKey(database, partnerId, key, status, body),
    abandon: (partnerId, key) => abandonIdempotencyKey(database, partnerId, key),
  };
}

/**
 * @example
 * const gateway = createGateway(config, { database });
 * const { url } = await gateway.listen();
 */
export function createGateway(config: GatewayConfig, deps: GatewayDeps): Gateway {
  const { database } = deps;
  const now = deps.now ?? (() => new Date());
  const logger = deps.logger ?? pino({ level: config.logLevel, base: { service: 'gateway' } });
  const cipher = createCredentialCipher(config.credentialsKey);
  const redis = !deps.rateLimitStore && config.redisUrl ? new Redis(config.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 }) : null;
  redis?.on('error', (error: Error) => logger.warn({ err: error.message }, 'redis connection problem; rate limits fail open'));
  const rateLimitStore = deps.rateLimitStore ?? (redis ? createRedisRateLimitStore({ redis }) : createMemoryRateLimitStore());

  const routes: RouteSpec[] = [
    ...tenantRoutes({ database, cipher }),
    ...adjustmentRoutes({ database }),
    ...transferRoutes({ database }),
    ...stockRoutes({ database }),
    ...inboundRoutes({ database }),
    ...webhookRoutes({ database, cipher }),
    ...areaRoutes({ database }),
  ];

  const operationLimit = config.rateLimit.operation;
  const operations = Object.fromEntries(Object.keys(DEFAULT_OPERATION_LIMITS).map((name) => [name, operationLimit]));
  const partnerRouter = new Router<GatewayState>();
  mountRoutes(partnerRouter, routes, {
    lookupApiKey: createCachedKeyLookup(
      async (secret) => {
        const owner = await findKeyOwner(database, secret);
        return owner && { partnerId: owner.partnerId, name: owner.name, email: owner.email, tier: owner.tier, keyId: owner.keyId };
      },
      { ttlMs: config.keyCacheTtlMs },
    ),
    checkInstallation: (partnerId, tenantId) => installationState(database, partnerId, tenantId),
    rateLimitStore,
    idempotencyStore: databaseIdempotencyStore(database),
    logger,
    rateLimit: { windowMs: config.rateLimit.windowMs, tiers: config.rateLimit.tiers, operations, storeTimeoutMs: config.rateLimit.storeTimeoutMs },
    now,
  });

  let openApi: object | undefined;
  let docsHtml: string | undefined;
  const document = () => (openApi ??= buildOpenApiDocument(routes, PUBLIC_ROUTES, { version: SERVICE_VERSION }));
  const publicRouter = new Router<GatewayState>();
  mountPublicRoutes(publicRouter, {
    database,
    openApi: document,
    docsHtml: () => (docsHtml ??= renderDocsPage(document() as Record<string, unknown>, [webhookGuide()])),
  });

  const app = new Koa<GatewayState>({ proxy: false });
  app
    .use(requestId())
    .use(accessLog({ logger }))
    .use(errorMapper({ logger }))
    .use(publicRouter.routes())
    .use(partnerRouter.routes())
    .use(methodNotAllowed([publicRouter, partnerRouter]));

  let server: Server | undefined;
  return {
    app,
    routes,
    logger,
    async listen() {
      server = app.listen(config.port, config.host);
      server.keepAliveTimeout = 5_000;
      await once(server, 'listening');
      const { port } = server.address() as AddressInfo;
      const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
      return { port, url: `http://${host}:${port}` };
    },
    async close() {
      if (server) {
        const closing = new Promise<void>((resolve) => server!.close(() => resolve()));
        server.closeIdleConnections();
        const timer = setTimeout(() => server!.closeAllConnections(), config.shutdownTimeoutMs);
        await closing;
        clearTimeout(timer);
      }
      if (redis) await redis.quit().catch(() => undefined);
    },
  };
}
