// The router as a client sees it: every procedure with its input, output and error shape, and none
// of the server's context (database scope, logger, cipher), whose types only the server has. The
// published client (@pits/internal-api-client) bundles these declarations, so they must name
// nothing that another repository cannot install. Built from tRPC's exported types only: the
// router's own properties (its procedures and sub-routers), `inferTRPCClientTypes`, `AnyRouter`
// and `TRPCBuiltRouter`.
import type { AnyTRPCRouter, TRPCBuiltRouter, inferTRPCClientTypes } from '@trpc/server';
import type { AppRouter } from './router.js';
import type { ProcedureMeta } from './trpc.js';

/**
 * Copies a type member by member. Declaration emit writes out the members of an inferred copy
 * where it would otherwise name the original (`typeof appRouter`, which drags in the server's
 * context), so `client-router.d.ts` holds the procedures themselves. Only its type is ever used.
 * Routers nested more deeply than today's may name the context again: the package build then
 * fails, naming the server packages its declarations would need.
 */
function spelledOut<T>(): { [K in keyof T]: T[K] } {
  return undefined as never;
}

/**
 * Every procedure by router: a built router is its procedures and sub-routers (as records of
 * procedures) plus what every router has (`AnyTRPCRouter`'s members), which is left out.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- only its type is used, by InternalApiRouter
const procedures = spelledOut<Omit<AppRouter, keyof AnyTRPCRouter>>();

/** The root types the client reads: the error shape and the transformer. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- only its type is used, by InternalApiRouter
const clientTypes = spelledOut<inferTRPCClientTypes<AppRouter>>();

/**
 * `AppRouter` without the server's context: what `createTRPCClient` needs, and all it needs.
 *
 * @example
 * const api = createTRPCClient<InternalApiRouter>({ links: [httpBatchLink({ url: 'http://127.0.0.1:4001/trpc' })] });
 */
export type InternalApiRouter = TRPCBuiltRouter<typeof clientTypes & { ctx: object; meta: ProcedureMeta }, typeof procedures>;
