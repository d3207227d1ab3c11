// What a partner gets when the router found nothing to run: 405 with `Allow` for a known path
// called with a method it does not serve, 404 for an unknown path; both as the contract's error
// envelope. Which methods a path serves is @koa/router's own answer, from its `allowedMethods()`.
import type Router from '@koa/router';
import { AppError, domainError } from '@pits/domain';
import type { GatewayAppMiddleware, GatewayState } from './gateway-state.js';

/** The part of an @koa/router `Router` this needs. */
export type AllowedMethodsSource = Pick<Router<GatewayState>, 'allowedMethods'>;

/**
 * Goes right after `router.routes()`, which calls `next()` only when no route matched both path
 * and method. @koa/router's `allowedMethods()` answers such a request itself, with a bare status
 * (405 or 501 with `Allow`, 200 with `Allow` for OPTIONS); this runs it for its `Allow` and turns
 * every one of those answers into an error envelope: 405 METHOD_NOT_ALLOWED with that `Allow` when
 * the path serves any method (OPTIONS and methods the router does not know included: the API
 * answers no preflight), else 404 NOT_FOUND without `Allow`.
 *
 * @example
 * app.use(router.routes()).use(methodNotAllowed(router));
 */
export function methodNotAllowed(router: AllowedMethodsSource): GatewayAppMiddleware {
  const allowedMethods = router.allowedMethods();
  return async (ctx, next) => {
    await allowedMethods(ctx as Parameters<typeof allowedMethods>[0], next);
    // `get` answers undefined for a header that is not set, whatever Koa's types say.
    const header: unknown = ctx.response.get('Allow');
    const allow = typeof header === 'string' ? header : '';
    // Whatever @koa/router answered (an OPTIONS 200 has a text body) gives way to the envelope.
    ctx.body = undefined;
    if (allow !== '') {
      throw new AppError(
        domainError('METHOD_NOT_ALLOWED', `method ${ctx.method} is not allowed on this path`, {
          issue: `allowed methods: ${allow}`,
        }),
      );
    }
    // A method @koa/router does not know, on a path it has no route for, comes with an empty Allow.
    ctx.remove('Allow');
    throw new AppError(domainError('NOT_FOUND', 'no such route', { issue: 'no route matches this path' }));
  };
}
