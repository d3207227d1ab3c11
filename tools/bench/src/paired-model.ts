// The arithmetic of a paired comparison (bench:compare with BENCH_COMPARE_PAIRED=1): both gateways
// loaded at the same time, pair after pair, so whatever else the machine does falls on both at
// once; the figure per case is the median of the per-pair ratios main ÷ old of the gateway's CPU
// per request, the first pairs left out as the warm-up of the processes.
import { MEAN_CASES } from './compare-model.js';

/** What one paired run measures, read from its environment (paired-bench.ts lists the variables). */
export interface PairedSettings {
  dialects: string[];
  cases: string[];
  /** Seconds each side is loaded per case and pair (after one second of its own warm-up). */
  seconds: number;
  pairs: number;
  /** The first pairs, left out of the median while both gateways still compile. */
  warmUp: number;
  /** Requests per second each side is sent; undefined: as fast as each answers. */
  rate: number | undefined;
  pgAdminUrl: string;
  /**
   * Gateway settings for one side only (`BENCH_PAIRED_OLD_ENV`, `BENCH_PAIRED_MAIN_ENV`: `NAME=value`
   * pairs separated by spaces), to measure a setting against itself with the same tree on both sides.
   */
  sideEnv: { old: Record<string, string>; main: Record<string, string> };
  /**
   * Node and V8 flags for one side's gateway process (`BENCH_PAIRED_OLD_NODE_ARGS`,
   * `BENCH_PAIRED_MAIN_NODE_ARGS`: flags separated by spaces), for what V8 reads only at start
   * (`--max-semi-space-size=32`, `--single-threaded-gc`).
   */
  sideNodeArgs: { old: string[]; main: string[] };
}

const listOf = (text: string): string[] => text.split(',').map((item) => item.trim()).filter(Boolean);

export function pairedSettings(env: Readonly<Record<string, string | undefined>>): PairedSettings {
  const seconds = Number(env.BENCH_SECONDS ?? 3);
  if (!(seconds > 0)) throw new Error(`BENCH_SECONDS: a positive number of seconds, got ${env.BENCH_SECONDS}`);
  const rate = env.BENCH_RATE === undefined ? undefined : Number(env.BENCH_RATE);
  if (rate !== undefined && !(Number.isSafeInteger(rate) && rate > 0)) throw new Error(`BENCH_RATE: a positive whole number of requests per second, got ${env.BENCH_RATE}`);
  const warmUp = Number(env.BENCH_WARMUP_PAIRS ?? 1);
  if (!(Number.isSafeInteger(warmUp) && warmUp >= 0)) throw new Error(`BENCH_WARMUP_PAIRS: a whole number of pairs, got ${env.BENCH_WARMUP_PAIRS}`);
  const pairs = Number(env.BENCH_PAIRS ?? 5);
  if (!(Number.isSafeInteger(pairs) && pairs > warmUp)) throw new Error(`BENCH_PAIRS: more pairs than the ${warmUp} of the warm-up, got ${env.BENCH_PAIRS}`);
  return {
    dialects: listOf(env.BENCH_DIALECTS ?? 'sqlite,postgres'),
    cases: listOf(env.BENCH_CASES ?? MEAN_CASES.join(',')),
    seconds,
    pairs,
    warmUp,
    rate,
    pgAdminUrl: env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
    sideEnv: { old: settingsOf('BENCH_PAIRED_OLD_ENV', env.BENCH_PAIRED_OLD_ENV), main: settingsOf('BENCH_PAIRED_MAIN_ENV', env.BENCH_PAIRED_MAIN_ENV) },
    sideNodeArgs: { old: flagsOf('BENCH_PAIRED_OLD_NODE_ARGS', env.BENCH_PAIRED_OLD_NODE_ARGS), main: flagsOf('BENCH_PAIRED_MAIN_NODE_ARGS', env.BENCH_PAIRED_MAIN_NODE_ARGS) },
  };
}

/** `A=1 B=two` as { A: '1', B: 'two' }; a word without `=` or with an empty name is refused. */
function settingsOf(variable: string, text: string | undefined): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const word of (text ?? '').split(/\s+/).filter(Boolean)) {
    const at = word.indexOf('=');
    if (at < 1) throw new Error(`${variable}: NAME=value pairs separated by spaces, got ${JSON.stringify(word)}`);
    settings[word.slice(0, at)] = word.slice(at + 1);
  }
  return settings;
}

/** `--a --b=1` as ['--a', '--b=1']; a word that is not a flag (it would be taken as the script) is refused. */
function flagsOf(variable: string, text: string | undefined): string[] {
  const flags = (text ?? '').split(/\s+/).filter(Boolean);
  const stray = flags.find((flag) => !/^--[a-z]/.test(flag));
  if (stray !== undefined) throw new Error(`${variable}: flags such as --single-threaded-gc separated by spaces, got ${JSON.stringify(stray)}`);
  return flags;
}

/** One case's gateway CPU per request (µs), pair by pair: `old[i]` and `main[i]` ran at the same time. */
export interface PairedCase {
  kind: string;
  old: readonly number[];
  main: readonly number[];
}

export function median(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** main ÷ old of each pair after the first `warmUp`; a pair with a side that measured nothing is left out. */
export function pairRatios(c: PairedCase, warmUp: number): number[] {
  if (c.old.length !== c.main.length) throw new Error(`${c.kind}: ${c.old.length} old runs against ${c.main.length} main runs; pairs need both`);
  return c.main.flatMap((m, i) => (i < warmUp || !(m > 0) || !(c.old[i]! > 0) ? [] : [m / c.old[i]!]));
}

const fixed = (value: number | null, digits: number) => (value === null ? '-' : value.toFixed(digits));

/**
 * The printed table of one database: per case the median ratio, every pair's ratio, and each
 * side's runs; then the mean of the medians of create, detail, list, approve and count.
 */
export function pairedTable(dialect: string, cases: readonly PairedCase[], labels: { main: string; old: string }, warmUp: number, what = 'gateway'): string[] {
  const lines = [
    `${dialect}: ${what} CPU per request, main ÷ ${labels.old}, both loaded at the same time; median of the pairs after ${warmUp} warm-up pair${warmUp === 1 ? '' : 's'}`,
    '',
    `| case | main ÷ ${labels.old} | each pair | CPU µs/req ${labels.main} | CPU µs/req ${labels.old} |`,
    '|---|---|---|---|---|',
  ];
  const medians = new Map<string, number | null>();
  for (const c of cases) {
    const ratios = pairRatios(c, warmUp);
    const m = median(ratios);
    medians.set(c.kind, m);
    lines.push(`| ${c.kind} | ${fixed(m, 3)} | ${ratios.map((r) => r.toFixed(2)).join(' ')} | ${c.main.join(' ')} | ${c.old.join(' ')} |`);
  }
  const counted = MEAN_CASES.map((kind) => medians.get(kind)).filter((m): m is number => typeof m === 'number');
  if (counted.length === MEAN_CASES.length) lines.push(`| mean of ${MEAN_CASES.join(', ')} | ${(counted.reduce((a, b) => a + b, 0) / counted.length).toFixed(3)} | | | |`);
  return lines;
}
