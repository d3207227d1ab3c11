// The probes every HTTP app answers without a key or token: liveness (`/healthz`, the process
// runs) and readiness (`/readyz`, it can serve: 503 with Retry-After while it starts, stops or its
// database is away). How ready is decided and what the bodies say is each app's; the paths, the
// statuses, the Retry-After and the methods are the same everywhere.
import type Koa from 'koa';
import { type EdgeState, setHeaders } from './edge-state.js';

/** Seconds a client should wait before retrying a 503, sent as Retry-After by every 503 of both apps. */
export const RETRY_AFTER_SECONDS = 2;

export const LIVENESS_PATH = '/healthz';
export const READINESS_PATH = '/readyz';
/** Both probes: exempt from the request deadline and the ready gate, logged apart. */
export const PROBE_PATHS: ReadonlySet<string> = new Set([LIVENESS_PATH, READINESS_PATH]);

type ProbeContext<S extends EdgeState> = Koa.ParameterizedContext<S>;

export interface ProbeOptions<S extends EdgeState, Live, Ready> {
  /** Whether the process can serve now (the ready gate open, not stopping, its database answering in time). */
  isReady(): Promise<boolean>;
  /** The liveness body. */
  live: Live;
  /** The readiness body, ready or not. */
  ready(up: boolean): Ready;
  /** What a 503 carries, written as the app writes it on its other 503s: `{ 'Retry-After': '2' }`. */
  unavailableHeaders: Readonly<Record<string, string>>;
  /** Writes an answer in the app's JSON; Koa's (`ctx.status`, `ctx.body` as an object) by default. */
  send?(ctx: ProbeContext<S>, status: number, body: Live | Ready): void;
}

export interface Probes<S extends EdgeState> {
  /** `GET /healthz`: 200 with the liveness body while the process runs. */
  liveness(ctx: ProbeContext<S>): void;
  /** `GET /readyz`: 200 when ready, else 503 with the unavailable headers. */
  readiness(ctx: ProbeContext<S>): Promise<void>;
  /**
   * Answers either probe by its path, for an app without a router (other paths are left to the
   * rest of the chain): GET and HEAD only, any other method gets `allow: GET, HEAD` and is
   * `refuseMethod`'s to answer.
   */
  answer(ctx: ProbeContext<S>, refuseMethod: (ctx: ProbeContext<S>) => void): Promise<void>;
}

function sendByKoa(ctx: Pick<Koa.Context, 'status' | 'body'>, status: number, body: unknown): void {
  ctx.status = status;
  ctx.body = body;
}

const ALLOW = { allow: 'GET, HEAD' } as const;

/**
 * @example
 * const probes = probeAnswers({ isReady, live: { status: 'ok' }, ready: (up) => ({ status: up ? 'ok' : 'unavailable' }), unavailableHeaders: { 'Retry-After': '2' } });
 * router.get(LIVENESS_PATH, probes.liveness);
 * router.get(READINESS_PATH, probes.readiness);
 */
export function probeAnswers<S extends EdgeState, Live, Ready>(options: ProbeOptions<S, Live, Ready>): Probes<S> {
  const { isReady, live, ready, unavailableHeaders } = options;
  const send = options.send ?? sendByKoa;
  const liveness = (ctx: ProbeContext<S>) => send(ctx, 200, live);
  const readiness = async (ctx: ProbeContext<S>) => {
    const up = await isReady();
    // Not ready is temporary (starting, stopping, the database away): say when to ask again, as every 503 does.
    if (!up) setHeaders(ctx, unavailableHeaders);
    send(ctx, up ? 200 : 503, ready(up));
  };
  return {
    liveness,
    readiness,
    async answer(ctx, refuseMethod) {
      if (ctx.method !== 'GET' && ctx.method !== 'HEAD') {
        setHeaders(ctx, ALLOW);
        return refuseMethod(ctx);
      }
      if (ctx.path === LIVENESS_PATH) return liveness(ctx);
      if (ctx.path === READINESS_PATH) return readiness(ctx);
    },
  };
}
