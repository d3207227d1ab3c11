// Puts route specs on a router, each behind the checks it needs, in one fixed order:
//   name → authenticate → rate limit → JSON body (writes) → tenant guard (tenant routes)
//   → idempotency (writes) → validate path parameters/body/query → handler in its envelope.
// Each route is one middleware: its checks are steps run one after the other (a promise only for
// those that wait), not a chain of middleware with a frame and a promise per check
// (docs/benchmarks.md#the-request-path-in-steps).
import type Router from '@koa/router';
import {
  type GatewayContext,
  type GatewayLogger,
  type GatewayMiddleware,
  type GatewayState,
  type AuthenticationGuard,
  type IdempotencyStore,
  type ResolveApiKey,
  type RateLimitStore,
  type RouteStep,
  authenticationStep,
  idempotency,
  jsonBodyStep,
  nameStep,
  paramsStep,
  rateLimitStep,
  runSteps,
  sendEnvelopeA,
  sendEnvelopeB,
  tenantStep,
  validateBodyStep,
  validateQueryStep,
} from '../http/index.js';
import { AppError, domainError, withFields } from '@pits/domain';
import { type Database, type Scope, scopeOf, withSession, withTransaction } from '@pits/persistence';
import type { HttpMethod, Route } from './route-spec.js';
import type { GatewayMetrics } from '../http/gateway-metrics.js';

export interface RouteServices {
  database: Database;
  resolveApiKey: ResolveApiKey;
  rateLimitStore: RateLimitStore;
  idempotencyStore: IdempotencyStore;
  logger: GatewayLogger;
  rateLimit: { windowMs: number; tiers: { small: number; medium: number; large: number }; operations: Record<string, number>; storeTimeoutMs: number };
  now: () => Date;
  /** Counts refusals and replays (metrics); nothing when absent. */
  metrics?: GatewayMetrics;
  /** The anonymous budget per address, spent by each 401 (docs/rate-limits.md#without-a-valid-key); none when absent. */
  anonymousGuard?: AuthenticationGuard;
}

const WRITES = new Set(['POST', 'PATCH', 'PUT', 'DELETE']);

function idempotencyTakenOver(): AppError {
  return new AppError(
    domainError('SERVICE_UNAVAILABLE', 'another request took over this Idempotency-Key', {
      field: 'Idempotency-Key',
      issue: 'this request ran past its claim on the key and nothing was committed; retry with the same key to get the result',
    }),
  );
}

/**
 * The handler in its envelope. A write's work is one transaction, retried whole on a transient
 * conflict; with a claimed Idempotency-Key the stored response is part of it, kept only while this
 * request still holds the key.
 */
function handle(spec: Route, database: Database, now: () => Date): GatewayMiddleware {
  return async (ctx) => {
    const state = ctx.state as GatewayState & { body?: unknown; query?: unknown };
    // A transaction past the request's deadline must not commit.
    const scope: Scope = scopeOf(database, state.deadline);
    const input = {
      partner: state.partner!,
      tenantId: state.tenantId ?? '',
      body: state.body,
      query: state.query,
      params: (ctx as GatewayContext).params,
      now: now(),
      requestId: state.requestId,
    };
    if (spec.beforeTransaction) await spec.beforeTransaction(input);
    const respond = async (db: Scope): Promise<void> => {
      const data = await spec.handler(withFields(input, { db }));
      if (spec.envelope === 'A') sendEnvelopeA(ctx, data, spec.status);
      else sendEnvelopeB(ctx, data, spec.status);
    };
    const claim = state.idempotency;
    if (claim === undefined && !WRITES.has(ctx.method)) {
      // A read's statements share one pooled connection (docs/benchmarks.md#one-connection-per-read).
      await withSession(scope, respond);
      return;
    }
    if (spec.outsideTransaction) {
      await respond(scope);
      if (claim !== undefined && !(await withTransaction(scope, (tx) => claim.complete(tx, ctx.status, ctx.body)))) throw idempotencyTakenOver();
      return;
    }
    // A write is one transaction: it commits whole, never after its deadline (a 503 means
    // nothing changed), and with a key, together with the key's stored response.
    await withTransaction(scope, async (tx) => {
      await respond(tx);
      if (claim !== undefined && !(await claim.complete(tx, ctx.status, ctx.body))) throw idempotencyTakenOver();
    });
  };
}

/** Registers every spec on `router`. */
export function mountRoutes(router: Router<GatewayState>, specs: readonly Route[], services: RouteServices): void {
  const guard = services.anonymousGuard ? { guard: services.anonymousGuard } : {};
  const auth = authenticationStep(services.resolveApiKey, guard);
  const authForTenant = authenticationStep(services.resolveApiKey, { tenantScoped: true, ...guard });
  const limit = rateLimitStep({
    store: services.rateLimitStore,
    logger: services.logger,
    tiers: services.rateLimit.tiers,
    operations: services.rateLimit.operations,
    windowMs: services.rateLimit.windowMs,
    storeTimeoutMs: services.rateLimit.storeTimeoutMs,
    now: () => services.now().getTime(),
    ...(services.metrics ? { onRefused: services.metrics.rateLimitRefused } : {}),
  });
  const body = jsonBodyStep();
  const idem = idempotency({
    store: services.idempotencyStore,
    logger: services.logger,
    now: () => services.now().getTime(),
    ...(services.metrics ? { onReplay: services.metrics.idempotencyReplayed } : {}),
  });

  for (const spec of specs) {
    const methods = [spec.method, ...(spec.alsoMethods ?? [])];
    const writes = methods.some((m) => WRITES.has(m));
    // Up to the idempotency claim, and after it (inside the claim: what it fingerprints and stores).
    const before: RouteStep[] = [nameStep(spec.name), spec.tenantScoped ? authForTenant : auth, limit];
    if (writes) before.push(body);
    if (spec.tenantScoped) before.push(tenantStep);
    const after: RouteStep[] = [];
    // Every route with a `:param`, so no handler ever looks up a NUL or an unpaired surrogate.
    if (spec.path.includes('/:')) after.push(paramsStep);
    if (spec.body) after.push(validateBodyStep(spec.body) as RouteStep);
    if (spec.query) after.push(validateQueryStep(spec.query) as RouteStep);
    const handler = handle(spec, services.database, services.now);
    const rest = async (ctx: GatewayContext): Promise<void> => {
      await runSteps(ctx, after);
      await handler(ctx, noNext);
    };
    const route: GatewayMiddleware = writes
      ? async (ctx) => {
          await runSteps(ctx, before);
          await idem(ctx, () => rest(ctx));
        }
      : async (ctx) => {
          await runSteps(ctx, before);
          await rest(ctx);
        };
    for (const method of methods) addRoute(router, method, spec.name, spec.path, route as Router.Middleware<GatewayState>);
  }
}

/** A route's handler is the end of its chain. */
const noNext = (): Promise<void> => Promise.resolve();

/** Adds one named route through @koa/router's public method verbs. */
function addRoute(router: Router<GatewayState>, method: HttpMethod, name: string, path: string, route: Router.Middleware<GatewayState>): void {
  switch (method) {
    case 'GET':
      router.get(name, path, route);
      return;
    case 'POST':
      router.post(name, path, route);
      return;
    case 'PATCH':
      router.patch(name, path, route);
      return;
    case 'DELETE':
      router.delete(name, path, route);
      return;
  }
}
