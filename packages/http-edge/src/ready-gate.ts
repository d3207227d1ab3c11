// The ready gate: until the process's dependencies are up (the database migrated), the calls it
// serves are refused as unavailable, while the probes keep answering. Once open it stays open;
// a request then costs one boolean read.
import type Koa from 'koa';
import type { EdgeMiddleware, EdgeState } from './edge-state.js';

export interface ReadyGateOptions<S extends EdgeState> {
  /** Open from the start (a test's database, already migrated). Default false. */
  ready?: boolean;
  /** Requests let through while closed (the probes, answered further down). */
  exempt?: (path: string) => boolean;
  /** Answers a request that came while closed (or throws the app's refusal, for its error mapper): the rest of the chain does not run. */
  refuse(ctx: Koa.ParameterizedContext<S>): void;
}

export interface ReadyGate<S extends EdgeState = EdgeState> {
  readonly middleware: EdgeMiddleware<S>;
  /** Whether it is open: the readiness probe asks it too. */
  readonly ready: boolean;
  /** The dependencies are up: serve from now on. */
  open(): void;
}

/**
 * Goes after the edge's answers are set up (request id, headers, access log, error mapping) and
 * right before what the app serves, so a refusal is logged and shaped as any other.
 *
 * @example
 * const gate = readyGate({ exempt: (path) => path === '/healthz', refuse: () => { throw unavailable(); } });
 * app.use(requestId()).use(gate.middleware).use(router.routes());
 * // once the database is migrated:
 * gate.open();
 */
export function readyGate<S extends EdgeState = EdgeState>(options: ReadyGateOptions<S>): ReadyGate<S> {
  const { exempt, refuse } = options;
  let ready = options.ready ?? false;
  return {
    middleware: async (ctx, next) => {
      if (!ready && (exempt === undefined || !exempt(ctx.path))) return refuse(ctx);
      await next();
    },
    get ready() {
      return ready;
    },
    open() {
      ready = true;
    },
  };
}
