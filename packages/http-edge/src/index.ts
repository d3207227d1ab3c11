// Public surface of @pits/http-edge: the Koa middleware both HTTP apps put before their own
// handlers. Each app mounts it in this order (apps/gateway/src/create-gateway.ts,
// apps/internal-api/src/create-internal-api.ts), with its own access log and error shapes between:
//
//   requestId() → securityHeaders() → the app's access log (and, in the gateway, its error mapper
//   and requestDeadline()) → readyGate(…).middleware → the app's routes or procedures
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
export { LIVENESS_PATH, PROBE_PATHS, type ProbeOptions, type Probes, READINESS_PATH, probeAnswers } from './probes.js';
