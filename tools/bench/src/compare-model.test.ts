import { describe, expect, it } from 'vitest';
import { type InventoryOutput, compareRuns, compareSettings, comparisonTable, headerColumns, readInventoryOutput, spreadOf } from './compare-model.js';

// Both layouts, as their printPairs writes them: 70fc51f's (cases padded to 10, no hold cases)
// with PostgreSQL's extra columns and a non-2xx cell of two words, and the current one (cases
// padded to 12, the hold cases, a row without CPU figures).
const OLD_OUTPUT = `[sqlite] SQL of detail: the bare route runs the gateway's 1 statements
[sqlite] one request per case to both servers: same statuses and JSON shapes

[sqlite] adjustments, 5 s per run, 50 connections, 5 tenants (20000 adjustments and 4000 transfers each); p50/p99 in ms
case        gw req/s  p50 ms  p99 ms bare req/s  p50 ms  p99 ms  ratio  gw non-2xx  bare non-2xx errors CPU us/req gw  bare gw/bare
create          1512      31      58       2767      17      30    55%  0           0               0/0           402   205   1.96x
detail          3927      12      25       7873       6      11    50%  0           0               0/0           155    70   2.21x
list            2362      20      41       3994      12      22    59%  0           0               0/0           295   160   1.84x
approve         1467      33      61       2672      18      33    55%  0           0               0/0           442   230   1.92x
count           2101      23      44       3650      13      25    58%  0           0               0/0           318   170   1.87x
goal (gateway >= 50% of bare req/s): met by create; missed by none
all responses 2xx, no socket errors
  create     POST /api/partner/v1/adjustments
  CPU us/req: the server process's user+system CPU over the measured run, read once it has served the run's last requests / requests sent (SQLite runs inside it); load average now 1.9 2.0 2.1 on 2 CPUs
[postgres] SQL of detail: the bare route runs the gateway's 1 statements
[postgres] SQL of list DIFFERS
  gateway:
    select 1
  bare:
    select 2

[postgres] adjustments, 5 s per run × 2 rounds per side, 50 connections, 5 tenants (20000 adjustments and 4000 transfers each); p50/p99 in ms
case        gw req/s  p50 ms  p99 ms bare req/s  p50 ms  p99 ms  ratio  gw non-2xx  bare non-2xx errors CPU us/req gw  bare gw/bare PG us/req gw  bare
create           956      51      90       1140      43      70    84%  0           0               0/0           610   300   2.03x          420   400
detail          2421      20      40       3683      13      25    66%  0           0               0/0           240   110   2.18x          150   140
list            1495      33      60       1927      26      45    78%  0           0               0/0           390   200   1.95x          300   290
approve          871      57      99       1113      44      80    78%  3x409 2x503 0               0/0           700   350   2.00x          500   480
count           1201      41      77       1500      33      60    80%  0           0               0/0           455   220   2.07x          380   370
each round, gateway ÷ bare (req/s, CPU per request):
  create   0.55 / 2.01x   0.57 / 1.98x
  detail   0.55 / 2.01x   0.57 / 1.98x
  list     0.55 / 2.01x   0.57 / 1.98x
  approve  0.55 / 2.01x   0.57 / 1.98x
  count    0.55 / 2.01x   0.57 / 1.98x
goal (gateway >= 50% of bare req/s): met by create; missed by none
WARNING: non-2xx responses or socket errors in: approve (see the columns above)
`;

const CURRENT_OUTPUT = `[sqlite] SQL of reserve (2 lines): the bare route runs the gateway's 4 statements

[sqlite] adjustments, 5 s per run, 50 connections, 5 tenants (20000 adjustments and 4000 transfers each); p50/p99 in ms
case          gw req/s  p50 ms  p99 ms bare req/s  p50 ms  p99 ms  ratio  gw non-2xx  bare non-2xx errors CPU us/req gw  bare gw/bare
create            1576      30      55       2968      16      29    53%  0           0               0/0           430   200   2.15x
detail            4191      11      24       8765       5      10    48%  0           0               0/0           175    72   2.43x
list              2421      20      40       4308      11      21    56%  0           0               0/0           313   158   1.98x
approve           1582      31      60       2943      17      31    54%  0           0               0/0           438   228   1.92x
count             2050      24      45       3700      13      24    55%  0           0               0/0           322   168   1.92x
reserve           1322      37      70       2108      23      41    63%  0           0               0/0           520   300   1.73x
reserve-lots      1101      45      80       1800      27      49    61%  0           0               0/0             -     -       -
goal (gateway >= 50% of bare req/s): met by create; missed by none
lots: reserve-lots gateway ÷ bare 0.61 req/s, CPU per request -
`;

// Captured from the runs recorded in docs/benchmarks.md ("Compared with 70fc51f"): PostgreSQL's
// table of 70fc51f's first run and of main's first.
const CAPTURED_OLD = `[postgres] adjustments, 5 s per run, 50 connections, 5 tenants (20000 adjustments and 4000 transfers each); p50/p99 in ms
case        gw req/s  p50 ms  p99 ms bare req/s  p50 ms  p99 ms  ratio  gw non-2xx  bare non-2xx errors CPU us/req gw  bare gw/bare PG us/req gw  bare
create          1415      34      62       1659      30      40    85%  0           0               0/0           601   424   1.42x          501   479
detail          4010      11      24       5164       9      18    78%  0           0               0/0           243   168   1.45x          132   126
list            2307      21      35       2868      17      27    80%  0           0               0/0           318   205   1.55x          393   370
approve         1364      36      52       1518      32      43    90%  0           0               0/0           533   411   1.30x          627   626
count            905      53      80       1103      43      64    82%  0           0               0/0           793   609   1.30x          898   784
goal (gateway >= 50% of bare req/s): met by create, detail, list, approve, count; missed by none`;

const CAPTURED_MAIN = `[postgres] adjustments, 5 s per run, 50 connections, 5 tenants (20000 adjustments and 4000 transfers each); p50/p99 in ms
case          gw req/s  p50 ms  p99 ms bare req/s  p50 ms  p99 ms  ratio  gw non-2xx  bare non-2xx errors CPU us/req gw  bare gw/bare PG us/req gw  bare
create             955      49      91       1454      33      50    66%  0           0               0/0           910   469   1.94x          726   575
detail            3200      14      38       4776      10      19    67%  0           0               0/0           322   185   1.74x          142   135
list              1920      24      56       2778      17      27    69%  0           0               0/0           397   210   1.89x          441   380
approve           1021      47      80       1405      34      51    73%  0           0               0/0           735   428   1.72x          783   673
count              773      61      95        954      50      77    81%  0           0               0/0          1017   627   1.62x          989   986
reserve            645      74     107        961      50      72    67%  0           0               0/0          1169   637   1.84x         1279   989
reserve-lots       389     126     176        709      70      93    55%  0           0               0/0          1668   870   1.92x         2505  1398
goal (gateway >= 50% of bare req/s): met by create, detail, list, approve, count, reserve, reserve-lots; missed by none`;

describe('reading bench:inventory tables', () => {
  it('reads the layout of 70fc51f by column name, PostgreSQL columns and non-2xx of several words included', () => {
    const { tables } = readInventoryOutput(OLD_OUTPUT);
    expect(tables.map((t) => t.dialect)).toEqual(['sqlite', 'postgres']);
    expect(tables[0]!.rows).toEqual([
      { kind: 'create', gatewayRps: 1512, gatewayCpuUs: 402 },
      { kind: 'detail', gatewayRps: 3927, gatewayCpuUs: 155 },
      { kind: 'list', gatewayRps: 2362, gatewayCpuUs: 295 },
      { kind: 'approve', gatewayRps: 1467, gatewayCpuUs: 442 },
      { kind: 'count', gatewayRps: 2101, gatewayCpuUs: 318 },
    ]);
    // The PG columns come after CPU us/req gw, and "3x409 2x503" is one cell of two words.
    expect(tables[1]!.rows.find((r) => r.kind === 'approve')).toEqual({ kind: 'approve', gatewayRps: 871, gatewayCpuUs: 700 });
    expect(tables[1]!.rows).toHaveLength(5);
  });

  it('reads the current layout, hold cases and a missing CPU figure included', () => {
    const [sqlite] = readInventoryOutput(CURRENT_OUTPUT).tables;
    expect(sqlite!.rows.map((r) => r.kind)).toEqual(['create', 'detail', 'list', 'approve', 'count', 'reserve', 'reserve-lots']);
    expect(sqlite!.rows[1]).toEqual({ kind: 'detail', gatewayRps: 4191, gatewayCpuUs: 175 });
    expect(sqlite!.rows[6]).toEqual({ kind: 'reserve-lots', gatewayRps: 1101, gatewayCpuUs: null });
  });

  it('reads captured runs of both layouts alike', () => {
    const [old] = readInventoryOutput(CAPTURED_OLD).tables;
    const [current] = readInventoryOutput(CAPTURED_MAIN).tables;
    expect(old!.dialect).toBe('postgres');
    expect(old!.rows.map((r) => r.kind)).toEqual(['create', 'detail', 'list', 'approve', 'count']);
    expect(old!.rows[4]).toEqual({ kind: 'count', gatewayRps: 905, gatewayCpuUs: 793 });
    expect(current!.rows.map((r) => r.kind)).toEqual(['create', 'detail', 'list', 'approve', 'count', 'reserve', 'reserve-lots']);
    expect(current!.rows[6]).toEqual({ kind: 'reserve-lots', gatewayRps: 389, gatewayCpuUs: 1668 });
  });

  it('keeps what questions a run: statement checks that differ, non-2xx, and counts those that match', () => {
    const { statementChecksMatched, warnings } = readInventoryOutput(OLD_OUTPUT);
    expect(statementChecksMatched).toBe(2);
    expect(warnings).toEqual(['[postgres] SQL of list DIFFERS', 'WARNING: non-2xx responses or socket errors in: approve (see the columns above)']);
    expect(readInventoryOutput(CURRENT_OUTPUT).warnings).toEqual([]);
  });

  it('splits a header into its columns, names of several words kept whole', () => {
    const header = OLD_OUTPUT.split('\n').find((l) => l.startsWith('case') && l.includes('PG us/req gw'))!;
    expect(headerColumns(header)).toEqual([
      'case', 'gw req/s', 'p50 ms', 'p99 ms', 'bare req/s', 'p50 ms', 'p99 ms', 'ratio', 'gw non-2xx', 'bare non-2xx', 'errors', 'CPU us/req gw', 'bare', 'gw/bare', 'PG us/req gw', 'bare',
    ]);
  });

  it('refuses a table it cannot read rather than read the wrong column', () => {
    const title = '[sqlite] adjustments, 1 s per run';
    expect(() => readInventoryOutput(`${title}\ncase gw req/s p50 ms\ncreate 10 2`)).toThrow(/without a "CPU us\/req gw" column/);
    expect(() => readInventoryOutput(`${title}\ncase gw req/s new column CPU us/req gw\ncreate 10 1 200`)).toThrow(/4 values under 5 columns/);
    expect(() => readInventoryOutput(`\ncase gw req/s CPU us/req gw\ncreate 10 200`)).toThrow(/without its title line/);
    expect(() => readInventoryOutput(`${title}\ncase gw req/s CPU us/req gw\ncreate 10 fast`)).toThrow(/is not a number \(fast\)/);
  });
});

describe('the comparison', () => {
  it('spreads a side over its runs, leaving out runs without the figure', () => {
    expect(spreadOf([400, 420, null, 410])).toEqual({ mean: 410, min: 400, max: 420, runs: 3 });
    expect(spreadOf([null])).toBeNull();
    expect(spreadOf([])).toBeNull();
  });

  const run = (rows: Record<string, [number, number | null]>): InventoryOutput => ({
    tables: [{ dialect: 'sqlite', rows: Object.entries(rows).map(([kind, [gatewayRps, gatewayCpuUs]]) => ({ kind, gatewayRps, gatewayCpuUs })) }],
    statementChecksMatched: 0,
    warnings: [],
  });
  const mainRuns = [
    run({ create: [900, 440], detail: [4000, 180], list: [2000, 330], approve: [1500, 450], count: [2000, 300], reserve: [1300, 520] }),
    run({ create: [1100, 460], detail: [4200, 170], list: [2200, 310], approve: [1500, 430], count: [2000, 300], reserve: [1320, 500] }),
  ];
  const oldRuns = [
    run({ create: [1000, 400], detail: [4000, 150], list: [2000, 300], approve: [1500, 440], count: [2000, 300] }),
    run({ create: [1000, 400], detail: [4400, 150], list: [2200, 300], approve: [1500, 440], count: [2000, 300] }),
  ];

  it('divides main by the old commit per case, mean over runs by mean over runs, with each side\'s spread', () => {
    const [sqlite] = compareRuns(mainRuns, oldRuns);
    const create = sqlite!.cases[0]!;
    expect(create.kind).toBe('create');
    expect(create.cpuUs.main).toEqual({ mean: 450, min: 440, max: 460, runs: 2 });
    expect(create.cpuUs.ratio).toBeCloseTo(450 / 400);
    expect(create.rps.ratio).toBeCloseTo(1);
    expect(sqlite!.cases[1]!.rps.old).toEqual({ mean: 4200, min: 4000, max: 4400, runs: 2 });
  });

  it('takes the mean of the five shared cases, and names the cases only one side measured', () => {
    const [sqlite] = compareRuns(mainRuns, oldRuns);
    expect(sqlite!.meanOver).toEqual(['create', 'detail', 'list', 'approve', 'count']);
    const cpuRatios = [450 / 400, 175 / 150, 320 / 300, 440 / 440, 1];
    expect(sqlite!.meanCpuRatio).toBeCloseTo(cpuRatios.reduce((a, b) => a + b) / 5);
    expect(sqlite!.onlyMain).toEqual(['reserve']);
    expect(sqlite!.onlyOld).toEqual([]);
    // reserve is reported when both sides have it, and stays out of the mean.
    const [both] = compareRuns(mainRuns, mainRuns);
    expect(both!.cases.map((c) => c.kind)).toContain('reserve');
    expect(both!.meanOver).not.toContain('reserve');
  });

  it('prints a Markdown table: mean (lowest–highest) per side, then main ÷ old', () => {
    const lines = comparisonTable(compareRuns(mainRuns, oldRuns)[0]!, { main: 'main', old: '70fc51f' });
    expect(lines).toContain('| create | 450 (440–460) | 400 (400–400) | 1.13 | 1000 (900–1100) | 1000 (1000–1000) | 1.00 |');
    expect(lines).toContain('| mean of create, detail, list, approve, count | | | 1.07 | | | 1.00 |');
    expect(lines.at(-1)).toBe('Measured on main only: reserve.');
  });
});

describe('the command line', () => {
  it('takes one commit, two pairs of runs and removes its worktree unless told otherwise', () => {
    expect(compareSettings(['70fc51f'], {})).toEqual({ commit: '70fc51f', rounds: 2, keep: false, mode: 'turns' });
    expect(compareSettings(['HEAD~3'], { BENCH_COMPARE_ROUNDS: '3', BENCH_COMPARE_KEEP: '1' })).toEqual({ commit: 'HEAD~3', rounds: 3, keep: true, mode: 'turns' });
    expect(compareSettings(['70fc51f'], { BENCH_COMPARE_PAIRED: '1' })).toMatchObject({ mode: 'paired' });
    expect(compareSettings(['70fc51f'], { BENCH_COMPARE_INSTRUCTIONS: '1' })).toMatchObject({ mode: 'instructions' });
    expect(() => compareSettings(['70fc51f'], { BENCH_COMPARE_PAIRED: '1', BENCH_COMPARE_INSTRUCTIONS: '1' })).toThrow(/one mode at a time/);
  });

  it('refuses what it cannot use before anything runs', () => {
    expect(() => compareSettings([], {})).toThrow(/usage: npm run bench:compare -- <commit>/);
    expect(() => compareSettings(['a', 'b'], {})).toThrow(/usage/);
    expect(() => compareSettings(['70fc51f'], { BENCH_COMPARE_ROUNDS: '0' })).toThrow(/BENCH_COMPARE_ROUNDS/);
  });
});
