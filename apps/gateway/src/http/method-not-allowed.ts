// What a partner gets when the router found nothing to run: 405 with `Allow` for a known path
// called with the wrong method, 404 for an unknown path; both as the contract's error envelope.
import { AppError, domainError } from '@pits/domain';
import type { GatewayAppMiddleware } from './gateway-state.js';

/** The part of an @koa/router `Router` this needs. */
export interface RouteMatcher {
  match(path: string, method: string): { path: ReadonlyArray<{ methods: readonly string[] }>; route: boolean };
}

/**
 * The methods registered for `path` across `routers` (HEAD comes with GET), in registration order.
 */
export function allowedMethods(routers: readonly RouteMatcher[], path: string): string[] {
  const allowed = new Set<string>();
  for (const router of routers) {
    for (const layer of router.match(path, '').path) {
      for (const method of layer.methods) allowed.add(method);
    }
  }
  return [...allowed];
}

/**
 * Goes after the routers' `routes()` middleware, which call `next()` only when no route matched
 * both path and method. Replaces @koa/router's `allowedMethods()`, which answers with a bare
 * status instead of the envelope.
 *
 * @example
 * app.use(router.routes()).use(methodNotAllowed([router]));
 */
export function methodNotAllowed(routers: readonly RouteMatcher[]): GatewayAppMiddleware {
  return async (ctx, next) => {
    if (routers.some((router) => router.match(ctx.path, ctx.method).route)) {
      await next();
      return;
    }
    const allowed = allowedMethods(routers, ctx.path);
    if (allowed.length > 0) {
      ctx.set('Allow', allowed.join(', '));
      throw new AppError(
        domainError('METHOD_NOT_ALLOWED', `method ${ctx.method} is not allowed on this path`, {
          issue: `allowed methods: ${allowed.join(', ')}`,
        }),
      );
    }
    throw new AppError(domainError('NOT_FOUND', 'no such route', { issue: 'no route matches this path' }));
  };
}
