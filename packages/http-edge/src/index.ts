// Public surface of @pits/http-edge: the Koa middleware and answers both HTTP apps put before their
// own handlers, each app supplying only what is its own (its route and caller for the access log,
// its probe bodies, its error shapes). Each app mounts them in this order
// (apps/gateway/src/create-gateway.ts, apps/internal-api/src/create-internal-api.ts):
//
//   gateway:      requestId() → securityHeaders() → accessLog(…) → its error mapper → requestDeadline()
//                 → readyGate(…).middleware → its router, probeAnswers(…) liveness and readiness as two routes
//   internal API: requestId() → securityHeaders() → requestLog(…) started per request (a line per
//                 procedure call) → probeAnswers(…).answer → its 404 outside /trpc
//                 → readyGate(…).middleware → tRPC
//
// The probes are exempt from the deadline and the ready gate (PROBE_PATHS) or answered before them.
export { type EdgeMiddleware, type EdgeState, setHeaders } from './edge-state.js';
export { requestId, type RequestIdOptions } from './request-id.js';
export { securityHeaders, type SecurityHeadersOptions } from './security-headers.js';
export {
  type AccessLogLevel,
  type AccessLogMiddlewareOptions,
  type AccessLogOptions,
  type LogLineWriter,
  type LoggedRequest,
  type RequestLog,
  type RequestOutcome,
  type RequestTiming,
  accessLog,
  requestLog,
} from './access-log.js';
export { requestDeadline, type RequestDeadlineOptions } from './request-deadline.js';
export { type ReadyGate, type ReadyGateOptions, readyGate } from './ready-gate.js';
export { LIVENESS_PATH, PROBE_PATHS, RETRY_AFTER_SECONDS, type ProbeOptions, type Probes, READINESS_PATH, probeAnswers } from './probes.js';
