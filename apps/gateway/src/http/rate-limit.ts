// Per-partner rate limits (docs/rate-limits.md): the tier's limit over all calls, plus a bucket of its
// own for a few expensive operations. Every authenticated response reports the tightest bucket.
import { AppError, domainError } from '@pits/domain';
import { setHeaders } from '@pits/http-edge';
import { operationName, type GatewayLogger, type GatewayMiddleware, type PartnerTier, type RouteStep, stepMiddleware } from './gateway-state.js';
import type { RateLimitHit, RateLimitStore } from './rate-limit-store.js';

/** Requests per window for each tier. */
export type TierLimits = Readonly<Record<PartnerTier, number>>;

export const DEFAULT_TIER_LIMITS: TierLimits = { small: 1000, medium: 2000, large: 5000 };

/** Operations with a bucket of their own, per partner. */
export const DEFAULT_OPERATION_LIMITS: Readonly<Record<string, number>> = {
  'inbound.list': 200,
  'inbound.detail': 200,
  'inbound.receive': 200,
  'areas.search': 200,
};

export interface RateLimitOptions {
  store: RateLimitStore;
  /** Reports a failing store (throttled to one line per 10 s). */
  logger: GatewayLogger;
  tiers?: TierLimits;
  operations?: Readonly<Record<string, number>>;
  /** Window length; default one minute. */
  windowMs?: number;
  /** Epoch milliseconds; `Date.now` by default. */
  now?: () => number;
  /** A store slower than this counts as failing (fail open). Default 250 ms. */
  storeTimeoutMs?: number;
  /** Called for each request refused 429, with the bucket that refused it: `tier`, or the operation's name (metrics). */
  onRefused?: (limit: string) => void;
}

/** One bucket after counting a request in it. */
export interface BucketState {
  limit: number;
  remaining: number;
  resetAt: number;
  exceeded: boolean;
  label: string;
  /** `tier`, the operation's name, or `anonymous` (metrics). */
  limitName: string;
}

/** A bucket to count a request in: its store key, limit and how a refusal names it. */
export interface WantedBucket {
  key: string;
  limit: number;
  label: string;
  limitName: string;
}

/** The bucket to report: an exceeded one (latest reset first), else the one with least room. */
function tightest(buckets: readonly BucketState[]): BucketState {
  const sorted = [...buckets].sort((a, b) => {
    if (a.exceeded !== b.exceeded) return a.exceeded ? -1 : 1;
    if (a.exceeded) return b.resetAt - a.resetAt;
    return a.remaining - b.remaining || a.limit - b.limit;
  });
  const first = sorted[0];
  if (first === undefined) throw new Error('no rate-limit bucket');
  return first;
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`rate-limit store did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * What counting needs; shared by the partner limits and the anonymous budget (anonymous-limit.ts).
 * Unset: a 60 s window, the process clock, and a store that must answer within 250 ms.
 */
export interface BucketCounterOptions {
  store: RateLimitStore;
  logger: GatewayLogger;
  windowMs?: number | undefined;
  now?: (() => number) | undefined;
  storeTimeoutMs?: number | undefined;
  onRefused?: ((limit: string) => void) | undefined;
}

/** Counting in buckets, reporting the tightest in the headers, and refusing over the limit: the same for every limit. */
export interface BucketCounter {
  readonly windowMs: number;
  now(): number;
  /**
   * Counts one request in each bucket; null when the store failed or was too slow (logged,
   * throttled): the caller lets the request through. At once when the store answers at once (the
   * in-memory store), else a promise.
   */
  count(ctx: GatewayContextLike, wanted: readonly WantedBucket[], at: number): BucketState[] | null | Promise<BucketState[] | null>;
  /** Sets the rate-limit headers of the tightest bucket and returns it. */
  report(ctx: GatewayContextLike, buckets: readonly BucketState[], at: number): BucketState;
  /** Sets `Retry-After` and returns the 429 RATE_LIMITED for `report` (also counted in metrics). */
  refusal(ctx: GatewayContextLike, report: BucketState, at: number): AppError;
}

type GatewayContextLike = Parameters<GatewayMiddleware>[0];

export function bucketCounter(options: BucketCounterOptions): BucketCounter {
  const { store, logger, windowMs = 60_000, now = Date.now, storeTimeoutMs = 250 } = options;
  const windowSeconds = Math.ceil(windowMs / 1000);
  let lastFailureLog = -Infinity;
  let suppressedFailures = 0;
  const secondsToReset = (report: BucketState, at: number) => Math.max(0, Math.ceil((report.resetAt - at) / 1000));

  return {
    windowMs,
    now,
    count(ctx, wanted, at) {
      const states = (hits: readonly (RateLimitHit | undefined)[]): BucketState[] =>
        wanted.map((b, i) => {
          const hit = hits[i] ?? { count: 0, resetAt: at + windowMs };
          return {
            limit: b.limit,
            remaining: Math.max(0, b.limit - hit.count),
            resetAt: hit.resetAt,
            exceeded: hit.count > b.limit,
            label: b.label,
            limitName: b.limitName,
          };
        });
      const failed = (err: unknown): null => {
        if (at - lastFailureLog >= 10_000) {
          logger.warn(
            { err, request_id: ctx.state.requestId, suppressed: suppressedFailures },
            'rate-limit store failed; request allowed without limiting',
          );
          lastFailureLog = at;
          suppressedFailures = 0;
        } else {
          suppressedFailures += 1;
        }
        return null;
      };
      const { hitNow } = store;
      if (hitNow) {
        try {
          return states(wanted.map((b) => hitNow(b.key, windowMs, at)));
        } catch (err) {
          return failed(err);
        }
      }
      return withTimeout(Promise.all(wanted.map((b) => store.hit(b.key, windowMs, at))), storeTimeoutMs).then(states, failed);
    },
    report(ctx, buckets, at) {
      const report = buckets.length === 1 ? buckets[0]! : tightest(buckets);
      // Set before the handler runs: the error mapper keeps headers already set, so a refusal
      // further down (400, 401, 422, 429) reports the limits too.
      setHeaders(ctx, {
        'X-RateLimit-Limit': String(report.limit),
        'X-RateLimit-Remaining': String(report.remaining),
        'X-RateLimit-Reset': String(Math.ceil(report.resetAt / 1000)),
        'RateLimit-Policy':
          buckets.length === 1 ? `${report.limit};w=${windowSeconds}` : [report, ...buckets.filter((b) => b !== report)].map((b) => `${b.limit};w=${windowSeconds}`).join(', '),
        RateLimit: `limit=${report.limit}, remaining=${report.remaining}, reset=${secondsToReset(report, at)}`,
      });
      return report;
    },
    refusal(ctx, report, at) {
      options.onRefused?.(report.limitName);
      const retryAfter = Math.max(1, secondsToReset(report, at));
      ctx.set('Retry-After', String(retryAfter));
      return new AppError(
        domainError('RATE_LIMITED', 'rate limit exceeded', {
          issue: `at most ${report.limit} requests per ${windowSeconds} s for ${report.label}; retry after ${retryAfter} s`,
        }),
      );
    },
  };
}

/**
 * Counts the request in the partner's tier bucket and, for the operations in `operations`, in
 * that operation's bucket; sets `X-RateLimit-Limit/Remaining/Reset` (Unix seconds) of the
 * tightest bucket plus `RateLimit-Policy` and `RateLimit`; over a limit it answers 429
 * RATE_LIMITED with `Retry-After` and the handler is not called.
 *
 * Placement: per route (or `router.use`) right after `authenticate`, because it needs the partner
 * and the operation name: `ctx.state.routeName` (see `nameRoute`), else the name the route was
 * registered under in @koa/router. Requests rejected before it (401, 404, 405) are not counted.
 * If the store fails or is slow, the request goes through without headers and the failure is logged.
 *
 * @example
 * const limit = rateLimit({ store, logger });
 * router.get('inbound.list', '/api/partner/v1/inbound', authenticate(lookup), limit, requireTenant(check), handler);
 */
export function rateLimit(options: RateLimitOptions): GatewayMiddleware {
  return stepMiddleware(rateLimitStep(options));
}

/** The check of `rateLimit` as a route step (what `mountRoutes` runs); it waits only for a store that answers later (Redis). */
export function rateLimitStep(options: RateLimitOptions): RouteStep {
  const tiers = options.tiers ?? DEFAULT_TIER_LIMITS;
  const operations = options.operations ?? DEFAULT_OPERATION_LIMITS;
  const counter = bucketCounter(options);
  const decide = (ctx: GatewayContextLike, buckets: BucketState[] | null, at: number): void => {
    if (buckets === null) return;
    const report = counter.report(ctx, buckets, at);
    if (report.exceeded) throw counter.refusal(ctx, report, at);
  };

  return (ctx) => {
    const partner = ctx.state.partner;
    if (partner === undefined) throw new Error('rateLimit needs authenticate() before it');
    const operation = operationName(ctx);

    const wanted: WantedBucket[] = [{ key: `partner:${partner.partnerId}`, limit: tiers[partner.tier], label: `the ${partner.tier} tier`, limitName: 'tier' }];
    const operationLimit = operation === undefined ? undefined : operations[operation];
    if (operation !== undefined && operationLimit !== undefined) {
      wanted.push({ key: `partner:${partner.partnerId}:op:${operation}`, limit: operationLimit, label: operation, limitName: operation });
    }

    const at = counter.now();
    const counted = counter.count(ctx, wanted, at);
    if (counted instanceof Promise) return counted.then((buckets) => decide(ctx, buckets, at));
    decide(ctx, counted, at);
  };
}
