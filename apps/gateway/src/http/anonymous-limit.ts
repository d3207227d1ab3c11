// The anonymous budget per client address (docs/rate-limits.md#without-a-valid-key): requests that
// fail authentication and requests to the public endpoints count against the address they come
// from, in the same store as the partners' limits, with the same headers and 429. A valid key is
// never counted here, and an address over its budget is refused before any key is looked up.
import { hash as digest } from 'node:crypto';
import { parseIpv6 } from '@pits/domain';
import type { GatewayContext, GatewayLogger, GatewayMiddleware } from './gateway-state.js';
import { type BucketCounter, type BucketState, bucketCounter } from './rate-limit.js';
import type { RateLimitStore } from './rate-limit-store.js';

/** Requests per window per address by default: far above what a person browsing /docs sends. */
export const DEFAULT_ANONYMOUS_LIMIT = 300;

export interface AnonymousLimitOptions {
  store: RateLimitStore;
  logger: GatewayLogger;
  /** Requests per window per address. */
  limit?: number;
  windowMs?: number;
  now?: () => number;
  storeTimeoutMs?: number;
  onRefused?: (limit: string) => void;
  /** Keys remembered as recently valid, per process (default 10,000; the least recently used goes first). */
  validKeys?: number;
  /** How long a key stays remembered after its last successful request (default one hour). */
  validKeyTtlMs?: number;
}

/** What `authenticate` asks of the anonymous budget around its key lookup. */
export interface AuthenticationGuard {
  /**
   * Before the lookup: throws 429 when this address is already over its budget, unless `key` is
   * one this process has recently seen valid (the partner keeps being served; the lookup still decides).
   */
  beforeLookup(ctx: GatewayContext, key: string | null): void;
  /** After a 401: counts it against the address and sets the headers; throws 429 when that put the address over. */
  failed(ctx: GatewayContext, key: string | null): Promise<void>;
  /** After a successful lookup: remembers the key as valid. Nothing is counted. */
  succeeded(key: string): void;
}

export interface AnonymousLimit {
  readonly guard: AuthenticationGuard;
  /** For the public routes: counts every request against its address (429 over the budget). */
  readonly publicRoutes: GatewayMiddleware;
}

/**
 * The address a budget is kept for: the socket's remote address (the gateway honours no
 * X-Forwarded-For). IPv4-mapped IPv6 addresses count as their IPv4 address, and IPv6 addresses by
 * their /64, the block one host or subscriber usually gets, so an attacker cannot step through its
 * own block to reset the budget.
 *
 * @example
 * clientAddressKey('::ffff:127.0.0.1') // '127.0.0.1'
 * clientAddressKey('2001:db8:1:2:3:4:5:6') // '2001:db8:1:2::/64'
 */
export function clientAddressKey(address: string | undefined): string {
  if (address === undefined || address === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1]!;
  const value = parseIpv6(address.split('%')[0]!);
  if (value === null) return address;
  const block = value >> 64n;
  return `${[48n, 32n, 16n, 0n].map((shift) => ((block >> shift) & 0xffffn).toString(16)).join(':')}::/64`;
}

/** How often a key seen valid again moves to the young end of the list and gets its full time back. */
const REFRESH_MS = 60_000;

const hashKey = (key: string): string => digest('sha256', key, 'base64url');

/**
 * @example
 * const anonymous = anonymousLimit({ store, logger, limit: 300 });
 * router.get('/docs', anonymous.publicRoutes, handler);
 * router.get('/api/partner/v1/tenants', authenticate(lookup, { guard: anonymous.guard }), limit, handler);
 */
export function anonymousLimit(options: AnonymousLimitOptions): AnonymousLimit {
  const limit = options.limit ?? DEFAULT_ANONYMOUS_LIMIT;
  const counter: BucketCounter = bucketCounter(options);
  const maxValidKeys = options.validKeys ?? 10_000;
  const validKeyTtlMs = options.validKeyTtlMs ?? 3_600_000;
  const refreshMs = Math.min(REFRESH_MS, validKeyTtlMs / 10);
  /** Addresses this process has seen over their budget, until the window's end: refused without asking the store. */
  const over = new Map<string, number>();
  /** Hashes of keys that recently authenticated, with when they are forgotten; oldest use first. */
  const valid = new Map<string, number>();

  const addressOf = (ctx: GatewayContext): string => clientAddressKey(ctx.req.socket.remoteAddress);

  const overUntil = (address: string, at: number): number | undefined => {
    const resetAt = over.get(address);
    if (resetAt === undefined) return undefined;
    if (resetAt > at) return resetAt;
    over.delete(address);
    return undefined;
  };

  const markOver = (address: string, resetAt: number, at: number): void => {
    if (over.size >= 10_000) for (const [a, until] of over) if (until <= at) over.delete(a);
    over.set(address, resetAt);
  };

  const refuseKnownOver = (ctx: GatewayContext, resetAt: number, at: number): Error => {
    const state: BucketState = { limit, remaining: 0, resetAt, exceeded: true, label: 'requests without a valid API key from one address', limitName: 'anonymous' };
    counter.report(ctx, [state], at);
    return counter.refusal(ctx, state, at);
  };

  /** Counts one request against the address; throws 429 when it is over. */
  const spend = async (ctx: GatewayContext, address: string, at: number): Promise<void> => {
    const buckets = await counter.count(
      ctx,
      [{ key: `anon:${address}`, limit, label: 'requests without a valid API key from one address', limitName: 'anonymous' }],
      at,
    );
    if (buckets === null) return; // the store failed: fail open, as the partner limits do
    const report = counter.report(ctx, buckets, at);
    if (report.exceeded) {
      markOver(address, report.resetAt, at);
      throw counter.refusal(ctx, report, at);
    }
  };

  const isRecentlyValid = (key: string, at: number): boolean => {
    const hash = hashKey(key);
    const until = valid.get(hash);
    if (until === undefined) return false;
    if (until > at) return true;
    valid.delete(hash);
    return false;
  };

  const guard: AuthenticationGuard = {
    beforeLookup(ctx, key) {
      // No address is over its budget (the usual case): nothing to look up.
      if (over.size === 0) return;
      const at = counter.now();
      const resetAt = overUntil(addressOf(ctx), at);
      if (resetAt === undefined) return;
      if (key !== null && isRecentlyValid(key, at)) return;
      throw refuseKnownOver(ctx, resetAt, at);
    },
    async failed(ctx, key) {
      // A key that stopped working (revoked) is no longer let past a refusing address.
      if (key !== null) valid.delete(hashKey(key));
      await spend(ctx, addressOf(ctx), counter.now());
    },
    succeeded(key) {
      const hash = hashKey(key);
      const at = counter.now();
      // Seen valid within the last minute (a tenth of its time, if shorter): its place and time are fresh enough.
      if ((valid.get(hash) ?? 0) > at + validKeyTtlMs - refreshMs) return;
      valid.delete(hash);
      if (valid.size >= maxValidKeys) {
        const oldest = valid.keys().next();
        if (!oldest.done) valid.delete(oldest.value);
      }
      valid.set(hash, at + validKeyTtlMs);
    },
  };

  const publicRoutes: GatewayMiddleware = async (ctx, next) => {
    const address = addressOf(ctx);
    const at = counter.now();
    const resetAt = overUntil(address, at);
    if (resetAt !== undefined) throw refuseKnownOver(ctx, resetAt, at);
    await spend(ctx, address, at);
    await next();
  };

  return { guard, publicRoutes };
}
