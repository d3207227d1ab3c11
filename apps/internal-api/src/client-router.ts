// The router as a client sees it: every procedure with its input, output and error shape, and none
// of the server's context (database scope, logger, cipher), whose types only the server has. The
// published client (@pits/internal-api-client) bundles these declarations, so they must name
// nothing that another repository cannot install.
import type { TRPCBuiltRouter } from '@trpc/server';
import type { AppRouter } from './router.js';

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

/** Every procedure by router; sub-routers are plain records of procedures at this level. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- only its type is used, by InternalApiRouter
const procedures = spelledOut<AppRouter['_def']['record']>();

/** The root types the client reads (metadata, error shape, transformer), without the context. */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- only its type is used, by InternalApiRouter
const rootTypes = spelledOut<Omit<AppRouter['_def']['_config']['$types'], 'ctx'>>();

/**
 * `AppRouter` without the server's context: what `createTRPCClient` needs, and all it needs.
 *
 * @example
 * const api = createTRPCClient<InternalApiRouter>({ links: [httpBatchLink({ url: 'http://127.0.0.1:4001/trpc' })] });
 */
export type InternalApiRouter = TRPCBuiltRouter<typeof rootTypes & { ctx: object }, typeof procedures>;
