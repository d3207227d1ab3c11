// The whole-request deadline: a request that has not finished within it is answered 503
// SERVICE_UNAVAILABLE with Retry-After, whatever it was waiting on, and its work is told to stop:
// `ctx.state.deadline` reads aborted, and a transaction run under it rolls back instead of
// committing. No caller ever waits on a stalled dependency for longer than this.
import { AppError, domainError } from '@pits/domain';
import { underDeadline } from '@pits/service-runtime';
import type { GatewayAppMiddleware } from './gateway-state.js';

export interface RequestDeadlineOptions {
  timeoutMs: number;
  /** Requests that are not held to the deadline (the probes keep their own). */
  exempt?: (path: string) => boolean;
}

/**
 * Goes right after the error mapper.
 *
 * @example
 * app.use(requestId()).use(accessLog({ logger })).use(errorMapper({ logger })).use(requestDeadline({ timeoutMs: 10_000 }));
 */
export function requestDeadline(options: RequestDeadlineOptions): GatewayAppMiddleware {
  const { timeoutMs, exempt } = options;
  const refusal = () =>
    new AppError(
      domainError('SERVICE_UNAVAILABLE', 'the request could not be completed in time', {
        issue: `no answer within ${timeoutMs} ms; nothing was committed after this answer, retry later (with the same Idempotency-Key for writes)`,
      }),
    );
  return async (ctx, next) => {
    if (exempt?.(ctx.path)) {
      await next();
      return;
    }
    await underDeadline(timeoutMs, refusal, async (deadline) => {
      ctx.state.deadline = deadline;
      await next();
    });
  };
}
