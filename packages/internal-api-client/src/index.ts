// @pits/internal-api-client: the internal API's typed client for other repositories. It is the
// client this monorepo uses (@pits/internal-api/client), bundled with the declarations it needs, so
// installing it needs @trpc/client and @trpc/server only.
export {
  type InternalApiInputs,
  type InternalApiOutputs,
  type InternalApiRouter,
  type InternalClient,
  type RefusalData,
  TRPCClientError,
  createInternalClient,
  isInternalApiError,
} from '@pits/internal-api/client';
