// The contract's error envelope (docs/errors.md#error-envelope), checked exactly: `{status, error: {code, message,
// details: {field, issue}}, request_id}`, with `error.issues` only when several inputs are wrong.
import { expect } from 'vitest';
import type { GatewayResponse } from './gateway-response.js';

/** Error code → HTTP status and textual status, as the decisions' table has them. */
export const ERROR_TABLE = {
  INVALID_REQUEST: [400, 'bad_request'],
  UNAUTHORIZED: [401, 'unauthorized'],
  FORBIDDEN: [403, 'forbidden'],
  NOT_FOUND: [404, 'not_found'],
  METHOD_NOT_ALLOWED: [405, 'method_not_allowed'],
  REQUEST_TIMEOUT: [408, 'request_timeout'],
  PAYLOAD_TOO_LARGE: [413, 'payload_too_large'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'unsupported_media_type'],
  VALIDATION_ERROR: [422, 'unprocessable_entity'],
  INVALID_STATE: [422, 'unprocessable_entity'],
  INSUFFICIENT_STOCK: [422, 'unprocessable_entity'],
  IDEMPOTENCY_KEY_REUSED: [422, 'unprocessable_entity'],
  STALE_QUANTITY: [409, 'conflict'],
  RATE_LIMITED: [429, 'too_many_requests'],
  INTERNAL_ERROR: [500, 'internal_server_error'],
  SERVICE_UNAVAILABLE: [503, 'service_unavailable'],
} as const;

export type ErrorCode = keyof typeof ERROR_TABLE;

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * Asserts that `res` is the error `code` (its HTTP status and textual status from the table),
 * optionally on `field` (`details.field`).
 *
 * @example
 * expectError(await gw.get('/api/partner/v1/tenants/locations', { key }), 'INVALID_REQUEST', 'X-Tenant-Id');
 */
export function expectError(res: GatewayResponse, code: ErrorCode, field?: string): void {
  const [http, status] = ERROR_TABLE[code];
  const where = `${res.method} ${res.path} → ${res.status} ${res.text.slice(0, 400)}`;
  expect(res.status, where).toBe(http);
  const body = res.body;
  const extra = Object.keys(body).filter((k) => !['status', 'error', 'request_id'].includes(k));
  expect(extra, `${where}: top-level keys`).toEqual([]);
  expect(body.status, where).toBe(status);
  expect(body.request_id, where).toMatch(UUID_V4);
  expect(res.headers['x-request-id'], where).toBe(body.request_id);
  expect(body.error.code, where).toBe(code);
  expect(body.error.message, where).toBeTypeOf('string');
  expect(body.error.message.length, where).toBeGreaterThan(0);
  expect(Object.keys(body.error).filter((k) => !['code', 'message', 'details', 'issues'].includes(k)), `${where}: error keys`).toEqual([]);
  expect(Object.keys(body.error.details).sort(), `${where}: details keys`).toEqual(['field', 'issue']);
  expect(body.error.details.field, where).toBeTypeOf('string');
  expect(body.error.details.issue, where).toBeTypeOf('string');
  if (field !== undefined) expect(body.error.details.field, `${where}: details.field`).toBe(field);
  if (body.error.issues !== undefined) {
    expect(body.error.issues.length, `${where}: issues only when several inputs are wrong`).toBeGreaterThan(1);
    expect(body.error.issues[0], `${where}: details is the first issue`).toEqual(body.error.details);
  }
}
