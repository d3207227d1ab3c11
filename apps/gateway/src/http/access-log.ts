// One structured line per finished request, in the log schema every app shares
// (@pits/service-runtime log-fields.ts), and the request's count and latency in the metrics: the
// timing is taken once here for both. It logs what identifies the call (route pattern, operation,
// partner, tenant, request id, the caller's trace) and the code of an error answer, and never
// headers, keys, query strings or bodies.
import type { ErrorKind } from '@pits/domain';
import { type HttpMetrics, type RequestLogFields, UNMATCHED_ROUTE, parseTraceparent } from '@pits/service-runtime';
import { matchedRoutePattern, operationName, type GatewayAppMiddleware, type GatewayLogger } from './gateway-state.js';

export interface AccessLogOptions {
  logger: GatewayLogger;
  /** Where each request is counted and timed (`pits_http_requests_total`, `pits_http_request_duration_seconds`). */
  metrics?: HttpMetrics;
  /** Monotonic clock in milliseconds; `performance.now` by default. */
  now?: () => number;
}

/** The fields of one access-log line: the shared request fields plus the gateway's operation name. */
export interface AccessLogLine extends RequestLogFields {
  /** The operation (`inbound.list`), null when no route matched. */
  operation: string | null;
  /** The error envelope's `error.code` (docs/errors.md#kinds-and-statuses); null when the answer is no error envelope. */
  error_code: ErrorKind | null;
}

/**
 * Third middleware of the app, after `requestId()` and `securityHeaders()` and right before
 * `errorMapper()`: every thrown refusal below it has become an envelope by the time it reads the
 * status, so it logs the final status (and error code) of every response (the mapper sends
 * nothing once the headers are out or the client is gone); only what escapes the mapper itself
 * is logged as 500 without a code. `route` is the matched route pattern, `unmatched`
 * when none matched (the metrics label never holds a raw path). A valid W3C `traceparent` header
 * puts its trace id and the caller's span on the line; an invalid one is ignored.
 *
 * @example
 * app.use(requestId()).use(securityHeaders()).use(accessLog({ logger, metrics: metrics.http })).use(errorMapper({ logger }));
 */
export function accessLog(options: AccessLogOptions): GatewayAppMiddleware {
  const { logger, metrics } = options;
  const now = options.now ?? (() => performance.now());
  return async (ctx, next) => {
    const started = now();
    let escaped = false;
    try {
      await next();
    } catch (err) {
      escaped = true;
      throw err;
    } finally {
      const elapsedMs = now() - started;
      const route = matchedRoutePattern(ctx) ?? UNMATCHED_ROUTE;
      const status = escaped ? 500 : ctx.status;
      const trace = parseTraceparent(ctx.headers.traceparent);
      const line: AccessLogLine = {
        request_id: ctx.state.requestId,
        method: ctx.method,
        route,
        operation: operationName(ctx) ?? null,
        status,
        duration_ms: Math.round(elapsedMs * 1000) / 1000,
        partner_id: ctx.state.partner?.partnerId ?? null,
        tenant_id: ctx.state.tenantId ?? null,
        trace_id: trace?.traceId ?? null,
        parent_span_id: trace?.parentSpanId ?? null,
        // Left by `sendError` when it wrote the envelope: a field read, not the body parsed.
        error_code: ctx.state.errorCode ?? null,
      };
      metrics?.observe(route, ctx.method, status, elapsedMs / 1000);
      logger.info(line, 'request finished');
    }
  };
}
