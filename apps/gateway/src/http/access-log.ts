// The gateway's access log: the edge's (@pits/http-edge accessLog, one line per finished request
// and its count and latency in the metrics, in the log schema every app shares), told what only the
// gateway knows: the matched route pattern, the operation, the partner, the tenant and the code of
// the error envelope it answered.
import { type AccessLogOptions, accessLog as edgeAccessLog } from '@pits/http-edge';
import { UNMATCHED_ROUTE } from '@pits/service-runtime';
import { matchedRoutePattern, operationName, type GatewayAppMiddleware, type GatewayState } from './gateway-state.js';

/** The logger (a `GatewayLogger` fits), the metrics to observe, and the clock. */
export type { AccessLogOptions };

/**
 * Third middleware of the app, after `requestId()` and `securityHeaders()` and right before
 * `errorMapper()`: every thrown refusal below it has become an envelope by the time it reads the
 * status, so it logs the final status (and error code) of every response (the mapper sends
 * nothing once the headers are out or the client is gone); only what escapes the mapper itself
 * is logged as 500 without a code. `route` is the matched route pattern, `unmatched`
 * when none matched (the metrics label never holds a raw path); right after it, `operation` is the
 * route's operation name (`inbound.list`), null when no route matched.
 *
 * @example
 * app.use(requestId()).use(securityHeaders()).use(accessLog({ logger, metrics: metrics.http })).use(errorMapper({ logger }));
 */
export function accessLog(options: AccessLogOptions): GatewayAppMiddleware {
  // `options` last: it has no `outcome` of its own (AccessLogOptions).
  return edgeAccessLog<GatewayState>({
    outcome: (ctx, status) => ({
      route: matchedRoutePattern(ctx) ?? UNMATCHED_ROUTE,
      fields: { operation: operationName(ctx) ?? null },
      status,
      partnerId: ctx.state.partner?.partnerId ?? null,
      tenantId: ctx.state.tenantId ?? null,
      // Left by `sendError` when it wrote the envelope: a field read, not the body parsed.
      errorCode: ctx.state.errorCode ?? null,
    }),
    ...options,
  });
}
