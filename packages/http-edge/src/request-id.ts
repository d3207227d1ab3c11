// Gives every request a fresh UUID v4: `ctx.state.requestId`, the `X-Request-Id` response header
// and (in the gateway) the `request_id` of every envelope. Incoming `X-Request-Id` headers are ignored on purpose
// (docs/envelopes-and-pagination.md#request-ids: a fresh id on every response).
import { randomUUID } from 'node:crypto';
import { type EdgeMiddleware, type EdgeState, setHeaders } from './edge-state.js';

export interface RequestIdOptions {
  /** Id generator; `crypto.randomUUID` unless a test needs fixed ids. */
  generate?: () => string;
}

/**
 * First middleware of the app. The header is set before anything else runs, so error
 * responses carry it too (the error mapper keeps headers already set).
 *
 * @example
 * app.use(requestId());
 */
export function requestId<S extends EdgeState = EdgeState>(options: RequestIdOptions = {}): EdgeMiddleware<S> {
  const generate = options.generate ?? randomUUID;
  return async (ctx, next) => {
    const id = generate();
    ctx.state.requestId = id;
    setHeaders(ctx, { 'X-Request-Id': id });
    await next();
  };
}
