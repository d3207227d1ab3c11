// What the edge keeps on `ctx.state` (each app's state extends it: the gateway's GatewayState,
// the internal API's InternalApiState), and how it sets headers.
import type { ServerResponse } from 'node:http';
import type Koa from 'koa';
import type { Deadline } from '@pits/service-runtime';

/** The part of `ctx.state` the edge fills in. */
export interface EdgeState {
  /** Fresh UUID v4, also in `X-Request-Id` (and, in the gateway, `request_id` of every envelope). */
  requestId: string;
  /** Reads aborted once the request's deadline passes (set by `requestDeadline`): its work must not commit any more. */
  deadline?: Deadline;
}

/** A middleware of the edge, over any app state that extends the edge's. */
export type EdgeMiddleware<S extends EdgeState = EdgeState> = Koa.Middleware<S>;

/**
 * Sets string-valued response headers straight on Node's response (`setHeader`), and nothing once
 * the headers are sent, as `ctx.set` does. Koa's `ctx.set` builds an entry array and a normalised
 * copy of every header it is given, and the gateway sets about ten on every request
 * (docs/benchmarks.md#the-request-path-in-steps).
 *
 * @example setHeaders(ctx, { 'X-Request-Id': id });
 */
export function setHeaders(ctx: { readonly res: ServerResponse }, headers: Readonly<Record<string, string>>): void {
  const { res } = ctx;
  if (res.headersSent) return;
  for (const name in headers) res.setHeader(name, headers[name]!);
}
