import { describe, expect, it } from 'vitest';
import {
  FULL_SIZES,
  QUICK_SIZES,
  expiryMisses,
  lastUnitMisses,
  latenessByWindow,
  parseFlashSaleArgs,
  ratioOf,
  summarizeLateness,
  summaryTable,
  throughputMisses,
} from './flash-sale-model.js';
import { percentile } from './latency-stats.js';

describe('percentile', () => {
  it('takes the nearest rank of ascending values', () => {
    expect(percentile([1, 2, 3, 4], 50)).toBe(2);
    expect(percentile([1, 2, 3, 4], 95)).toBe(4);
    expect(percentile([7], 50)).toBe(7);
    expect(percentile([], 50)).toBeNaN();
  });
});

describe('the command line', () => {
  it('runs both databases at full size unless told otherwise', () => {
    const every = ['burst', 'steady', 'throughput', 'last-units'];
    expect(parseFlashSaleArgs([])).toEqual({ dialects: ['sqlite', 'postgres'], quick: false, sizes: FULL_SIZES, scenarios: every });
    expect(parseFlashSaleArgs(['--db', 'postgres', '--quick'])).toEqual({ dialects: ['postgres'], quick: true, sizes: QUICK_SIZES, scenarios: every });
    expect(parseFlashSaleArgs(['--db=sqlite']).dialects).toEqual(['sqlite']);
  });

  it('runs the scenarios named by --only, in their own order', () => {
    expect(parseFlashSaleArgs(['--only', 'last-units', '--only', 'burst']).scenarios).toEqual(['burst', 'last-units']);
    expect(() => parseFlashSaleArgs(['--only', 'lunch'])).toThrow(/--only needs one of/);
  });

  it('refuses what it does not know, so a typo never starts a full run', () => {
    expect(() => parseFlashSaleArgs(['--db', 'mysql'])).toThrow(/sqlite, postgres or both/);
    expect(() => parseFlashSaleArgs(['--db'])).toThrow(/needs a value/);
    expect(() => parseFlashSaleArgs(['--quik'])).toThrow(/unknown argument "--quik"/);
  });
});

describe('lateness', () => {
  const hold = (expiresAtMs: number, lateMs: number | null) => ({ expiresAtMs, backAtMs: lateMs === null ? null : expiresAtMs + lateMs });

  it('summarises the holds seen back and counts those never seen back and those over 60 s', () => {
    const summary = summarizeLateness([hold(0, 1000), hold(0, 3000), hold(5000, 61_000), hold(0, null), hold(0, 2000)]);
    expect(summary).toEqual({ back: 4, neverBack: 1, p50: 2000, p95: 61_000, max: 61_000, over60s: 1 });
  });

  it('groups holds by window of expiry time from the first expiry, leaving out empty windows', () => {
    const windows = latenessByWindow([hold(100_000, 4000), hold(129_999, 6000), hold(130_000, 8000), hold(200_000, null)], 30);
    expect(windows.map((w) => [w.fromSeconds, w.toSeconds, w.holds, w.summary.max, w.summary.neverBack])).toEqual([
      [0, 30, 2, 6000, 0],
      [30, 60, 1, 8000, 0],
      [90, 120, 1, Number.NaN, 1],
    ]);
    expect(latenessByWindow([], 30)).toEqual([]);
  });
});

describe('targets', () => {
  const met = { back: 10, neverBack: 0, p50: 5000, p95: 9000, max: 12_000, over60s: 0 };

  it('misses expiry when a hold never came back, came back after 60 s, or the burst took longer than its bound', () => {
    expect(expiryMisses('burst', met, 30_000)).toEqual([]);
    expect(expiryMisses('burst', { ...met, max: 31_000 }, 30_000)).toEqual(['burst: longest 31.0 s, target 30.0 s']);
    expect(expiryMisses('steady', { ...met, max: 61_000, over60s: 2, neverBack: 1 }, null)).toEqual([
      'steady: 1 hold(s) whose stock never came back',
      'steady: 2 hold(s) back more than 60 s after expiry',
    ]);
  });

  it('compares throughput against the many-merchants case', () => {
    expect(ratioOf(90, 100)).toBeCloseTo(0.9);
    expect(ratioOf(90, 0)).toBeNull();
    expect(throughputMisses('t', { skus: 95, merchants: 100, hotSku: 60 })).toEqual({ skus: [], hotSku: [] });
    expect(throughputMisses('t', { skus: 80, merchants: 100, hotSku: 30 })).toEqual({
      skus: ["t: one merchant's SKUs / many merchants = 0.80, target >= 0.9"],
      hotSku: ['t: one hot SKU / many merchants = 0.30, target >= 0.6'],
    });
    expect(throughputMisses('t', { skus: 0, merchants: 0, hotSku: 0 })).toEqual({ skus: [expect.stringContaining('n/a')], hotSku: [expect.stringContaining('n/a')] });
  });

  it('wants exactly the available units held and every other request refused as short', () => {
    expect(lastUnitMisses('l', { created: 100, insufficient: 156, other: {} }, 256, 100)).toEqual([]);
    expect(lastUnitMisses('l', { created: 101, insufficient: 150, other: { '503 SERVICE_UNAVAILABLE': 5 } }, 256, 100)).toEqual([
      'l: 101 holds created, expected exactly 100',
      'l: 150 answered 422 INSUFFICIENT_STOCK, expected 156',
      'l: other answers 503 SERVICE_UNAVAILABLE x5',
    ]);
  });
});

describe('the closing table', () => {
  it('prints one markdown row per scenario and database', () => {
    const table = summaryTable([
      { scenario: '1. burst expiry', dialect: 'sqlite', holdsPerSecond: null, lateness: { back: 3, neverBack: 0, p50: 6200, p95: 9000, max: 14_400, over60s: 0 }, verifyCalls: 12, verifyFindings: 0, misses: [] },
      { scenario: '3a. throughput', dialect: 'postgres', holdsPerSecond: 123.456, lateness: null, verifyCalls: 4, verifyFindings: 1, misses: ['x'] },
    ]);
    expect(table.split('\n').slice(2)).toEqual(['| 1. burst expiry | sqlite | - | 6.2 | 14.4 | 12 / 0 | met |', '| 3a. throughput | postgres | 123.5 | - | - | 4 / 1 | MISSED |']);
  });
});
