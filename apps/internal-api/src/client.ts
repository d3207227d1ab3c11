// The typed client of the internal API, for internal teams and this repository's tests, and the
// source of the published @pits/internal-api-client. It imports the router's type only, so loading
// it pulls in no server code, and it is typed by the router as a client sees it (no server context).
import { type TRPCClient, TRPCClientError, createTRPCClient, httpBatchLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { InternalApiRouter } from './client-router.js';
import type { AppRouter } from './router.js';
import type { RefusalData } from './trpc.js';

export type { AppRouter, InternalApiRouter, RefusalData };
export { TRPCClientError };

/** Every procedure's input, e.g. `InternalApiInputs['partners']['create']`. */
export type InternalApiInputs = inferRouterInputs<InternalApiRouter>;
/** Every procedure's output, e.g. `InternalApiOutputs['apiKeys']['create']['secret']`. */
export type InternalApiOutputs = inferRouterOutputs<InternalApiRouter>;
/** A client of every procedure, as `createInternalClient` returns it. */
export type InternalClient = TRPCClient<InternalApiRouter>;

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
export function createInternalClient(url: string, token: string): InternalClient {
  return createTRPCClient<InternalApiRouter>({
    links: [httpBatchLink({ url: trpcEndpoint(url), headers: () => ({ authorization: `Bearer ${token}` }) })],
  });
}

/** Narrows an unknown error to a refusal of the internal API. */
export function isInternalApiError(error: unknown): error is TRPCClientError<InternalApiRouter> {
  return error instanceof TRPCClientError;
}
