// The typed `ctx.state` every gateway middleware and route handler shares, and the context types
// built on it. Middleware fills it in the order it runs (http/index.ts): request id, deadline (the
// edge's, @pits/http-edge), then a route's steps (name, authenticate, tenant guard, idempotency, validate), and the error envelope's
// code when one is sent.
import type Koa from 'koa';
import type Router from '@koa/router';
import type { Logger } from 'pino';
import type { ErrorKind } from '@pits/domain';
import type { Scope } from '@pits/persistence';
import type { EdgeState } from '@pits/http-edge';

/** Where a partner's installation for a tenant stands. */
export type InstallationState = 'active' | 'inactive' | 'unknown';

/** A partner's tier; it selects the partner's overall rate limit. */
export type PartnerTier = 'small' | 'medium' | 'large';

/** The partner behind a valid API key, as `authenticate` puts it on `ctx.state.partner`. */
export interface AuthenticatedPartner {
  partnerId: number;
  name: string;
  email: string;
  tier: PartnerTier;
  /** The id of the API key that was used (for audit; never the key itself). */
  keyId: number;
}

/**
 * What the gateway keeps on `ctx.state` for one request.
 *
 * @example
 * router.get('/api/partner/v1/areas', async (ctx: GatewayContext) => {
 *   ctx.state.partner?.partnerId;
 * });
 */
export interface GatewayState extends EdgeState {
  /** Set by `authenticate`. */
  partner?: AuthenticatedPartner;
  /** Set by `requireTenant`: the lower-cased UUID from `X-Tenant-Id`. */
  tenantId?: string;
  /** Set by `authenticate` on tenant-scoped routes: the partner's installation for the `X-Tenant-Id` tenant. */
  installation?: { tenantId: string; state: InstallationState };
  /** Operation name (`inbound.list`, `areas.search`…) used by rate-limit buckets and the access log. */
  routeName?: string;
  /** Set by `idempotency` when this request claimed an Idempotency-Key: the route stores its response through it. */
  idempotency?: IdempotencyCompletion;
  /**
   * The code of the error envelope the request is answered with, set by `sendError` (and by a
   * replayed refusal): the access log's `error_code`, so it never reads the body back.
   */
  errorCode?: ErrorKind;
}

/** How a route stores the response of a claimed Idempotency-Key. */
export interface IdempotencyCompletion {
  /**
   * Stores `body` as the key's response, in `scope` (the transaction of the request's work, so
   * both commit or neither does; null: on its own). False when another request took the key over
   * (this claim's lease ran out): the caller must then roll its work back.
   */
  complete(scope: Scope | null, status: number, body: unknown): Promise<boolean>;
  /** Whether a response was stored. */
  readonly completed: boolean;
}

/** Extra, route-specific state (for example the parsed body); nothing by default. */
export type NoExtraState = Record<never, never>;

/**
 * What @koa/router adds to the context that gateway code reads. `ctx.router` is left out on
 * purpose: its type would tie a middleware to one exact state type, so middleware adding state
 * (`validateBody`) could not sit in the same route as middleware that does not.
 */
export type GatewayRouteContext = Pick<Router.RouterParamContext<GatewayState>, 'params' | '_matchedRoute' | '_matchedRouteName'>;

/**
 * The context a route handler receives. `Extra` adds typed state, for example what
 * `validateBody(schema)` stored.
 *
 * @example
 * async (ctx: GatewayContext<ValidatedBody<CreateAdjustmentInput>>) => sendEnvelopeA(ctx, await create(ctx.state.body), 201)
 */
export type GatewayContext<Extra extends object = NoExtraState> = Koa.ParameterizedContext<
  GatewayState & Extra,
  GatewayRouteContext,
  unknown
>;

/** A middleware of the gateway, typed over the gateway state (plus `Extra`). */
export type GatewayMiddleware<Extra extends object = NoExtraState> = Koa.Middleware<
  GatewayState & Extra,
  GatewayRouteContext,
  unknown
>;

/** An app-level middleware (it runs before routing, so route params are not there yet). */
export type GatewayAppMiddleware = Koa.Middleware<GatewayState>;

/** The few logger methods the gateway uses; a pino `Logger` fits. */
export type GatewayLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

/**
 * The operation name of the current request: `ctx.state.routeName` when `nameRoute` set it,
 * else the name the route was registered with in @koa/router (`router.get('inbound.list', path, …)`).
 */
export function operationName(ctx: Koa.ParameterizedContext<GatewayState>): string | undefined {
  if (ctx.state.routeName !== undefined) return ctx.state.routeName;
  const name: unknown = Reflect.get(ctx, '_matchedRouteName');
  return typeof name === 'string' ? name : undefined;
}

/** The matched route pattern (`/api/engine/v1/adjustments/:id`), or `undefined` when no route matched. */
export function matchedRoutePattern(ctx: Koa.ParameterizedContext<GatewayState>): string | undefined {
  const route: unknown = Reflect.get(ctx, '_matchedRoute');
  if (typeof route === 'string') return route;
  if (route instanceof RegExp) return route.source;
  return undefined;
}

/**
 * A check a route runs before its handler and never after it: it reads the request, fills
 * `ctx.state`, or throws to refuse. It returns a promise only when it waits (a lookup, a body), so
 * a route's checks run one after the other without a promise or a middleware frame each
 * (`mountRoutes`).
 */
export type RouteStep<Extra extends object = NoExtraState> = (ctx: GatewayContext<Extra>) => void | Promise<void>;

/**
 * A step as Koa middleware (the step, then the rest of the chain), for a router built by hand.
 *
 * @example router.get('/x', stepMiddleware(nameStep('x.read')), handler);
 */
export function stepMiddleware<Extra extends object = NoExtraState>(step: RouteStep<Extra>): GatewayMiddleware<Extra> {
  return async (ctx, next) => {
    await step(ctx);
    await next();
  };
}

/** Runs `steps` in order, awaiting only those that wait. */
export async function runSteps<Extra extends object>(ctx: GatewayContext<Extra>, steps: readonly RouteStep<Extra>[]): Promise<void> {
  for (const step of steps) {
    const waiting = step(ctx);
    if (waiting !== undefined) await waiting;
  }
}

/** Names the operation of a route so rate limits and the access log can use it. */
export const nameStep =
  (name: string): RouteStep =>
  (ctx) => {
    ctx.state.routeName = name;
  };

/**
 * Names the operation of a route so rate limits and the access log can use it.
 *
 * @example
 * router.get('/api/partner/v1/inbound', nameRoute('inbound.list'), authenticate(lookup), rateLimit(opts), handler);
 */
export function nameRoute(name: string): GatewayMiddleware {
  return stepMiddleware(nameStep(name));
}
