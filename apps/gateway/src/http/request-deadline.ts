// The whole-request deadline: a request that has not finished within it is answered 503
// SERVICE_UNAVAILABLE with Retry-After, whatever it was waiting on, and its work is told to stop:
// `ctx.state.deadline` is aborted, and a transaction run with that signal rolls back instead of
// committing. No caller ever waits on a stalled dependency for longer than this.
import { AppError, domainError } from '@pits/domain';
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
  return async (ctx, next) => {
    if (exempt?.(ctx.path)) {
      await next();
      return;
    }
    const controller = new AbortController();
    ctx.state.deadline = controller.signal;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(
          new AppError(
            domainError('SERVICE_UNAVAILABLE', 'the request could not be completed in time', {
              issue: `no answer within ${timeoutMs} ms; nothing was committed after this answer, retry later (with the same Idempotency-Key for writes)`,
            }),
          ),
        );
      }, timeoutMs);
    });
    try {
      // The race keeps a late failure of `next()` handled; a late success finds the response sent.
      await Promise.race([next(), expired]);
    } finally {
      clearTimeout(timer);
    }
  };
}
