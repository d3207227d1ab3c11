// The typed client of the internal API, for internal teams and this repository's tests. It imports
// the router's type only, so loading it pulls in no server code.
import { TRPCClientError, createTRPCClient, httpBatchLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './router.js';
import type { RefusalData } from './trpc.js';

export type { AppRouter, RefusalData };
export { TRPCClientError };

/** Every procedure's input, e.g. `InternalApiInputs['partners']['create']`. */
export type InternalApiInputs = inferRouterInputs<AppRouter>;
/** Every procedure's output, e.g. `InternalApiOutputs['apiKeys']['create']['secret']`. */
export type InternalApiOutputs = inferRouterOutputs<AppRouter>;

/** The tRPC endpoint of a base URL: `/trpc` is appended unless the URL already ends with it. */
function trpcEndpoint(url: string): string {
  const base = url.replace(/\/+$/, '');
  return base.endsWith('/trpc') ? base : `${base}/trpc`;
}

/**
 * A client with the full types of every procedure. Refusals arrive as `TRPCClientError` whose
 * `data` carries `code`, `httpStatus`, and the domain `kind`, `field` and `issues`.
 *
 * @example
 * const api = createInternalClient('http://127.0.0.1:4001', process.env.INTERNAL_API_TOKEN!);
 * const partner = await api.partners.create.mutate({ name: 'Acme', email: 'dev@acme.example', tier: 'small' });
 * const { secret } = await api.apiKeys.create.mutate({ partnerId: partner.id, environment: 'live' });
 */
export function createInternalClient(url: string, token: string) {
  return createTRPCClient<AppRouter>({
    links: [httpBatchLink({ url: trpcEndpoint(url), headers: () => ({ authorization: `Bearer ${token}` }) })],
  });
}

export type InternalClient = ReturnType<typeof createInternalClient>;

/** Narrows an unknown error to a refusal of the internal API. */
export function isInternalApiError(error: unknown): error is TRPCClientError<AppRouter> {
  return error instanceof TRPCClientError;
}
