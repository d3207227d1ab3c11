// Who is calling: the API key from `Authorization` (bare or `Bearer`), resolved to its partner on
// every request, never from a cache: a key revoked through the internal API fails on the very next
// request, in every gateway process (docs/identity-and-consent.md#api-keys). On tenant-scoped routes the same lookup reads
// the partner's installation for the `X-Tenant-Id` tenant, so a request costs one statement for
// both, and the tenant guard decides without asking again.
import { AppError, domainError } from '@pits/domain';
import type { AuthenticationGuard } from './anonymous-limit.js';
import { type AuthenticatedPartner, type GatewayMiddleware, type InstallationState, type RouteStep, stepMiddleware } from './gateway-state.js';

/** The key's partner now, and its installation for `tenantId` when one was named. */
export interface ResolvedKey {
  partner: AuthenticatedPartner;
  installation: InstallationState | null;
}

/** Resolves a raw API key (and the named tenant's installation) now, or null when unknown or revoked. */
export type ResolveApiKey = (secret: string, tenantId: string | null) => Promise<ResolvedKey | null>;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The tenant an `X-Tenant-Id` value names, lower-cased; null when it cannot name one (the tenant guard says why). */
export function tenantIdOf(header: string): string | null {
  const value = header.trim();
  return UUID_PATTERN.test(value) ? value.toLowerCase() : null;
}

const MAX_KEY_LENGTH = 512;
const KEY_PATTERN = /^[\x21-\x7e]+$/;

/** The API key in an `Authorization` value, or why there is none. */
export type ParsedAuthorization = { ok: true; key: string } | { ok: false; issue: string };

/**
 * Accepts `<key>` and `Bearer <key>` (scheme case-insensitive, surrounding spaces ignored).
 *
 * @example
 * parseAuthorization('  bearer pk_test_abc ') // { ok: true, key: 'pk_test_abc' }
 */
export function parseAuthorization(header: string | undefined): ParsedAuthorization {
  const value = (header ?? '').trim();
  if (value === '') return { ok: false, issue: 'the Authorization header with an API key is required' };
  const parts = value.split(/\s+/);
  let key: string | undefined;
  if (parts.length === 1 && !/^bearer$/i.test(value)) key = parts[0];
  else if (parts.length === 2 && /^bearer$/i.test(parts[0] ?? '')) key = parts[1];
  if (key === undefined || key.length > MAX_KEY_LENGTH || !KEY_PATTERN.test(key)) {
    return { ok: false, issue: 'the Authorization header must be "<API key>" or "Bearer <API key>"' };
  }
  return { ok: true, key };
}

function unauthorized(issue: string): AppError {
  return new AppError(domainError('UNAUTHORIZED', 'authentication failed', { field: 'Authorization', issue }));
}

/**
 * Puts the calling partner on `ctx.state.partner` (and, with `tenantScoped`, the partner's
 * installation for the `X-Tenant-Id` tenant on `ctx.state.installation`), or answers 401
 * UNAUTHORIZED on `Authorization` (with `WWW-Authenticate: Bearer`). It runs before the rate
 * limiter, so a revoked key never spends its partner's quota. A failing lookup (database down) is
 * not a 401: it propagates and becomes a 503.
 *
 * With a `guard` (the anonymous budget per address, docs/rate-limits.md#without-a-valid-key), each
 * 401 is counted against the client's address, and an address already over its budget is answered
 * 429 before its key is looked up, unless the key is one recently seen valid.
 *
 * @example
 * router.get('/api/partner/v1/tenants', authenticate((secret, tenant) => resolve(db, secret, tenant)), handler);
 */
export function authenticate(resolveApiKey: ResolveApiKey, options: { tenantScoped?: boolean; guard?: AuthenticationGuard } = {}): GatewayMiddleware {
  return stepMiddleware(authenticationStep(resolveApiKey, options));
}

/** The check of `authenticate` as a route step (what `mountRoutes` runs). */
export function authenticationStep(resolveApiKey: ResolveApiKey, options: { tenantScoped?: boolean; guard?: AuthenticationGuard } = {}): RouteStep {
  const { guard } = options;
  return async (ctx) => {
    const parsed = parseAuthorization(ctx.get('Authorization'));
    guard?.beforeLookup(ctx, parsed.ok ? parsed.key : null);
    if (!parsed.ok) {
      await guard?.failed(ctx, null);
      ctx.set('WWW-Authenticate', 'Bearer');
      throw unauthorized(parsed.issue);
    }
    const tenantId = options.tenantScoped ? tenantIdOf(ctx.get('X-Tenant-Id')) : null;
    const resolved = await resolveApiKey(parsed.key, tenantId);
    if (resolved === null) {
      await guard?.failed(ctx, parsed.key);
      ctx.set('WWW-Authenticate', 'Bearer');
      throw unauthorized('the API key is unknown or has been revoked');
    }
    guard?.succeeded(parsed.key);
    ctx.state.partner = resolved.partner;
    if (tenantId !== null && resolved.installation !== null) ctx.state.installation = { tenantId, state: resolved.installation };
  };
}
