// One structured line per finished request. It logs what identifies the call (route pattern,
// operation, partner, tenant, request id) and never headers, keys, query strings or bodies.
import { matchedRoutePattern, operationName, type GatewayAppMiddleware, type GatewayLogger } from './gateway-state.js';

export interface AccessLogOptions {
  logger: GatewayLogger;
  /** Monotonic clock in milliseconds; `performance.now` by default. */
  now?: () => number;
}

/** The fields of one access-log line. */
export interface AccessLogLine {
  request_id: string;
  method: string;
  /** The matched route pattern, e.g. `/api/engine/v1/adjustments/:id`; null when no route matched. */
  route: string | null;
  operation: string | null;
  status: number;
  duration_ms: number;
  partner_id: number | null;
  tenant_id: string | null;
}

/**
 * Goes right after `requestId()` and before `errorMapper()`, so it sees the final status of
 * every response, errors included.
 *
 * @example
 * app.use(requestId()).use(accessLog({ logger })).use(errorMapper({ logger }));
 */
export function accessLog(options: AccessLogOptions): GatewayAppMiddleware {
  const { logger } = options;
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
      const line: AccessLogLine = {
        request_id: ctx.state.requestId,
        method: ctx.method,
        route: matchedRoutePattern(ctx) ?? null,
        operation: operationName(ctx) ?? null,
        status: escaped ? 500 : ctx.status,
        duration_ms: Math.round((now() - started) * 1000) / 1000,
        partner_id: ctx.state.partner?.partnerId ?? null,
        tenant_id: ctx.state.tenantId ?? null,
      };
      logger.info(line, 'request finished');
    }
  };
}
