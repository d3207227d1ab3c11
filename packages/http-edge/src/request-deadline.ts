// The whole-request deadline: a request that has not finished within it is answered 503
// SERVICE_UNAVAILABLE with Retry-After, whatever it was waiting on, and its work is told to stop:
// `ctx.state.deadline` reads aborted, and a transaction run under it rolls back instead of
// committing. No caller ever waits on a stalled dependency for longer than this.
//
// Unless the client is the slow one: a request whose body has not arrived whole at the deadline
// is answered 408 REQUEST_TIMEOUT with `Connection: close` (docs/errors.md#kinds-and-statuses),
// and the connection is closed once the answer is written. A client's slowness is a 4xx in the
// access log and the metrics, never a 503 that reads as the service being down.
import { AppError, domainError } from '@pits/domain';
import { underDeadline } from '@pits/service-runtime';
import type { EdgeMiddleware, EdgeState } from './edge-state.js';

export interface RequestDeadlineOptions {
  timeoutMs: number;
  /** Requests that are not held to the deadline (the probes keep their own). */
  exempt?: (path: string) => boolean;
}

/**
 * Goes right after the app's error mapper (the gateway's turns its refusals into envelopes) and
 * before the ready gate and the router. The internal API does not mount it: each procedure call
 * has its deadline (apps/internal-api/src/trpc.ts).
 *
 * @example
 * app.use(requestId()).use(securityHeaders()).use(accessLog({ logger, outcome })).use(errorMapper({ logger })).use(requestDeadline({ timeoutMs: 10_000 }));
 */
export function requestDeadline<S extends EdgeState = EdgeState>(options: RequestDeadlineOptions): EdgeMiddleware<S> {
  const { timeoutMs, exempt } = options;
  const serviceTooSlow = () =>
    new AppError(
      domainError('SERVICE_UNAVAILABLE', 'the request could not be completed in time', {
        issue: `no answer within ${timeoutMs} ms; nothing was committed after this answer, retry later (with the same Idempotency-Key for writes)`,
      }),
    );
  const clientTooSlow = () =>
    new AppError(
      domainError('REQUEST_TIMEOUT', 'the request did not arrive in time', {
        issue: `the request body was not received within ${timeoutMs} ms; nothing was done, send it again (with the same Idempotency-Key for writes)`,
      }),
    );
  return async (ctx, next) => {
    if (exempt?.(ctx.path)) {
      await next();
      return;
    }
    const refusal = () => {
      // `complete`: Node has received the whole request, body included.
      if (ctx.req.complete) return serviceTooSlow();
      // The rest of the body is not waited for: the connection goes with the answer.
      ctx.set('Connection', 'close');
      return clientTooSlow();
    };
    await underDeadline(timeoutMs, refusal, async (deadline) => {
      ctx.state.deadline = deadline;
      await next();
    });
  };
}
