// Puts route specs on a router, each behind the middleware it needs, in one fixed order:
//   name → authenticate → rate limit → JSON body (writes) → tenant guard (tenant routes)
//   → idempotency (writes) → validate body/query → handler in its envelope.
import type Router from '@koa/router';
import {
  type CheckInstallation,
  type GatewayContext,
  type GatewayLogger,
  type GatewayMiddleware,
  type GatewayState,
  type IdempotencyStore,
  type LookupApiKey,
  type RateLimitStore,
  authenticate,
  idempotency,
  jsonBody,
  nameRoute,
  rateLimit,
  requireTenant,
  sendEnvelopeA,
  sendEnvelopeB,
  validateBody,
  validateQuery,
} from '../http/index.js';
import type { RouteSpec } from './route-spec.js';

export interface RouteServices {
  lookupApiKey: LookupApiKey;
  checkInstallation: CheckInstallation;
  rateLimitStore: RateLimitStore;
  idempotencyStore: IdempotencyStore;
  logger: GatewayLogger;
  rateLimit: { windowMs: number; tiers: { small: number; medium: number; large: number }; operations: Record<string, number>; storeTimeoutMs: number };
  now: () => Date;
}

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

function handle(spec: RouteSpec, now: () => Date): GatewayMiddleware {
  return async (ctx) => {
    const state = ctx.state as GatewayState & { body?: unknown; query?: unknown };
    const data = await spec.handler({
      partner: state.partner!,
      tenantId: state.tenantId ?? '',
      body: state.body,
      query: state.query,
      params: (ctx as GatewayContext).params,
      now: now(),
      requestId: state.requestId,
    });
    if (spec.envelope === 'A') sendEnvelopeA(ctx, data, spec.status);
    else sendEnvelopeB(ctx, data, spec.status);
  };
}

/** Registers every spec on `router`. */
export function mountRoutes(router: Router<GatewayState>, specs: readonly RouteSpec[], services: RouteServices): void {
  const auth = authenticate(services.lookupApiKey);
  const limit = rateLimit({
    store: services.rateLimitStore,
    logger: services.logger,
    tiers: services.rateLimit.tiers,
    operations: services.rateLimit.operations,
    windowMs: services.rateLimit.windowMs,
    storeTimeoutMs: services.rateLimit.storeTimeoutMs,
    now: () => services.now().getTime(),
  });
  const body = jsonBody();
  const tenant = requireTenant(services.checkInstallation);
  const idem = idempotency({ store: services.idempotencyStore, logger: services.logger, now: () => services.now().getTime() });

  for (const spec of specs) {
    const methods = [spec.method, ...(spec.alsoMethods ?? [])];
    const writes = methods.some((m) => WRITES.has(m));
    const chain: GatewayMiddleware[] = [nameRoute(spec.name), auth, limit];
    if (writes) chain.push(body);
    if (spec.tenantScoped) chain.push(tenant);
    if (writes) chain.push(idem);
    if (spec.body) chain.push(validateBody(spec.body) as GatewayMiddleware);
    if (spec.query) chain.push(validateQuery(spec.query) as GatewayMiddleware);
    chain.push(handle(spec, services.now));
    router.register(spec.path, methods, chain as Router.Middleware<GatewayState>[], { name: spec.name });
  }
}
