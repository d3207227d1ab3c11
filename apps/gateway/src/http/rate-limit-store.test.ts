import { describe, expect, it } from 'vitest';
import { createMemoryRateLimitStore, currentWindow } from './rate-limit-store.js';

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 0, 31, 8, 15, 0);

describe('currentWindow', () => {
  it('aligns windows to the minute', () => {
    expect(currentWindow(MINUTE, T0 + 42_123)).toEqual({ start: T0, resetAt: T0 + MINUTE });
    expect(currentWindow(MINUTE, T0)).toEqual({ start: T0, resetAt: T0 + MINUTE });
    expect(currentWindow(MINUTE, T0 - 1)).toEqual({ start: T0 - MINUTE, resetAt: T0 });
  });
});

describe('memory rate-limit store', () => {
  it('counts hits per key within a window and starts over in the next one', async () => {
    const store = createMemoryRateLimitStore();
    expect(await store.hit('p:1', MINUTE, T0 + 1)).toEqual({ count: 1, resetAt: T0 + MINUTE });
    expect(await store.hit('p:1', MINUTE, T0 + 59_999)).toEqual({ count: 2, resetAt: T0 + MINUTE });
    expect(await store.hit('p:2', MINUTE, T0 + 2)).toEqual({ count: 1, resetAt: T0 + MINUTE });
    expect(await store.hit('p:1', MINUTE, T0 + MINUTE)).toEqual({ count: 1, resetAt: T0 + 2 * MINUTE });
  });

  it('answers at once through hitNow, in the same counters as hit', async () => {
    const store = createMemoryRateLimitStore();
    expect(store.hitNow?.('p:1', MINUTE, T0 + 1)).toEqual({ count: 1, resetAt: T0 + MINUTE });
    expect(await store.hit('p:1', MINUTE, T0 + 2)).toEqual({ count: 2, resetAt: T0 + MINUTE });
    expect(store.hitNow?.('p:1', MINUTE, T0 + 3)).toEqual({ count: 3, resetAt: T0 + MINUTE });
  });

  it('drops buckets of past windows', async () => {
    const store = createMemoryRateLimitStore({ pruneEveryMs: MINUTE });
    for (let i = 0; i < 50; i += 1) await store.hit(`p:${i}`, MINUTE, T0 + 10);
    expect(store.size()).toBe(50);
    await store.hit('p:0', MINUTE, T0 + 3 * MINUTE);
    expect(store.size()).toBe(1);
  });
});
