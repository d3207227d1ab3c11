import { describe, expect, it } from 'vitest';
import { median, pairRatios, pairedSettings, pairedTable } from './paired-model.js';

describe('paired comparison', () => {
  it('takes the median, of an odd or an even count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNull();
  });

  it('divides each pair run at the same time, after the warm-up, leaving out a side that measured nothing', () => {
    expect(pairRatios({ kind: 'detail', old: [900, 200, 400, 300], main: [100, 220, 380, 0] }, 1)).toEqual([1.1, 0.95]);
    expect(() => pairRatios({ kind: 'list', old: [1, 2], main: [1] }, 0)).toThrow(/pairs need both/);
  });

  it('prints each case with its pairs and both sides, then the mean of the five cases', () => {
    const cases = ['create', 'detail', 'list', 'approve', 'count'].map((kind, i) => ({ kind, old: [1000, 100, 100, 100], main: [5, 100 + 10 * i, 110 + 10 * i, 90 + 10 * i] }));
    const lines = pairedTable('SQLite', cases, { main: 'main', old: '70fc51f' }, 1);
    expect(lines[0]).toBe('SQLite: gateway CPU per request, main ÷ 70fc51f, both loaded at the same time; median of the pairs after 1 warm-up pair');
    expect(pairedTable('SQLite', cases, { main: 'main', old: '70fc51f' }, 1, "the gateway's main thread")[0]).toMatch(/^SQLite: the gateway's main thread CPU per request, main ÷ 70fc51f/);
    expect(lines).toContain('| detail | 1.100 | 1.10 1.20 1.00 | 5 110 120 100 | 1000 100 100 100 |');
    // Medians 1.0, 1.1, 1.2, 1.3, 1.4: their mean.
    expect(lines.at(-1)).toBe('| mean of create, detail, list, approve, count | 1.200 | | | |');
  });

  it('prints no mean when a case of the five is missing', () => {
    const lines = pairedTable('PostgreSQL', [{ kind: 'detail', old: [1, 1], main: [1, 1] }], { main: 'main', old: 'abc1234' }, 1);
    expect(lines.some((l) => l.startsWith('| mean'))).toBe(false);
  });

  it('reads its settings from the environment: one warm-up pair unless told, never all of them', () => {
    expect(pairedSettings({})).toEqual({
      dialects: ['sqlite', 'postgres'],
      cases: ['create', 'detail', 'list', 'approve', 'count'],
      seconds: 3,
      pairs: 5,
      warmUp: 1,
      rate: undefined,
      pgAdminUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
      sideEnv: { old: {}, main: {} },
      sideNodeArgs: { old: [], main: [] },
    });
    const settled = pairedSettings({ BENCH_WARMUP_PAIRS: '4', BENCH_PAIRS: '12', BENCH_RATE: '200', BENCH_CASES: 'approve, count', BENCH_DIALECTS: 'sqlite' });
    expect(settled).toMatchObject({ warmUp: 4, pairs: 12, rate: 200, cases: ['approve', 'count'], dialects: ['sqlite'] });
    expect(pairedSettings({ BENCH_WARMUP_PAIRS: '0', BENCH_PAIRS: '1' }).warmUp).toBe(0);
    expect(() => pairedSettings({ BENCH_WARMUP_PAIRS: '5', BENCH_PAIRS: '5' })).toThrow(/BENCH_PAIRS: more pairs than the 5 of the warm-up/);
    expect(() => pairedSettings({ BENCH_WARMUP_PAIRS: '-1' })).toThrow(/BENCH_WARMUP_PAIRS/);
    expect(() => pairedSettings({ BENCH_WARMUP_PAIRS: 'two' })).toThrow(/BENCH_WARMUP_PAIRS/);
    expect(() => pairedSettings({ BENCH_RATE: '0' })).toThrow(/BENCH_RATE/);
    expect(() => pairedSettings({ BENCH_SECONDS: 'x' })).toThrow(/BENCH_SECONDS/);
  });

  it('gives each side its own gateway settings when told', () => {
    expect(pairedSettings({ BENCH_PAIRED_MAIN_ENV: ' GATEWAY_HEAP_GROWING_PERCENT=50  LOG_LEVEL=warn', BENCH_PAIRED_OLD_ENV: 'X=a=b Y=' }).sideEnv).toEqual({
      old: { X: 'a=b', Y: '' },
      main: { GATEWAY_HEAP_GROWING_PERCENT: '50', LOG_LEVEL: 'warn' },
    });
    expect(() => pairedSettings({ BENCH_PAIRED_MAIN_ENV: 'GATEWAY_HEAP_GROWING_PERCENT' })).toThrow(/BENCH_PAIRED_MAIN_ENV: NAME=value/);
    expect(() => pairedSettings({ BENCH_PAIRED_OLD_ENV: '=1' })).toThrow(/BENCH_PAIRED_OLD_ENV/);
  });

  it('gives each side its own Node flags when told, and nothing that is not a flag', () => {
    expect(pairedSettings({ BENCH_PAIRED_MAIN_NODE_ARGS: ' --single-threaded-gc  --max-semi-space-size=32 ' }).sideNodeArgs).toEqual({
      old: [],
      main: ['--single-threaded-gc', '--max-semi-space-size=32'],
    });
    expect(pairedSettings({ BENCH_PAIRED_OLD_NODE_ARGS: '--no-flush-bytecode' }).sideNodeArgs.old).toEqual(['--no-flush-bytecode']);
    expect(() => pairedSettings({ BENCH_PAIRED_MAIN_NODE_ARGS: 'other.js' })).toThrow(/BENCH_PAIRED_MAIN_NODE_ARGS: flags/);
    expect(() => pairedSettings({ BENCH_PAIRED_OLD_NODE_ARGS: '--a -' })).toThrow(/BENCH_PAIRED_OLD_NODE_ARGS/);
  });
});
