// Who is calling: the API key from `Authorization` (bare or `Bearer`), resolved to a partner
// through an injected lookup, with a short-lived cache in front so hot keys do not hit the
// database on every call while a revoked key still stops working within `ttlMs`.
import { createHash } from 'node:crypto';
import { AppError, domainError } from '@pits/domain';
import type { AuthenticatedPartner, GatewayMiddleware } from './gateway-state.js';

/** Resolves a raw API key to its partner, or null when unknown or revoked. */
export type LookupApiKey = (secret: string) => Promise<AuthenticatedPartner | null>;

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
 * Puts the calling partner on `ctx.state.partner`, or answers 401 UNAUTHORIZED on
 * `Authorization` (with `WWW-Authenticate: Bearer`). A failing lookup (database down) is not a
 * 401: it propagates and becomes a 500.
 *
 * @example
 * const lookup = createCachedKeyLookup(findPartnerByApiKey(db));
 * router.use(authenticate(lookup));
 */
export function authenticate(lookupApiKey: LookupApiKey): GatewayMiddleware {
  return async (ctx, next) => {
    const parsed = parseAuthorization(ctx.get('Authorization'));
    if (!parsed.ok) {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw unauthorized(parsed.issue);
    }
    const partner = await lookupApiKey(parsed.key);
    if (partner === null) {
      ctx.set('WWW-Authenticate', 'Bearer');
      throw unauthorized('the API key is unknown or has been revoked');
    }
    ctx.state.partner = partner;
    await next();
  };
}

export interface CachedKeyLookupOptions {
  /** How long a found key is trusted without asking again; a revoked key fails within this. Default 2000 ms. */
  ttlMs?: number;
  /** How long "no such key" is remembered; default 0 (not cached), so a new key works at once. */
  negativeTtlMs?: number;
  /** Most entries kept; the oldest go first. Default 10,000. */
  maxEntries?: number;
  /** Clock in epoch milliseconds; `Date.now` by default. */
  now?: () => number;
}

interface CacheEntry {
  partner: AuthenticatedPartner | null;
  expiresAt: number;
}

/**
 * Wraps a key lookup with a small in-process cache keyed by the SHA-256 of the key (the raw key
 * is never kept), and shares one lookup among concurrent requests with the same key.
 *
 * @example
 * const lookup = createCachedKeyLookup(lookupInDb, { ttlMs: 2000 });
 */
export function createCachedKeyLookup(lookup: LookupApiKey, options: CachedKeyLookupOptions = {}): LookupApiKey {
  const ttlMs = options.ttlMs ?? 2000;
  const negativeTtlMs = options.negativeTtlMs ?? 0;
  const maxEntries = options.maxEntries ?? 10_000;
  const now = options.now ?? Date.now;
  const entries = new Map<string, CacheEntry>();
  const inFlight = new Map<string, Promise<AuthenticatedPartner | null>>();

  const remember = (digest: string, partner: AuthenticatedPartner | null, at: number): void => {
    const ttl = partner === null ? negativeTtlMs : ttlMs;
    if (ttl <= 0) return;
    entries.delete(digest);
    entries.set(digest, { partner, expiresAt: at + ttl });
    while (entries.size > maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done === true) break;
      entries.delete(oldest.value);
    }
  };

  return async (secret) => {
    const digest = createHash('sha256').update(secret).digest('hex');
    const cached = entries.get(digest);
    if (cached !== undefined) {
      if (cached.expiresAt > now()) return cached.partner;
      entries.delete(digest);
    }
    const pending = inFlight.get(digest);
    if (pending !== undefined) return pending;
    const started = now();
    const promise = lookup(secret).then(
      (partner) => {
        inFlight.delete(digest);
        remember(digest, partner, started);
        return partner;
      },
      (err: unknown) => {
        inFlight.delete(digest);
        throw err;
      },
    );
    inFlight.set(digest, promise);
    return promise;
  };
}
