// The internal API's access log: the edge's (@pits/http-edge requestLog, the log schema every app
// shares, the metrics observed from the same timing), written once per procedure call (a batch
// has several), each under its procedure path with the tRPC code of a refusal and the ids its
// input names; a request that ran no procedure (a probe, an unknown path or procedure, a body
// refused before any call) is logged as itself, the probes at debug (they come every few seconds).
import type { IncomingMessage } from 'node:http';
import type Koa from 'koa';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { type EdgeState, PROBE_PATHS, requestLog } from '@pits/http-edge';
import { type HttpMetrics, UNMATCHED_ROUTE } from '@pits/service-runtime';
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

/** The ids a procedure's input names, for its line. */
function idsOf(input: unknown): { partnerId: number | null; tenantId: string | null } {
  const ids = (typeof input === 'object' && input !== null ? input : {}) as { tenantId?: unknown; partnerId?: unknown };
  return { partnerId: typeof ids.partnerId === 'number' ? ids.partnerId : null, tenantId: typeof ids.tenantId === 'string' ? ids.tenantId : null };
}

/**
 * @example
 * const log = internalAccessLog({ logger, metrics: metrics.http });
 * app.use(requestId()).use(securityHeaders()).use(log.middleware);
 */
export function internalAccessLog(options: { logger: Pick<Logger, 'info' | 'debug'>; metrics: HttpMetrics }): InternalAccessLog {
  const log = requestLog(options);
  const records = new WeakMap<IncomingMessage, RequestRecord>();
  return {
    middleware: (ctx, next) => {
      const timing = log.start(ctx);
      const { req, res } = ctx;
      const path = ctx.path;
      const request: RequestRecord = {
        finished: 0,
        errorCode: null,
        calls: {
          finished(procedure, status, errorCode, elapsedMs, input) {
            request.finished += 1;
            timing.finish({ route: procedure, status, ...idsOf(input), errorCode }, elapsedMs, 'info');
          },
        },
      };
      ctx.state.record = request;
      records.set(req, request);
      res.on('finish', () => {
        // Each procedure call was logged as it finished; a request that ran none is logged as itself.
        if (request.finished > 0) return;
        const isProbe = PROBE_PATHS.has(path);
        timing.finish({ route: isProbe ? path : UNMATCHED_ROUTE, status: res.statusCode, partnerId: null, tenantId: null, errorCode: request.errorCode }, timing.elapsedMs(), isProbe ? 'debug' : 'info');
      });
      return next();
    },
    recordOf: (req) => records.get(req),
  };
}
