// The access log both HTTP apps write: one line per finished request (the internal API: per
// procedure call) in the log schema every app shares (@pits/service-runtime log-fields.ts), and
// the same request counted and timed in the metrics, from one timing. A line holds what identifies
// the call (route, caller, request id, the caller's W3C trace) and the code of an error answer,
// never headers, keys, tokens, query strings or bodies. What the route is, who called and what the
// error was, the app says: it alone knows its routes, its callers and its error codes.
import type { IncomingHttpHeaders } from 'node:http';
import type Koa from 'koa';
import { type HttpMetrics, type RequestLogFields, type TraceContext, durationMs, parseTraceparent } from '@pits/service-runtime';
import type { EdgeMiddleware, EdgeState } from './edge-state.js';
import { withFields } from '@pits/domain';

/** The level of an access-log line: `info`, or `debug` for requests that come every few seconds (probes). */
export type AccessLogLevel = 'info' | 'debug';

/** Writes one log line; a pino `Logger`'s `info` and `debug` fit. */
export type LogLineWriter = (fields: object, msg: string) => void;

/** What the app says of a finished request (or procedure call), for its line and its observation. */
export interface RequestOutcome {
  /**
   * The route pattern (`/api/engine/v1/adjustments/:id`) or procedure path, `UNMATCHED_ROUTE` when
   * none matched: never a raw path, it is also a metric label.
   */
  route: string;
  status: number;
  partnerId: number | null;
  tenantId: string | null;
  /** The code of the error answered (the app's own codes, handed over by what wrote the error); null when the answer is no error. */
  errorCode: string | null;
  /** Fields of the app's own, logged right after `route` (the gateway's `operation`). */
  fields?: Readonly<Record<string, string | number | null>>;
}

export interface AccessLogOptions<L extends AccessLogLevel = 'info'> {
  /** One writer per level the app logs at. */
  logger: Readonly<Record<L, LogLineWriter>>;
  /** Where each request is counted and timed (`pits_http_requests_total`, `pits_http_request_duration_seconds`). */
  metrics?: HttpMetrics;
  /** Monotonic clock in milliseconds; `performance.now` by default. */
  now?: () => number;
}

/** The parts of a request the access log reads. */
export interface LoggedRequest {
  readonly method: string;
  readonly headers: IncomingHttpHeaders;
  readonly state: Pick<EdgeState, 'requestId'>;
}

/** One request being timed. */
export interface RequestTiming<L extends AccessLogLevel = AccessLogLevel> {
  /** Milliseconds since `start`. */
  elapsedMs(): number;
  /** Writes one line and one observation: the request's, or one call's of it, each with its own `elapsedMs`. */
  finish(outcome: RequestOutcome, elapsedMs: number, level: L): void;
}

export interface RequestLog<L extends AccessLogLevel = AccessLogLevel> {
  /** Starts timing a request, and reads its request id, method and `traceparent` once. */
  start(request: LoggedRequest): RequestTiming<L>;
}

type LineWriter<L extends AccessLogLevel> = (requestId: string, method: string, trace: TraceContext | null, outcome: RequestOutcome, elapsedMs: number, level: L) => void;

function lineWriter<L extends AccessLogLevel>(options: AccessLogOptions<L>): LineWriter<L> {
  const { logger, metrics } = options;
  return (requestId, method, trace, outcome, elapsedMs, level) => {
    const { route, status } = outcome;
    const line: RequestLogFields = withFields({ request_id: requestId, method, route, ...outcome.fields }, {
      status,
      duration_ms: durationMs(0, elapsedMs),
      partner_id: outcome.partnerId,
      tenant_id: outcome.tenantId,
      trace_id: trace?.traceId ?? null,
      parent_span_id: trace?.parentSpanId ?? null,
      error_code: outcome.errorCode,
    });
    metrics?.observe(route, method, status, elapsedMs / 1000);
    logger[level](line, 'request finished');
  };
}

const performanceNow = () => performance.now();

/**
 * The access log of an app that writes lines of its own making: the internal API writes one per
 * procedure call as each finishes, and one for a request that ran none.
 *
 * @example
 * const log = requestLog({ logger, metrics: metrics.http });
 * app.use((ctx, next) => {
 *   const timing = log.start(ctx);
 *   ctx.res.on('finish', () => timing.finish({ route: ctx.path, status: ctx.res.statusCode, partnerId: null, tenantId: null, errorCode: null }, timing.elapsedMs(), 'debug'));
 *   return next();
 * });
 */
export function requestLog<L extends AccessLogLevel>(options: AccessLogOptions<L>): RequestLog<L> {
  const write = lineWriter(options);
  const now = options.now ?? performanceNow;
  return {
    start(request) {
      const started = now();
      const requestId = request.state.requestId;
      const method = request.method;
      const trace = parseTraceparent(request.headers.traceparent);
      return {
        elapsedMs: () => now() - started,
        finish: (outcome, elapsedMs, level) => write(requestId, method, trace, outcome, elapsedMs, level),
      };
    },
  };
}

export interface AccessLogMiddlewareOptions<S extends EdgeState> extends AccessLogOptions {
  /** The app's account of the finished request; `status` is the final one (500 when an error escaped). */
  outcome(ctx: Koa.ParameterizedContext<S>, status: number): RequestOutcome;
}

/**
 * One `info` line per request, written once the rest of the chain has answered: it goes third,
 * after `requestId()` and `securityHeaders()` and right before the app's error mapper, so the
 * status it logs is that of the answer every thrown refusal became; an error that escapes the
 * mapper itself is logged as 500 (and thrown on).
 *
 * @example
 * app.use(requestId()).use(securityHeaders()).use(accessLog({ logger, outcome: (ctx, status) => ({ route: ctx.path, status, partnerId: null, tenantId: null, errorCode: null }) }));
 */
export function accessLog<S extends EdgeState = EdgeState>(options: AccessLogMiddlewareOptions<S>): EdgeMiddleware<S> {
  const write = lineWriter(options);
  const now = options.now ?? performanceNow;
  const { outcome } = options;
  return async (ctx, next) => {
    const started = now();
    let escaped = false;
    try {
      await next();
    } catch (error) {
      escaped = true;
      throw error;
    } finally {
      const elapsedMs = now() - started;
      write(ctx.state.requestId, ctx.method, parseTraceparent(ctx.headers.traceparent), outcome(ctx, escaped ? 500 : ctx.status), elapsedMs, 'info');
    }
  };
}
