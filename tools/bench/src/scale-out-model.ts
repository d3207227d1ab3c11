// The arithmetic of bench:scale-out, apart from anything that runs: CPU per request pooled over
// runs, the capacity model (requests per second one core of gateway or of PostgreSQL serves), the
// ratios of gateway CPU per request at N processes to 1, and the PostgreSQL connection budget.
import type { LoadResult } from './bench-harness.js';

/** What one measured run contributes: requests completed and CPU per request (null: not measured). */
export interface CpuSample {
  requests: number;
  cpuUs: number | null;
}

/**
 * CPU per request over several runs, weighted by their requests (total CPU / total requests), so
 * a short run does not count as much as a long one; null when any run has no CPU figure.
 */
export function pooledCpuUs(samples: readonly CpuSample[]): number | null {
  let cpu = 0;
  let requests = 0;
  for (const s of samples) {
    if (s.cpuUs === null) return null;
    cpu += s.cpuUs * s.requests;
    requests += s.requests;
  }
  return requests === 0 ? null : cpu / requests;
}

/** Requests per second one fully busy core serves at `cpuUs` microseconds of CPU per request. */
export function perCore(cpuUs: number | null): number | null {
  return cpuUs === null || cpuUs <= 0 ? null : 1e6 / cpuUs;
}

/** Cores kept busy at `requestsPerSecond` with `cpuUs` per request. */
export function coresUsed(cpuUs: number | null, requestsPerSecond: number): number | null {
  return cpuUs === null ? null : (cpuUs * requestsPerSecond) / 1e6;
}

export function ratio(value: number | null, base: number | null): number | null {
  return value === null || base === null || base === 0 ? null : value / base;
}

/** The mean of the figures that exist; null when none does. */
export function meanOf(values: readonly (number | null)[]): number | null {
  const known = values.filter((v): v is number => v !== null);
  return known.length === 0 ? null : known.reduce((a, b) => a + b, 0) / known.length;
}

/** Gateway cores one PostgreSQL core keeps busy: one database core's requests, at the gateway's cost. */
export function gatewayCoresPerDatabaseCore(gatewayCpuUs: number | null, dbCpuUs: number | null): number | null {
  return ratio(gatewayCpuUs, dbCpuUs);
}

export interface ConnectionBudget {
  /** Connections the application may open in all: max_connections less the superuser reserve and other clients. */
  available: number;
  /** Per gateway process at this many processes (what DB_POOL_SIZE may be at most). */
  perProcess: number;
  /** Gateway processes the budget holds at `poolSize` connections each. */
  processesAtPool: number;
}

/**
 * PostgreSQL's connection budget for `processes` gateways: `max_connections` less
 * `superuser_reserved_connections` and `others` (internal API, webhook worker, migrations, admin
 * sessions), shared evenly.
 */
export function connectionBudget(input: { maxConnections: number; reserved: number; others: number; processes: number; poolSize: number }): ConnectionBudget {
  const available = Math.max(0, input.maxConnections - input.reserved - input.others);
  return {
    available,
    perProcess: Math.floor(available / Math.max(1, input.processes)),
    processesAtPool: Math.floor(available / Math.max(1, input.poolSize)),
  };
}

/** Rate-limit counter values in Redis before and after a run: the hits it counted. */
export function counted(before: ReadonlyMap<string, number>, after: ReadonlyMap<string, number>): number {
  let hits = 0;
  for (const [key, value] of after) hits += value - (before.get(key) ?? 0);
  return hits;
}

const fixed = (n: number | null, digits: number) => (n === null ? 'n/a' : n.toFixed(digits));

/**
 * The fixed rate of a paced run: `share` of what one process served flat out, in whole requests
 * per second; null without a saturated figure or a share in (0, 1].
 *
 * @example pacedRate(2400, 0.4) === 960
 */
export function pacedRate(saturatedRequestsPerSecond: number | null, share: number): number | null {
  if (saturatedRequestsPerSecond === null || !(saturatedRequestsPerSecond > 0) || !(share > 0 && share <= 1)) return null;
  return Math.max(1, Math.round(saturatedRequestsPerSecond * share));
}

/** The paced runs' ratios, with the share of one process's saturated throughput each process ran at. */
export interface PacedRatios {
  share: number;
  ratios: ReadonlyMap<number, number | null>;
}

const ratioParts = (ratios: ReadonlyMap<number, number | null>) => [...ratios].filter(([n]) => n !== 1).map(([n, r]) => `${n}p/1p = ${fixed(r, 2)}`).join(', ') || 'n/a';

/**
 * The closing line: gateway CPU per request at 2 and 3 processes against 1, flat out (and, when
 * measured, at a fixed rate the cores can carry), and what Redis adds.
 */
export function summaryLine(ratios: ReadonlyMap<number, number | null>, redisAddsUs: number | null, paced?: PacedRatios): string {
  const redis = redisAddsUs === null ? 'redis adds n/a' : `redis adds ${redisAddsUs.toFixed(0)} us/request`;
  const atRate = paced ? `; paced at ${Math.round(paced.share * 100)} % of 1p's req/s per process: ${ratioParts(paced.ratios)}` : '';
  return `scale-out: gateway CPU/request ${ratioParts(ratios)}${atRate}; ${redis}`;
}

/** What merging needs of a measured run (inventory-load's Measured has it all). */
export type RunFigures = Omit<LoadResult, 'name'> & { cpuUs: number | null; dbCpuUs: number | null };

/**
 * A run's figures recounted over the `served` requests instead of the `sent` ones: the CPU spent
 * is the same, spread over the requests actually served.
 *
 * @example perServed({ ...run, sent: 1353, cpuUs: 1000 }, 1162).cpuUs // 1164.4
 */
export function perServed<T extends RunFigures>(run: T, served: number): T {
  const rescale = (us: number | null) => (us === null || run.sent === 0 || served <= 0 ? null : (us * run.sent) / served);
  return { ...run, sent: served, cpuUs: rescale(run.cpuUs), dbCpuUs: rescale(run.dbCpuUs) };
}

/**
 * Several runs of the same configuration as one: counts summed, req/s and p50 their mean, p99
 * the worst, and CPU per request pooled over the requests each run sent.
 */
export function mergeRuns<T extends RunFigures>(runs: readonly T[]): RunFigures {
  if (runs.length === 0) throw new Error('mergeRuns: no runs');
  const sum = (pick: (r: T) => number) => runs.reduce((total, r) => total + pick(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const r of runs) for (const [code, count] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count;
  return {
    requestsPerSecond: sum((r) => r.requestsPerSecond) / runs.length,
    p50: sum((r) => r.p50) / runs.length,
    p99: Math.max(...runs.map((r) => r.p99)),
    non2xx: sum((r) => r.non2xx),
    errors: sum((r) => r.errors),
    statusCodes,
    requests: sum((r) => r.requests),
    sent: sum((r) => r.sent),
    cpuUs: pooledCpuUs(runs.map((r) => ({ requests: r.sent, cpuUs: r.cpuUs }))),
    dbCpuUs: pooledCpuUs(runs.map((r) => ({ requests: r.sent, cpuUs: r.dbCpuUs }))),
  };
}

/**
 * The order of the runs of one case: its configurations (process counts, or bench:inventory's
 * gateway and bare sides) forward, then backward, and so on for `rounds` rounds, so a drift in the
 * machine or the database over the case falls on every configuration alike.
 */
export function runOrder<T>(configurations: readonly T[], rounds: number): T[] {
  const order: T[] = [];
  for (let round = 0; round < rounds; round += 1) order.push(...(round % 2 === 0 ? configurations : [...configurations].reverse()));
  return order;
}
