// The internal API's access log, in the log schema every app shares (@pits/service-runtime
// log-fields.ts): one line and one observation per procedure call (a batch has several), each
// under its procedure path with the tRPC code of a refusal; a request that ran no procedure (a
// probe, an unknown path or procedure, a body refused before any call) is logged as itself, the
// probes at debug (they come every few seconds). Never headers, tokens, query strings or bodies.
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type Koa from 'koa';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { type EdgeState, PROBE_PATHS } from '@pits/http-edge';
import { type HttpMetrics, type RequestLogFields, type TraceContext, UNMATCHED_ROUTE, durationMs, parseTraceparent } from '@pits/service-runtime';
import type { Logger } from 'pino';
import type { CallRecorder } from './trpc.js';

/** What the HTTP edge knows of a request that its procedure calls are logged with. */
export interface RequestRecord {
  calls: CallRecorder;
  /** Procedure calls finished (a batch has several); none: the request is logged as itself. */
  finished: number;
  /** The tRPC code of a refusal answered outside any procedure; null when there was none. */
  errorCode: TRPC_ERROR_CODE_KEY | null;
}

/** The internal API's `ctx.state`: the edge's, and the request's record. */
export interface InternalApiState extends EdgeState {
  record: RequestRecord;
}

export interface InternalAccessLog {
  /** Third middleware, after `requestId()` and `securityHeaders()`: starts the request's record. */
  readonly middleware: Koa.Middleware<InternalApiState>;
  /** The record of a request, for tRPC's context (which sees only Node's request). */
  recordOf(req: IncomingMessage): RequestRecord | undefined;
}

/**
 * @example
 * const log = internalAccessLog({ logger, metrics: metrics.http });
 * app.use(requestId()).use(securityHeaders()).use(log.middleware);
 */
export function internalAccessLog(options: { logger: Pick<Logger, 'info' | 'debug'>; metrics: HttpMetrics }): InternalAccessLog {
  const { logger, metrics } = options;
  const records = new WeakMap<IncomingMessage, RequestRecord>();

  /** One line and one observation, in the schema every app shares. */
  function record(requestId: string, trace: TraceContext | null, method: string, route: string, status: number, errorCode: TRPC_ERROR_CODE_KEY | null, elapsedMs: number, input: unknown, level: 'info' | 'debug'): void {
    const ids = (typeof input === 'object' && input !== null ? input : {}) as { tenantId?: unknown; partnerId?: unknown };
    const line: RequestLogFields = {
      request_id: requestId,
      method,
      route,
      status,
      duration_ms: durationMs(0, elapsedMs),
      partner_id: typeof ids.partnerId === 'number' ? ids.partnerId : null,
      tenant_id: typeof ids.tenantId === 'string' ? ids.tenantId : null,
      trace_id: trace?.traceId ?? null,
      parent_span_id: trace?.parentSpanId ?? null,
      error_code: errorCode,
    };
    metrics.observe(route, method, status, elapsedMs / 1000);
    logger[level](line, 'request finished');
  }

  return {
    middleware: (ctx, next) => {
      const started = performance.now();
      const { req, res } = ctx;
      const { requestId } = ctx.state;
      const trace = parseTraceparent(req.headers.traceparent);
      const method = req.method ?? 'GET';
      const path = ctx.path;
      const isProbe = PROBE_PATHS.has(path);
      const request: RequestRecord = {
        finished: 0,
        errorCode: null,
        calls: {
          finished(procedure, status, errorCode, elapsedMs, input) {
            request.finished += 1;
            record(requestId, trace, method, procedure, status, errorCode, elapsedMs, input, 'info');
          },
        },
      };
      ctx.state.record = request;
      records.set(req, request);
      res.on('finish', () => {
        // Each procedure call was logged as it finished; a request that ran none is logged as itself.
        if (request.finished > 0) return;
        record(requestId, trace, method, isProbe ? path : UNMATCHED_ROUTE, res.statusCode, request.errorCode, performance.now() - started, undefined, isProbe ? 'debug' : 'info');
      });
      return next();
    },
    recordOf: (req) => records.get(req),
  };
}
