// A router's routes as one Koa middleware. Routes are registered on @koa/router as before (its
// path patterns, `match`, named routes), but the matched route's middleware runs as a chain
// composed once per route, instead of @koa/router's dispatch, which on every request reads the
// request's host, and builds, spreads and composes a fresh array of the matched layers' middleware.
import type Router from '@koa/router';
import compose from 'koa-compose';
import type { GatewayAppMiddleware, GatewayState } from './gateway-state.js';

type Layer = Router.Layer;
type Chain = ReturnType<typeof compose>;

/**
 * Runs the one route that matches the request's path and method, with `ctx.params`,
 * `ctx._matchedRoute` and `ctx._matchedRouteName` set as @koa/router sets them; calls `next()`
 * when none matches (so `methodNotAllowed` can answer). A path and method that several layers
 * match (a `router.use` layer, a route registered twice) goes through @koa/router's own dispatch,
 * which runs them all in order.
 *
 * @example
 * app.use(dispatchRoutes(router)).use(methodNotAllowed([router]));
 */
export function dispatchRoutes(router: Router<GatewayState>): GatewayAppMiddleware {
  const general = router.routes();
  const chains = new Map<Layer, Chain>();
  const chainOf = (layer: Layer): Chain => {
    let chain = chains.get(layer);
    if (!chain) {
      chain = compose(layer.stack as Parameters<typeof compose>[0]);
      chains.set(layer, chain);
    }
    return chain;
  };
  return (ctx, next) => {
    const path = ctx.path;
    const matched = router.match(path, ctx.method);
    if (!matched.route) return next();
    // `route` means a layer with methods matched; with one layer, it is that one.
    const layers = matched.pathAndMethod;
    if (layers.length !== 1) return general(ctx as never, next) as Promise<void>;
    const layer = layers[0]!;
    const route = ctx as unknown as Router.RouterParamContext<GatewayState>;
    route.params = layer.params(path, layer.captures(path), {}) as Record<string, string>;
    route._matchedRoute = layer.path;
    if (layer.name) route._matchedRouteName = layer.name;
    return chainOf(layer)(ctx, next) as Promise<void>;
  };
}
