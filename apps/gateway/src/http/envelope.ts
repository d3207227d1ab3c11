// The v1 response shapes (spec "Response envelopes" and "Errors") and the one table that maps an
// error kind to its HTTP status and textual status (docs/errors.md#kinds-and-statuses). Nothing else decides a status.
import type { DomainError, ErrorKind, FieldIssue } from '@pits/domain';

/** Error kind → HTTP status and the envelope's textual `status`. */
export const ERROR_STATUS: Readonly<Record<ErrorKind, { readonly http: number; readonly status: string }>> = {
  INVALID_REQUEST: { http: 400, status: 'bad_request' },
  UNAUTHORIZED: { http: 401, status: 'unauthorized' },
  FORBIDDEN: { http: 403, status: 'forbidden' },
  NOT_FOUND: { http: 404, status: 'not_found' },
  METHOD_NOT_ALLOWED: { http: 405, status: 'method_not_allowed' },
  REQUEST_TIMEOUT: { http: 408, status: 'request_timeout' },
  PAYLOAD_TOO_LARGE: { http: 413, status: 'payload_too_large' },
  UNSUPPORTED_MEDIA_TYPE: { http: 415, status: 'unsupported_media_type' },
  VALIDATION_ERROR: { http: 422, status: 'unprocessable_entity' },
  INVALID_STATE: { http: 422, status: 'unprocessable_entity' },
  INSUFFICIENT_STOCK: { http: 422, status: 'unprocessable_entity' },
  SHELF_LIFE_TOO_SHORT: { http: 422, status: 'unprocessable_entity' },
  IDEMPOTENCY_KEY_REUSED: { http: 422, status: 'unprocessable_entity' },
  STALE_QUANTITY: { http: 409, status: 'conflict' },
  RATE_LIMITED: { http: 429, status: 'too_many_requests' },
  INTERNAL_ERROR: { http: 500, status: 'internal_server_error' },
  SERVICE_UNAVAILABLE: { http: 503, status: 'service_unavailable' },
};

/** Envelope A: adjustments, transfers, inbound detail and receive, stock reads. */
export interface EnvelopeA<T> {
  status: 'ok';
  data: T;
  errors: null;
  request_id: string;
}

/** Envelope B: inbound list, tenants, areas. */
export interface EnvelopeB<T> {
  status: number;
  message: 'Ok';
  data: T;
  errors: null;
  request_id: string;
}

/** The error envelope; `issues` only when more than one input is wrong. */
export interface ErrorEnvelope {
  status: string;
  error: {
    code: ErrorKind;
    message: string;
    details: FieldIssue;
    issues?: FieldIssue[];
  };
  request_id: string;
}

/** The part of a Koa context the envelope writers need. */
export interface EnvelopeTarget {
  status: number;
  body: unknown;
  state: { requestId: string; errorCode?: ErrorKind };
}

/**
 * Responds with envelope A.
 *
 * @example
 * sendEnvelopeA(ctx, { adjustment }, 201);
 */
export function sendEnvelopeA<T>(ctx: EnvelopeTarget, data: T, status = 200): void {
  const body: EnvelopeA<T> = { status: 'ok', data, errors: null, request_id: ctx.state.requestId };
  ctx.status = status;
  ctx.body = body;
}

/**
 * Responds with envelope B; its integer `status` mirrors the HTTP status (200 in the spec).
 *
 * @example
 * sendEnvelopeB(ctx, { areas, pagination });
 */
export function sendEnvelopeB<T>(ctx: EnvelopeTarget, data: T, status = 200): void {
  const body: EnvelopeB<T> = { status, message: 'Ok', data, errors: null, request_id: ctx.state.requestId };
  ctx.status = status;
  ctx.body = body;
}

/**
 * The error envelope of a refusal.
 *
 * @example
 * errorBody(domainError('NOT_FOUND', 'adjustment not found', { field: 'id' }), ctx.state.requestId);
 */
export function errorBody(error: DomainError, requestId: string): ErrorEnvelope {
  const { kind, message, details, issues } = error;
  const body: ErrorEnvelope = {
    status: ERROR_STATUS[kind].status,
    error: { code: kind, message, details: { field: details.field, issue: details.issue } },
    request_id: requestId,
  };
  if (issues !== undefined && issues.length > 0) body.error.issues = issues.map((i) => ({ field: i.field, issue: i.issue }));
  return body;
}

/**
 * Responds with the error envelope and the kind's HTTP status, and leaves the kind on
 * `ctx.state.errorCode` for the access log (which runs outside the error mapper and must not read
 * the body back to learn it).
 */
export function sendError(ctx: EnvelopeTarget, error: DomainError): void {
  ctx.state.errorCode = error.kind;
  ctx.status = ERROR_STATUS[error.kind].http;
  ctx.body = errorBody(error, ctx.state.requestId);
}
