// One example refusal per error kind a route can answer, for the reference. Validation errors are
// not written by hand: the route's own body or query schema refuses a broken copy of the route's
// example, through the same contract messages the gateway answers with, so the example says what
// the server would say. Every other kind is the gateway's wording for it on that route.
import { parseWith } from '@pits/contract';
import { type DomainError, type ErrorKind, checkShelfLife, domainError, lotLineFields, shelfLifeError } from '@pits/domain';
import type { Route } from '../routes/route-spec.js';

/** What a refusal example needs to know about its route. */
export type RouteView = Pick<Route, 'name' | 'path' | 'tag' | 'tenantScoped' | 'body' | 'example' | 'query' | 'queryExample'>;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The first refusal of the route's schemas on its own example with one input broken: a body
 * field left out, else a query value out of range; undefined when no such change is refused.
 */
function schemaRefusal(route: RouteView): DomainError | undefined {
  if (route.body && isRecord(route.example)) {
    for (const key of Object.keys(route.example)) {
      const parsed = parseWith(route.body, { ...route.example, [key]: undefined });
      if (!parsed.ok) return parsed.error;
    }
  }
  if (route.query && isRecord(route.queryExample)) {
    for (const key of Object.keys(route.queryExample)) {
      const parsed = parseWith(route.query, { ...route.queryExample, [key]: '-1' });
      if (!parsed.ok) return parsed.error;
    }
  }
  return undefined;
}

/** The path parameter the route names its record by (`id`), if it has one. */
const pathParameter = (route: RouteView) => /:([A-Za-z_]+)/.exec(route.path)?.[1];

/** What a route's NOT_FOUND is about, by its tag; a tag not listed reads "record". */
const RECORD_NAMES: Record<string, { noun: string; id: string }> = {
  Adjustments: { noun: 'adjustment', id: 'ADJ-20261122-000999' },
  Transfers: { noun: 'transfer', id: 'TRF-20261122-000999' },
  Inbound: { noun: 'inbound shipment', id: '999' },
  Webhooks: { noun: 'webhook endpoint', id: '999' },
};

/** A state change by the last part of its route name: the state it was refused in, the one it needs, and what it does. */
const STEPS: Record<string, { was: string; needs: string; done: string }> = {
  approve: { was: 'approved', needs: 'pending', done: 'approved' },
  reject: { was: 'approved', needs: 'pending', done: 'rejected' },
  ship: { was: 'pending', needs: 'approved', done: 'shipped' },
  receive: { was: 'approved', needs: 'in_transit', done: 'received' },
};

function notFound(route: RouteView): DomainError {
  if (route.tag === 'Tenants') return domainError('NOT_FOUND', 'tenant 0b6f1c52-3a5e-4d8b-9a51-2f0c7e9d4a11 is not installed for this partner', { field: 'tenant_id' });
  if (route.tag === 'Areas') return domainError('NOT_FOUND', 'area 31.73.01.9999 does not exist', { field: 'subdistrict_code' });
  const { noun, id } = RECORD_NAMES[route.tag] ?? { noun: 'record', id: '999' };
  const what = route.path.includes('/deliveries/') ? 'delivery' : noun;
  return domainError('NOT_FOUND', `${what} ${id} does not exist`, { field: pathParameter(route) ?? 'id' });
}

function validation(route: RouteView): DomainError {
  const refused = schemaRefusal(route);
  if (refused !== undefined) return refused;
  // A route whose only input is its path: the text rule every path parameter is held to.
  const field = pathParameter(route) ?? '';
  return domainError('VALIDATION_ERROR', `${field} must not contain the NUL character`, { field, issue: 'must not contain the NUL character' });
}

function invalidRequest(route: RouteView): DomainError {
  if (route.tenantScoped) {
    return domainError('INVALID_REQUEST', 'the X-Tenant-Id header is required', { field: 'X-Tenant-Id', issue: 'the X-Tenant-Id header is required for this endpoint' });
  }
  return domainError('INVALID_REQUEST', 'the request body is not valid JSON');
}

/** Each kind's refusal on a route, worded as the gateway words it. */
const EXAMPLES: Record<ErrorKind, (route: RouteView) => DomainError> = {
  INVALID_REQUEST: invalidRequest,
  UNAUTHORIZED: () => domainError('UNAUTHORIZED', 'authentication failed', { field: 'Authorization', issue: 'the API key is unknown or revoked' }),
  FORBIDDEN: (route) =>
    route.tenantScoped
      ? domainError('FORBIDDEN', 'the tenant is not authorized for this partner', { field: 'X-Tenant-Id', issue: 'unknown tenant, or not installed for this partner' })
      : domainError('FORBIDDEN', 'the tenant has not granted this partner access', { field: 'tenant_id' }),
  NOT_FOUND: notFound,
  METHOD_NOT_ALLOWED: () => domainError('METHOD_NOT_ALLOWED', 'method PUT is not allowed on this path'),
  REQUEST_TIMEOUT: () =>
    domainError('REQUEST_TIMEOUT', 'the request did not arrive in time', { issue: 'the request body was not received within 10000 ms; send it again' }),
  UNSUPPORTED_MEDIA_TYPE: () =>
    domainError('UNSUPPORTED_MEDIA_TYPE', 'the request body must be JSON', { field: 'Content-Type', issue: 'text/plain is not accepted; send application/json (UTF-8), or no Content-Type' }),
  PAYLOAD_TOO_LARGE: () => domainError('PAYLOAD_TOO_LARGE', 'too many items in one request', { field: 'items', issue: 'must have at most 500 items' }),
  VALIDATION_ERROR: validation,
  INVALID_STATE: (route) => {
    if (route.path.includes('/deliveries/')) return domainError('INVALID_STATE', 'delivery 5 is still pending', { field: 'id' });
    if (route.tag === 'Inbound') return domainError('INVALID_STATE', 'inbound shipment is received; it cannot be received', { field: 'status' });
    const noun = RECORD_NAMES[route.tag]?.noun ?? 'record';
    const step = STEPS[route.name.split('.').pop() ?? ''] ?? { was: 'approved', needs: 'pending', done: 'changed' };
    return domainError('INVALID_STATE', `${noun} is ${step.was}; only a ${step.needs} ${noun} can be ${step.done}`, { field: 'status' });
  },
  INSUFFICIENT_STOCK: () => {
    const message = 'insufficient stock of product 1 at location 1: 120 good (20 reserved), 150 needed';
    return domainError('INSUFFICIENT_STOCK', message, { field: 'items[0].quantity', issue: message });
  },
  // The domain's own refusal of a lot received 12 days before its expiry, for a product that needs 30.
  SHELF_LIFE_TOO_SHORT: () => shelfLifeError(checkShelfLife({ expiryDate: '2026-12-04' }, 30, '2026-11-22', lotLineFields('items[0]').expiryDate)!),
  STALE_QUANTITY: () =>
    domainError('STALE_QUANTITY', 'the stock changed since it was read: 1 line no longer matches; read again and recount', {
      field: 'items[0].expected',
      issue: 'is 340 but the current quantity is 335',
      issues: [{ field: 'items[0].expected', issue: 'is 340 but the current quantity is 335' }],
    }),
  IDEMPOTENCY_KEY_REUSED: () =>
    domainError('IDEMPOTENCY_KEY_REUSED', 'the Idempotency-Key was already used for another request', {
      field: 'Idempotency-Key',
      issue: 'this key was first used with a different request body',
    }),
  RATE_LIMITED: () => domainError('RATE_LIMITED', 'rate limit exceeded', { issue: 'at most 1000 requests per 60 s for the partner; retry after 17 s' }),
  INTERNAL_ERROR: () => domainError('INTERNAL_ERROR', 'an unexpected error occurred', { issue: 'the request could not be completed; retry later or quote the request_id to support' }),
  SERVICE_UNAVAILABLE: () =>
    domainError('SERVICE_UNAVAILABLE', 'the service is temporarily unavailable', { issue: 'the database did not answer in time; nothing was changed, retry after the Retry-After delay' }),
};

/**
 * The example refusal of `kind` on `route`.
 *
 * @example errorExample('VALIDATION_ERROR', route).details // { field: 'location_id', issue: 'is required' }
 */
export function errorExample(kind: ErrorKind, route: RouteView): DomainError {
  return EXAMPLES[kind](route);
}
