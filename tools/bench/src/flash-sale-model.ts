// The arithmetic of bench:flash-sale, kept apart from its processes so it can be unit tested:
// its command line and sizes, lateness summaries (whole and per window of expiry time), the
// targets of the issue and which of them a run missed, and the closing markdown table.
import { percentile } from './latency-stats.js';

export type FlashSaleDialect = 'sqlite' | 'postgres';

/** What one run measures, full size or `--quick`. */
export interface FlashSaleSizes {
  /** Merchants that each get one hold in the burst. */
  burstMerchants: number;
  /** Merchants the steady holds are spread over. */
  steadyMerchants: number;
  steadyPerSecond: number;
  steadySeconds: number;
  /** Width of the steady table's windows of expiry time. */
  steadyWindowSeconds: number;
  throughputClients: number;
  throughputSeconds: number;
  /** SKUs of the single merchant in throughput case (a), and merchants of case (b). */
  throughputSkus: number;
  lastUnitRequests: number;
  lastUnitStock: number;
  /** How long after the last expiry the watch waits for stock still held. */
  maxWaitSeconds: number;
}

export const FULL_SIZES: FlashSaleSizes = {
  burstMerchants: 300,
  steadyMerchants: 1000,
  steadyPerSecond: 20,
  steadySeconds: 120,
  steadyWindowSeconds: 30,
  throughputClients: 32,
  throughputSeconds: 15,
  throughputSkus: 32,
  lastUnitRequests: 256,
  lastUnitStock: 100,
  maxWaitSeconds: 90,
};

export const QUICK_SIZES: FlashSaleSizes = {
  burstMerchants: 40,
  steadyMerchants: 50,
  steadyPerSecond: 5,
  steadySeconds: 20,
  steadyWindowSeconds: 10,
  throughputClients: 32,
  throughputSeconds: 4,
  throughputSkus: 32,
  lastUnitRequests: 256,
  lastUnitStock: 100,
  maxWaitSeconds: 75,
};

export const FLASH_SALE_SCENARIOS = ['burst', 'steady', 'throughput', 'last-units'] as const;
export type FlashSaleScenario = (typeof FLASH_SALE_SCENARIOS)[number];

export interface FlashSaleOptions {
  dialects: FlashSaleDialect[];
  quick: boolean;
  sizes: FlashSaleSizes;
  /** The scenarios to run, in their fixed order; all by default. */
  scenarios: FlashSaleScenario[];
}

export const USAGE = 'npm run bench:flash-sale -- [--db sqlite|postgres|both] [--quick] [--only burst|steady|throughput|last-units]';

/**
 * The command line: `--db sqlite|postgres|both` (default both; `--db=x` too), `--quick`, and
 * `--only <scenario>` (repeatable) to run some scenarios alone.
 * Throws on anything else, so a typo never runs the full size by surprise.
 *
 * @example parseFlashSaleArgs(['--db', 'sqlite', '--quick']).dialects // ['sqlite']
 */
export function parseFlashSaleArgs(argv: readonly string[]): FlashSaleOptions {
  let db = 'both';
  let quick = false;
  const only = new Set<string>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (arg === '--quick') quick = true;
    else if (arg === '--only') {
      const value = argv[i + 1];
      if (value === undefined || !(FLASH_SALE_SCENARIOS as readonly string[]).includes(value)) throw new Error(`--only needs one of ${FLASH_SALE_SCENARIOS.join(', ')} (${USAGE})`);
      only.add(value);
      i += 1;
    }
    else if (arg === '--db') {
      const value = argv[i + 1];
      if (value === undefined) throw new Error(`--db needs a value (${USAGE})`);
      db = value;
      i += 1;
    } else if (arg.startsWith('--db=')) db = arg.slice('--db='.length);
    else throw new Error(`unknown argument ${JSON.stringify(arg)} (${USAGE})`);
  }
  const dialects: FlashSaleDialect[] | undefined = db === 'both' ? ['sqlite', 'postgres'] : db === 'sqlite' || db === 'postgres' ? [db] : undefined;
  if (!dialects) throw new Error(`--db: sqlite, postgres or both, got ${JSON.stringify(db)} (${USAGE})`);
  const scenarios = FLASH_SALE_SCENARIOS.filter((s) => only.size === 0 || only.has(s));
  return { dialects, quick, sizes: quick ? QUICK_SIZES : FULL_SIZES, scenarios };
}

/** Lateness of stock coming back after holds' expiry, in milliseconds. */
export interface LatenessSummary {
  /** Holds whose stock was seen back. */
  back: number;
  /** Holds whose stock was still held when the watch gave up. */
  neverBack: number;
  p50: number;
  p95: number;
  max: number;
  /** Holds back more than 60 s after their expiry (the promise of docs/holds.md). */
  over60s: number;
}

/** One hold as the watch saw it: its expiry, and when its stock was first seen back (null: never). */
export interface WatchedHold {
  expiresAtMs: number;
  backAtMs: number | null;
}

/**
 * p50, p95 and max of `backAt - expiresAt` over the holds seen back, and how many were never.
 *
 * @example summarizeLateness([{ expiresAtMs: 0, backAtMs: 5000 }]).max // 5000
 */
export function summarizeLateness(holds: readonly WatchedHold[]): LatenessSummary {
  const late = holds.flatMap((h) => (h.backAtMs === null ? [] : [h.backAtMs - h.expiresAtMs])).sort((a, b) => a - b);
  return {
    back: late.length,
    neverBack: holds.length - late.length,
    p50: percentile(late, 50),
    p95: percentile(late, 95),
    max: late.at(-1) ?? Number.NaN,
    over60s: late.filter((ms) => ms > 60_000).length,
  };
}

/** The lateness of the holds whose expiry fell in one window of the steady run. */
export interface LatenessWindow {
  /** Seconds from the first expiry to the window's start. */
  fromSeconds: number;
  toSeconds: number;
  holds: number;
  summary: LatenessSummary;
}

/**
 * The holds grouped by windows of `windowSeconds` of expiry time, counted from the first expiry,
 * each summarised; windows without holds are left out.
 *
 * @example latenessByWindow(holds, 30).map((w) => w.summary.p50)
 */
export function latenessByWindow(holds: readonly WatchedHold[], windowSeconds: number): LatenessWindow[] {
  if (holds.length === 0) return [];
  const first = Math.min(...holds.map((h) => h.expiresAtMs));
  const width = windowSeconds * 1000;
  const byWindow = new Map<number, WatchedHold[]>();
  for (const hold of holds) {
    const index = Math.floor((hold.expiresAtMs - first) / width);
    byWindow.set(index, [...(byWindow.get(index) ?? []), hold]);
  }
  return [...byWindow.entries()]
    .sort(([a], [b]) => a - b)
    .map(([index, inWindow]) => ({ fromSeconds: index * windowSeconds, toSeconds: (index + 1) * windowSeconds, holds: inWindow.length, summary: summarizeLateness(inWindow) }));
}

/** The targets of the issue: every hold's stock back within 60 s of its expiry, the burst's longest within 30 s. */
export const EXPIRY_TARGET_MS = 60_000;
export const BURST_MAX_TARGET_MS = 30_000;
/** Throughput targets: one merchant's 32 SKUs against 32 merchants, and one hot SKU against 32 merchants. */
export const SKUS_TO_MERCHANTS_TARGET = 0.9;
export const HOT_SKU_TO_MERCHANTS_TARGET = 0.6;

/** The targets an expiry scenario missed, as sentences; empty when it met them all. */
export function expiryMisses(label: string, summary: LatenessSummary, maxTargetMs: number | null): string[] {
  const misses: string[] = [];
  if (summary.neverBack > 0) misses.push(`${label}: ${summary.neverBack} hold(s) whose stock never came back`);
  if (summary.over60s > 0) misses.push(`${label}: ${summary.over60s} hold(s) back more than 60 s after expiry`);
  if (maxTargetMs !== null && summary.max > maxTargetMs) misses.push(`${label}: longest ${seconds(summary.max)} s, target ${seconds(maxTargetMs)} s`);
  return misses;
}

/** `a / b`, or null when either is missing or b is 0. */
export function ratioOf(a: number | null, b: number | null): number | null {
  return a === null || b === null || b === 0 ? null : a / b;
}

/** The throughput targets a run missed, by the case whose row carries them: a/b at least 0.9 on (a), c/b at least 0.6 on (c). */
export function throughputMisses(label: string, rates: { skus: number; merchants: number; hotSku: number }): { skus: string[]; hotSku: string[] } {
  const skus = ratioOf(rates.skus, rates.merchants);
  const hot = ratioOf(rates.hotSku, rates.merchants);
  return {
    skus: skus === null || skus < SKUS_TO_MERCHANTS_TARGET ? [`${label}: one merchant's SKUs / many merchants = ${fixed(skus, 2)}, target >= ${SKUS_TO_MERCHANTS_TARGET}`] : [],
    hotSku: hot === null || hot < HOT_SKU_TO_MERCHANTS_TARGET ? [`${label}: one hot SKU / many merchants = ${fixed(hot, 2)}, target >= ${HOT_SKU_TO_MERCHANTS_TARGET}`] : [],
  };
}

/** Answers of the last-units race by outcome. */
export interface LastUnitCounts {
  created: number;
  insufficient: number;
  /** Any other answer (another status or code, or no answer), by `status code` or `error`. */
  other: Record<string, number>;
}

/** The last-units targets a run missed: exactly `stock` created and every other request 422 INSUFFICIENT_STOCK. */
export function lastUnitMisses(label: string, counts: LastUnitCounts, requests: number, stock: number): string[] {
  const misses: string[] = [];
  if (counts.created !== stock) misses.push(`${label}: ${counts.created} holds created, expected exactly ${stock}`);
  if (counts.insufficient !== requests - stock) misses.push(`${label}: ${counts.insufficient} answered 422 INSUFFICIENT_STOCK, expected ${requests - stock}`);
  const others = Object.entries(counts.other).filter(([, n]) => n > 0);
  if (others.length > 0) misses.push(`${label}: other answers ${others.map(([k, n]) => `${k} x${n}`).join(', ')}`);
  return misses;
}

/** One row of the closing table. */
export interface SummaryRow {
  scenario: string;
  dialect: FlashSaleDialect;
  /** Holds per second the scenario created (null: not a throughput figure). */
  holdsPerSecond: number | null;
  lateness: LatenessSummary | null;
  verifyCalls: number;
  verifyFindings: number;
  /** Empty: met its targets. */
  misses: string[];
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const fixed = (n: number | null, digits: number) => (n === null || Number.isNaN(n) ? 'n/a' : n.toFixed(digits));

/** Milliseconds as seconds with one decimal, `-` when there is no figure. */
export function secondsText(ms: number | null | undefined): string {
  return ms === null || ms === undefined || Number.isNaN(ms) ? '-' : seconds(ms);
}

/**
 * The closing markdown table, one row per scenario and database.
 *
 * @example console.log(summaryTable(rows))
 */
export function summaryTable(rows: readonly SummaryRow[]): string {
  const lines = [
    '| scenario | database | holds/s | expiry delay p50 (s) | expiry delay max (s) | verify calls / with findings | targets |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.scenario} | ${r.dialect} | ${r.holdsPerSecond === null ? '-' : r.holdsPerSecond.toFixed(1)} | ${secondsText(r.lateness?.p50)} | ${secondsText(r.lateness?.max)} | ${r.verifyCalls} / ${r.verifyFindings} | ${r.misses.length === 0 ? 'met' : 'MISSED'} |`,
    );
  }
  return lines.join('\n');
}
