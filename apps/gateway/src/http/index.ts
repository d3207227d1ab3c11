// The HTTP middleware of the partner gateway, in the order create-gateway.ts mounts it (requestId,
// securityHeaders, requestDeadline, readyGate and the probes are the edge both HTTP apps share,
// @pits/http-edge; accessLog is the edge's, told the gateway's route, operation, partner, tenant and
// error code; the rest is here):
//
//   app:        requestId() → securityHeaders({ publicPages }) → accessLog({ logger, metrics }) → errorMapper({ logger })
//               → requestDeadline({ timeoutMs }) → readyGate(…).middleware
//               → router.routes() → methodNotAllowed(router)
//   The access log sits outside the error mapper, so it logs the status (and error code) of the
//   envelope every thrown refusal became; the deadline and the ready gate sit inside it, so their
//   503s are envelopes too. The probes (/healthz, /readyz: the edge's probeAnswers, with the
//   gateway's bodies) are two routes of the router (routes/public-routes.ts), exempt from the
//   deadline and the gate.
//   each partner route, one middleware running its checks as steps (mountRoutes, runSteps):
//               nameStep('inbound.list')
//               → authenticationStep(resolveApiKey, { tenantScoped, guard })   (key and installation, every request;
//                 the guard spends the address's anonymous budget on a 401)
//               → rateLimitStep({ store, logger })
//               → jsonBodyStep()                     (POST/PUT/PATCH)
//               → tenantStep                         (tenant-scoped endpoints)
//               → idempotency({ store, logger })     (POST/PUT/PATCH; the rest runs inside its claim)
//               → paramsStep (routes with :params) → validateBodyStep(schema) / validateQueryStep(schema)
//               → handler: sendEnvelopeA / sendEnvelopeB, or throw AppError
//   Each step has a middleware form (authenticate(), rateLimit(), …: the step, then next) for a
//   router built by hand.
//
// Authentication is a route's first check, so unauthenticated callers get 401 before any body is
// read. 404 and 405 come from methodNotAllowed once the router found no route for the path and
// method, so no route check runs for them (they reveal only the public route table); they pass the
// deadline and the ready gate first, so a gateway not ready yet answers 503 even for an unknown path.
export {
  type AuthenticatedPartner,
  type GatewayAppMiddleware,
  type GatewayContext,
  type GatewayLogger,
  type GatewayMiddleware,
  type GatewayState,
  type IdempotencyCompletion,
  type InstallationState,
  type NoExtraState,
  type PartnerTier,
  type RouteStep,
  matchedRoutePattern,
  nameRoute,
  nameStep,
  operationName,
  runSteps,
  stepMiddleware,
} from './gateway-state.js';
export {
  ERROR_STATUS,
  errorBody,
  sendEnvelopeA,
  sendEnvelopeB,
  sendError,
  type EnvelopeA,
  type EnvelopeB,
  type EnvelopeTarget,
  type ErrorEnvelope,
} from './envelope.js';
export { errorMapper, toDomainError, type ErrorMapperOptions } from './error-mapper.js';
export { methodNotAllowed, type AllowedMethodsSource } from './method-not-allowed.js';
export { accessLog, type AccessLogOptions } from './access-log.js';
export { DEFAULT_BODY_LIMIT_BYTES, DEFAULT_MAX_ITEMS, isJsonContentType, jsonBody, jsonBodyStep, type JsonBodyOptions } from './body-parser.js';
export { authenticate, authenticationStep, parseAuthorization, tenantIdOf, type ParsedAuthorization, type ResolveApiKey, type ResolvedKey } from './authenticate.js';
export { requireTenant, tenantStep } from './tenant-guard.js';
export { NOT_UTF8_ISSUE, paramsStep, validateBody, validateBodyStep, validateParams, validateQuery, validateQueryStep, type ValidatedBody, type ValidatedQuery } from './validate.js';
export {
  createMemoryRateLimitStore,
  currentWindow,
  type MemoryRateLimitStore,
  type RateLimitHit,
  type RateLimitStore,
} from './rate-limit-store.js';
export { createRedisRateLimitStore, type RedisRateLimitStoreOptions } from './redis-rate-limit-store.js';
export {
  DEFAULT_OPERATION_LIMITS,
  DEFAULT_TIER_LIMITS,
  rateLimit,
  rateLimitStep,
  type RateLimitOptions,
  type TierLimits,
} from './rate-limit.js';
export {
  DEFAULT_ANONYMOUS_LIMIT,
  anonymousLimit,
  clientAddressKey,
  type AnonymousLimit,
  type AnonymousLimitOptions,
  type AuthenticationGuard,
} from './anonymous-limit.js';
export {
  canonicalJson,
  createMemoryIdempotencyStore,
  IDEMPOTENCY_TTL_MS,
  idempotency,
  requestFingerprint,
  type IdempotencyBegin,
  type IdempotencyOptions,
  type IdempotencyStore,
  type MemoryIdempotencyStoreOptions,
} from './idempotency.js';
