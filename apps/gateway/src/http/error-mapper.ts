// The boundary between everything the gateway does and what a partner sees: every thrown value
// becomes the contract's error envelope. Expected refusals (`AppError`) keep their kind; exposed
// 4xx http-errors are mapped to the closed list; anything else is a generic 500, reported once.
import { AppError, domainError, type DomainError, type ErrorKind } from '@pits/domain';
import { isDatabaseUnavailable } from '@pits/persistence';
import { RETRY_AFTER_SECONDS } from '@pits/http-edge';
import { sendError } from './envelope.js';
import type { GatewayAppMiddleware, GatewayLogger } from './gateway-state.js';

export interface ErrorMapperOptions {
  /** Where unexpected errors are reported (with the request id); a pino logger fits. */
  logger: GatewayLogger;
}

const HTTP_STATUS_KIND: Readonly<Record<number, ErrorKind>> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
};

const INTERNAL: DomainError = domainError('INTERNAL_ERROR', 'an unexpected error occurred', {
  issue: 'the request could not be completed; retry later or quote the request_id to support',
});

const UNAVAILABLE: DomainError = domainError('SERVICE_UNAVAILABLE', 'the service is temporarily unavailable', {
  issue: 'the database did not answer in time; nothing was changed, retry after the Retry-After delay',
});

/** An http-errors/Koa error meant for the client (`expose` and 4xx), as its status, message and headers. */
function exposedClientError(
  err: unknown,
): { status: number; message: string; headers: Record<string, string> } | undefined {
  if (!(err instanceof Error)) return undefined;
  const status: unknown = Reflect.get(err, 'status') ?? Reflect.get(err, 'statusCode');
  if (typeof status !== 'number' || status < 400 || status > 499) return undefined;
  if (Reflect.get(err, 'expose') !== true) return undefined;
  const headers: Record<string, string> = {};
  const raw: unknown = Reflect.get(err, 'headers');
  if (typeof raw === 'object' && raw !== null) {
    for (const [name, value] of Object.entries(raw)) {
      if (typeof value === 'string') headers[name] = value;
    }
  }
  return { status, message: err.message, headers };
}

/** The headers of a 503: a fresh object each time, as callers add their own. */
const retryAfter = (): Record<string, string> => ({ 'Retry-After': String(RETRY_AFTER_SECONDS) });

/**
 * Maps whatever was thrown to a `DomainError`; `unexpected` is true when it must be reported.
 * Exported for the idempotency layer and tests.
 */
export function toDomainError(err: unknown): { error: DomainError; unexpected: boolean; headers: Record<string, string> } {
  if (err instanceof AppError) {
    const headers: Record<string, string> = err.kind === 'SERVICE_UNAVAILABLE' ? retryAfter() : {};
    return { error: err.error, unexpected: err.kind === 'INTERNAL_ERROR', headers };
  }
  if (isDatabaseUnavailable(err)) {
    return { error: UNAVAILABLE, unexpected: false, headers: retryAfter() };
  }
  const client = exposedClientError(err);
  if (client) {
    const kind = HTTP_STATUS_KIND[client.status] ?? 'INVALID_REQUEST';
    return { error: domainError(kind, client.message), unexpected: false, headers: client.headers };
  }
  return { error: INTERNAL, unexpected: true, headers: {} };
}

/**
 * Fourth middleware of the app, after `requestId()`, `securityHeaders()` and `accessLog()` (so the
 * access line and the security headers see the envelope it answers with, never the thrown value),
 * and before `requestDeadline()`, the ready gate and the router, whose refusals it maps: catches
 * everything below it and answers with the error envelope. It also turns "no middleware answered" (Koa's default 404 with no body) into
 * a NOT_FOUND envelope, for a chain without `methodNotAllowed()` (in the gateway that answers
 * every unrouted request itself). Headers already set (X-Request-Id, the security headers, rate
 * limits, Allow, Retry-After) are kept.
 *
 * @example
 * app.use(requestId()).use(securityHeaders()).use(accessLog({ logger })).use(errorMapper({ logger }));
 */
export function errorMapper(options: ErrorMapperOptions): GatewayAppMiddleware {
  const { logger } = options;
  const unavailable = throttledWarning(logger);
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body == null) {
        sendError(ctx, domainError('NOT_FOUND', 'no such route', { issue: 'no route matches this path' }));
      }
    } catch (err) {
      const mapped = toDomainError(err);
      if (mapped.unexpected) {
        logger.error({ err, request_id: ctx.state.requestId }, 'unexpected error while handling a request');
      } else if (mapped.error.kind === 'SERVICE_UNAVAILABLE') {
        unavailable.report(err, ctx.state.requestId);
      }
      if (ctx.headerSent || !ctx.writable) return;
      for (const [name, value] of Object.entries(mapped.headers)) ctx.set(name, value);
      sendError(ctx, mapped.error);
    }
  };
}

/**
 * During an outage every request fails the same way: one warning per second at most, with how
 * many 503s it stands for, keeps the log readable (each request still has its access line).
 */
function throttledWarning(logger: GatewayLogger, intervalMs = 1000) {
  let last = 0;
  let suppressed = 0;
  return {
    report(err: unknown, requestId: string): void {
      const now = Date.now();
      if (now - last < intervalMs) {
        suppressed += 1;
        return;
      }
      last = now;
      const reason = err instanceof Error ? err.message : String(err);
      logger.warn({ reason, request_id: requestId, also_unavailable_since_last: suppressed }, 'answered 503: the database is unavailable or too slow');
      suppressed = 0;
    },
  };
}
