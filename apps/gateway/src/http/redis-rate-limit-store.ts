// Rate-limit counters in Redis, shared by every gateway process: one key per bucket and window,
// incremented and given an expiry in one MULTI, so concurrent processes never lose a count.
import type { Redis } from 'ioredis';
import { currentWindow, type RateLimitStore } from './rate-limit-store.js';

export interface RedisRateLimitStoreOptions {
  /**
   * A connected ioredis client. Give it `enableOfflineQueue: false` and a small
   * `maxRetriesPerRequest` so that with Redis down a hit fails fast and the limiter fails open.
   */
  redis: Pick<Redis, 'multi'>;
  /** Prepended to every key, so environments and test runs do not collide. Default `rl:`. */
  prefix?: string;
}

/**
 * Window boundaries come from the caller's clock (`now`), so gateway hosts are expected to keep
 * NTP time; a key lives one window plus a second after its last hit.
 *
 * @example
 * const store = createRedisRateLimitStore({ redis: new Redis(config.redisUrl), prefix: 'pits:rl:' });
 */
export function createRedisRateLimitStore(options: RedisRateLimitStoreOptions): RateLimitStore {
  const { redis } = options;
  const prefix = options.prefix ?? 'rl:';
  return {
    async hit(key, windowMs, now) {
      const { start, resetAt } = currentWindow(windowMs, now);
      const redisKey = `${prefix}${key}:${start}`;
      const replies = await redis.multi().incr(redisKey).pexpire(redisKey, windowMs + 1000).exec();
      const reply = replies?.[0];
      if (reply === undefined) throw new Error('rate-limit MULTI was aborted');
      const [err, count] = reply;
      if (err !== null) throw err;
      if (typeof count !== 'number') throw new Error('rate-limit INCR returned a non-number');
      return { count, resetAt };
    },
  };
}
