// Counters for fixed rate-limit windows, behind one small interface so one gateway process can
// count in memory and several can share Redis (docs/rate-limits.md#several-processes).

/** The state of one bucket after counting a request in it. */
export interface RateLimitHit {
  /** Requests counted in the current window, this one included. */
  count: number;
  /** When the current window ends (epoch ms). */
  resetAt: number;
}

/**
 * Fixed windows aligned to the epoch: with `windowMs` 60,000 a window is one wall-clock minute.
 * `hit` counts one request in `key`'s current window and returns the new count. Fixed windows
 * keep each hit one atomic increment in Redis; their known cost (up to twice the limit across a
 * window boundary) is accepted for per-minute partner quotas.
 */
export interface RateLimitStore {
  hit(key: string, windowMs: number, now: number): Promise<RateLimitHit>;
  /**
   * The same count, answered at once by a store that waits on nothing (in this process): the rate
   * limiter then needs neither a timeout nor a promise per request.
   */
  hitNow?(key: string, windowMs: number, now: number): RateLimitHit;
}

/** The start and end (epoch ms) of the fixed window that contains `now`. */
export function currentWindow(windowMs: number, now: number): { start: number; resetAt: number } {
  const start = now - (now % windowMs);
  return { start, resetAt: start + windowMs };
}

export interface MemoryRateLimitStore extends RateLimitStore {
  /** Buckets held right now (for tests and metrics). */
  size(): number;
}

/**
 * Counters in this process: right for one gateway process and for tests. Buckets whose window
 * has ended are dropped at most once per `pruneEveryMs` (default one minute).
 *
 * @example
 * const store = createMemoryRateLimitStore();
 * await store.hit('partner:7', 60_000, Date.now()); // { count: 1, resetAt: … }
 */
export function createMemoryRateLimitStore(options: { pruneEveryMs?: number } = {}): MemoryRateLimitStore {
  const pruneEveryMs = options.pruneEveryMs ?? 60_000;
  const buckets = new Map<string, { count: number; resetAt: number }>();
  let lastPrune = 0;

  const prune = (now: number): void => {
    if (now - lastPrune < pruneEveryMs) return;
    lastPrune = now;
    for (const [key, bucket] of buckets) {
      if (bucket.resetAt <= now) buckets.delete(key);
    }
  };

  const hitNow = (key: string, windowMs: number, now: number): RateLimitHit => {
    prune(now);
    const { resetAt } = currentWindow(windowMs, now);
    const bucket = buckets.get(key);
    if (bucket === undefined || bucket.resetAt !== resetAt) {
      buckets.set(key, { count: 1, resetAt });
      return { count: 1, resetAt };
    }
    bucket.count += 1;
    return { count: bucket.count, resetAt };
  };
  return {
    hit: (key, windowMs, now) => Promise.resolve(hitNow(key, windowMs, now)),
    hitNow,
    size: () => buckets.size,
  };
}
