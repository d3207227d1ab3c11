// Public surface of @pits/internal-api: the server factory and its configuration, the router (for
// in-process callers), and the typed client (also on the `./client` subpath, without server code).
export { ConfigError, type InternalApiConfig, loadInternalApiConfig } from './config.js';
export { type InternalApi, type InternalApiDeps, createInternalApi } from './create-internal-api.js';
export { type AppRouter, appRouter, createInternalCaller } from './router.js';
export { type InternalApiContext, type RefusalData, TRPC_CODE_BY_KIND } from './trpc.js';
export { type InternalApiInputs, type InternalApiOutputs, type InternalClient, createInternalClient, isInternalApiError } from './client.js';
