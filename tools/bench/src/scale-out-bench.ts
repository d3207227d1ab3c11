// npm run bench:scale-out — 1, 2 and 3 gateway processes (apps/gateway/dist/main.js) on one
// PostgreSQL database with their rate limits in Redis, under the same load in the same run: the
// adjustment cases of bench:inventory (create, detail, list, approve), autocannon's connections
// spread round-robin over the processes. Per case and process count: req/s, p99, the gateways'
// CPU per request (summed over the processes) and the PostgreSQL backends' CPU per request; then
// the capacity model (requests per second one core of gateway, or of PostgreSQL, serves) and the
// PostgreSQL connection budget. Last, what Redis costs: one gateway counting in Redis against one
// counting in memory, the same case in alternating rounds.
// On a machine with few cores the cores saturate, so throughput cannot show scaling; the work per
// request can: goal, gateway CPU per request at 2 and 3 processes within 10 % of 1 process, and
// Redis adding at most 100 us of gateway CPU per request. Flat out, more processes than cores
// preempt each other and every preempted request pays again in cache misses; so each case runs
// again paced: every process at one fixed rate, the same at 1, 2 and 3 processes, low enough that
// even 3 processes leave the cores room. A process then serves the same stream of requests
// whatever the count, so a cost that crossed processes would show in its CPU per request.
//
// Environment: BENCH_SECONDS (4 per run, after a 1 s warm-up), BENCH_ROUNDS (2: runs of each
// process count per case, in the order 1 2 3 3 2 1, so a drift falls on every count alike),
// BENCH_WARMUP_SECONDS (2: load of every case per gateway process before anything is measured),
// BENCH_PROCESSES (1,2,3), BENCH_CASES (create,detail,list,approve), BENCH_CONNECTIONS (48: a
// multiple of 1, 2 and 3), BENCH_CONTROL (1; 0 leaves out the control run: 1 process at
// BENCH_CONNECTIONS / the most processes), BENCH_REDIS_CASE (detail), BENCH_REDIS_ROUNDS (2 runs of
// each store), BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres, where a database
// pits_scale_bench_<pid> is created and dropped), BENCH_REDIS_URL (REDIS_URL, else
// redis://127.0.0.1:6379; the gateways count under a key prefix of this run's own, deleted at the
// end), BENCH_APPROVE_POOL_PER_SECOND (3000), BENCH_PACED_SHARE (0.15: the paced runs' rate per
// process, as a share of the req/s one process served flat out in the case; 0 leaves them out).
import { randomBytes } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { type Child, ROOT, contextSwitches, freePort, startNode } from './bench-harness.js';
import { CASES, CREDENTIALS_KEY, type Case, type Measured, casesFrom, createPostgresDatabase, dropPostgresDatabase, nonOk, runCase, seedForLoad, warmUp } from './inventory-load.js';
import { type BulkWriter, type SeedTenant, openBulkWriter } from './inventory-seed.js';
import { createDatabase, migrateOrThrow } from '@pits/persistence';
import {
  type RunFigures,
  connectionBudget,
  coresUsed,
  counted,
  gatewayCoresPerDatabaseCore,
  meanOf,
  mergeRuns,
  pacedRate,
  perCore,
  perServed,
  ratio,
  runOrder,
  summaryLine,
} from './scale-out-model.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 4);
const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
/** Load per gateway process and case before anything is measured. */
const warmupSeconds = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
/** The warm-up of each measured run (its pools reopened, its requests in flight). */
const RUN_WARMUP_SECONDS = 1;
const connections = Number(process.env.BENCH_CONNECTIONS ?? 48);
const processCounts = (process.env.BENCH_PROCESSES ?? '1,2,3').split(',').map((n) => Number(n.trim())).filter((n) => Number.isInteger(n) && n >= 1 && n <= 8);
const cases = casesFrom(process.env.BENCH_CASES, ['create', 'detail', 'list', 'approve']);
const redisCase = (process.env.BENCH_REDIS_CASE ?? 'detail') as Case;
const redisRounds = Number(process.env.BENCH_REDIS_ROUNDS ?? 2);
const pgAdminUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const redisUrl = process.env.BENCH_REDIS_URL ?? process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const approvePerSecond = Number(process.env.BENCH_APPROVE_POOL_PER_SECOND ?? 3000);
const control = process.env.BENCH_CONTROL !== '0';
/** The paced runs' rate per process, as a share of one process's saturated req/s of the case; 0 leaves them out. */
const pacedShare = Number(process.env.BENCH_PACED_SHARE ?? 0.15);
const keyPrefix = `bench:scale-out:${process.pid}:${randomBytes(4).toString('hex')}:`;
const pgName = `pits_scale_bench_${process.pid}`;
/** Connections per gateway process: the gateway's own default of DB_POOL_SIZE. */
const POOL_SIZE = 10;

if (!(CASES as readonly string[]).includes(redisCase)) throw new Error(`BENCH_REDIS_CASE: unknown case ${redisCase}`);
if (processCounts.length === 0) throw new Error('BENCH_PROCESSES: give process counts from 1 to 8, e.g. 1,2,3');

interface Row {
  processes: number;
  /** Load connections; below BENCH_CONNECTIONS on the control row. */
  connections: number;
  kind: Case;
  /** Its runs merged (mergeRuns). */
  measured: RunFigures;
  runs: number;
  /** PostgreSQL connections each gateway held at the end of the run. */
  backends: number[];
  /** Hits the Redis counters took during the run (one per request in the tier bucket). */
  redisCounted: number;
  /** The gateways' context switches during the runs, summed: preempted (involuntary) and waiting. */
  switches: { voluntary: number; involuntary: number } | null;
  /** The fixed rate of a paced row, requests per second per process; none: flat out. */
  rate?: number;
}

/** The runs of one process count and load, gathered before they are merged into a row. */
interface Configuration {
  processes: number;
  connections: number;
  runs: Measured[];
  backends: number[];
  redisCounted: number;
  switches: Row['switches'];
}

type Switches = NonNullable<Row['switches']>;
const addSwitches = (a: Switches | null, b: Switches | null): Switches | null => (a && b ? { voluntary: a.voluntary + b.voluntary, involuntary: a.involuntary + b.involuntary } : null);

/** One measured run of `processes` of the started gateways, with the Redis hits, backends and context switches it took. */
async function measureConfiguration(input: {
  kind: Case;
  gateways: readonly Child[];
  processes: number;
  connections: number;
  tenants: readonly SeedTenant[];
  writer: BulkWriter;
  redis: Redis;
  rate?: number;
}): Promise<Omit<Configuration, 'runs'> & { measured: Measured }> {
  const { kind, processes, connections: load, writer, redis } = input;
  const serving = input.gateways.slice(0, processes);
  const pids = serving.map((g) => g.process.pid);
  let before = new Map<string, number>();
  let after = new Map<string, number>();
  let backends: number[] = [];
  // Set in the hooks below; an object, so the compiler does not take them for always null.
  const switches: { before: Row['switches']; taken: Row['switches'] } = { before: null, taken: null };
  const { measured: sent, poolShort } = await runCase(
    {
      kind, url: serving.map((g) => g.url), pids, tenants: input.tenants, writer, seconds, warmupSeconds: RUN_WARMUP_SECONDS, connections: load, approvePerSecond, poolSeed: 20 + processes,
      ...(input.rate === undefined ? {} : { rate: input.rate }),
      around: {
        before: async () => {
          before = await counters(redis);
          switches.before = contextSwitches(pids);
        },
        after: async () => {
          const now = contextSwitches(pids);
          switches.taken = now && switches.before ? { voluntary: now.voluntary - switches.before.voluntary, involuntary: now.involuntary - switches.before.involuntary } : null;
          after = await counters(redis);
          backends = await backendsByGateway(writer, serving);
        },
      },
    },
    `${processes}p ${load}c ${kind}${input.rate === undefined ? '' : ` at ${input.rate} req/s`}`,
  );
  if (poolShort) console.log(`[scale-out] the approve pool ran out at ${processes} processes: raise BENCH_APPROVE_POOL_PER_SECOND`);
  const redisCounted = counted(before, after);
  // At a fixed rate autocannon ends with requests sent and not yet answered, which the gateways
  // still serve (and spend CPU on): a paced run is counted by the gateways' own tally instead,
  // the one Redis hit each request takes, which flat-out runs show equal to the requests sent.
  const measured = input.rate === undefined || redisCounted === 0 ? sent : perServed(sent, redisCounted);
  return { processes, connections: load, measured, backends, redisCounted, switches: switches.taken };
}

/** Adds a run to its configuration (by process count and load): runs listed, counts summed, the most backends kept. */
function addRun(configurations: Map<string, Configuration>, run: Omit<Configuration, 'runs'> & { measured: Measured }): void {
  const key = `${run.processes}/${run.connections}`;
  const known = configurations.get(key) ?? { processes: run.processes, connections: run.connections, runs: [], backends: [], redisCounted: 0, switches: { voluntary: 0, involuntary: 0 } };
  known.runs.push(run.measured);
  known.switches = addSwitches(known.switches, run.switches);
  known.backends = run.backends.map((n, i) => Math.max(n, known.backends[i] ?? 0));
  known.redisCounted += run.redisCounted;
  configurations.set(key, known);
}

const rowOf = (kind: Case, c: Configuration): Row => ({
  processes: c.processes,
  connections: c.connections,
  kind,
  measured: mergeRuns(c.runs),
  backends: c.backends,
  redisCounted: c.redisCounted,
  switches: c.switches,
  runs: c.runs.length,
});

/** Every rate-limit counter of this run's gateways, by key. */
async function counters(redis: Redis): Promise<Map<string, number>> {
  const values = new Map<string, number>();
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${keyPrefix}*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) {
      const found = await redis.mget(...keys);
      keys.forEach((key, i) => values.set(key, Number(found[i] ?? 0)));
    }
  } while (cursor !== '0');
  return values;
}

/** redis-server's CPU seconds so far (user + system), from INFO. */
async function redisCpu(redis: Redis): Promise<number> {
  const info = await redis.info('cpu');
  const field = (name: string) => Number(new RegExp(`^${name}:([\\d.]+)`, 'm').exec(info)?.[1] ?? 0);
  return field('used_cpu_user') + field('used_cpu_sys');
}

async function backendsByGateway(writer: BulkWriter, gateways: readonly Child[]): Promise<number[]> {
  const rows = await writer.query<{ application_name: string; n: string }>(
    'select application_name, count(*) as n from pg_stat_activity where datname = current_database() group by application_name',
  );
  const byName = new Map(rows.map((r) => [r.application_name, Number(r.n)]));
  return gateways.map((g) => byName.get(`pits-gateway-${g.process.pid}`) ?? 0);
}

/**
 * Starts `count` gateways on free ports and waits until each answers /readyz and, with Redis,
 * reports rate-limit headers (its Redis connection is up: before that it lets calls through uncounted).
 */
async function startGateways(count: number, env: Record<string, string>, tenant: SeedTenant): Promise<Child[]> {
  const started: Child[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const port = await freePort();
      const child = await startNode([join(ROOT, 'apps/gateway/dist/main.js')], { ...env, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: String(port) }, port, '/readyz');
      started.push(child);
      if (env.REDIS_URL) await untilCountedInRedis(child.url, tenant);
    }
    return started;
  } catch (error) {
    for (const child of started) await child.stop();
    throw error;
  }
}

async function untilCountedInRedis(url: string, tenant: SeedTenant): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await fetch(`${url}/api/engine/v1/adjustments/${tenant.adjustmentNumbers[0]!}`, { headers: { authorization: `Bearer ${tenant.apiKey}`, 'x-tenant-id': tenant.tenantId } });
    await res.arrayBuffer();
    if (res.headers.has('x-ratelimit-remaining')) return;
    if (Date.now() > deadline) throw new Error(`the gateway at ${url} does not count in Redis (${redisUrl})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const num = (n: number | null, width: number, digits = 0) => (n === null ? '-' : n.toFixed(digits)).padStart(width);

function printRows(rows: readonly Row[]): void {
  console.log(`\n[scale-out] N gateway processes on one PostgreSQL, rate limits in Redis; ${connections} connections round-robin over them, ${seconds} s per run after ${RUN_WARMUP_SECONDS} s warm-up (every process warmed first: ${warmupSeconds} s of each case); each row merges its runs (${runOrder(processCounts, rounds).join(' ')}, the control once mid-way): req/s their mean, p99 in ms their worst, CPU pooled`);
  console.log(
    `${'case'.padEnd(8)} ${'procs'.padStart(5)} ${'conns'.padStart(5)} ${'req/s'.padStart(7)} ${'p99'.padStart(6)} ${'non-2xx'.padStart(9)} ${'errors'.padStart(6)} ${'gw us/req'.padStart(9)} ${'vs 1p'.padStart(6)} ${'PG us/req'.padStart(9)} ${'gw cores'.padStart(8)} ${'PG cores'.padStart(8)}  ${'PG conns per gw'.padEnd(15)} ${'redis hits/sent'.padStart(15)} ${'preempt/req'.padStart(11)} ${'waits/req'.padStart(9)}`,
  );
  for (const r of rows) {
    const base = rows.find((b) => b.kind === r.kind && b.processes === 1 && b.connections === connections)?.measured.cpuUs ?? null;
    const m = r.measured;
    console.log(
      `${r.kind.padEnd(8)} ${String(r.processes).padStart(5)} ${String(r.connections).padStart(5)} ${num(m.requestsPerSecond, 7)} ${num(m.p99, 6)} ${nonOk(m).padStart(9)} ${String(m.errors).padStart(6)} ${num(m.cpuUs, 9)} ${num(ratio(m.cpuUs, base), 6, 2)} ${num(m.dbCpuUs, 9)} ${num(coresUsed(m.cpuUs, m.sent / seconds), 8, 2)} ${num(coresUsed(m.dbCpuUs, m.sent / seconds), 8, 2)}  ${r.backends.join('+').padEnd(15)} ${`${r.redisCounted}/${m.sent}`.padStart(15)} ${num(r.switches && m.sent ? r.switches.involuntary / m.sent : null, 11, 2)} ${num(r.switches && m.sent ? r.switches.voluntary / m.sent : null, 9, 2)}`,
    );
  }
  console.log('  gw us/req: the gateway processes\' user+system CPU over the run, once they have settled (summed) / requests sent; PG us/req: the same for the PostgreSQL backends of the database;');
  if (rows.some((r) => r.connections !== connections)) {
    console.log(`  the 1-process runs at fewer connections are a control: one process at the concurrency each of ${Math.max(...processCounts)} processes gets, so its CPU per request shows what less batching per process costs`);
  }
  console.log('  preempt/req, waits/req: the gateways\' involuntary (the scheduler took the CPU away) and voluntary (waiting on I/O) context switches per request sent');
  console.log('  cores: CPU seconds per second of run; PG conns per gw: backends each gateway held at the end of the run; redis hits/sent: tier-bucket counts Redis took / requests sent (the denominator of us/req)');
}

function printCapacity(all: readonly Row[]): Map<number, number | null> {
  const rows = all.filter((r) => r.connections === connections);
  const smallest = Math.min(...rows.map((r) => r.processes));
  console.log(`\n[scale-out] capacity model (from the ${smallest}-process runs): requests per second one core serves = 1 / CPU seconds per request`);
  console.log(`${'case'.padEnd(8)} ${'gw req/s per core'.padStart(17)} ${'PG req/s per core'.padStart(17)} ${'gw cores per PG core'.padStart(20)}`);
  for (const kind of cases) {
    const m = rows.find((r) => r.kind === kind && r.processes === smallest)?.measured;
    if (!m) continue;
    console.log(`${kind.padEnd(8)} ${num(perCore(m.cpuUs), 17)} ${num(perCore(m.dbCpuUs), 17)} ${num(gatewayCoresPerDatabaseCore(m.cpuUs, m.dbCpuUs), 20, 1)}`);
  }
  return ratiosToOneProcess(rows, 'gateway CPU/request');
}

/**
 * Gateway CPU per request at each process count against 1 process, per case (printed, with
 * whether all are within the 10 % goal); returns their mean over the cases by process count.
 */
function ratiosToOneProcess(rows: readonly Row[], label: string): Map<number, number | null> {
  const ratios = new Map<number, number | null>();
  for (const n of processCounts) {
    const perCase = cases.map((kind) => {
      const at = (p: number) => rows.find((r) => r.kind === kind && r.processes === p)?.measured.cpuUs ?? null;
      return ratio(at(n), at(1));
    });
    ratios.set(n, meanOf(perCase));
    if (n !== 1) {
      const line = perCase.map((r, i) => `${cases[i]} ${num(r, 0, 2)}`).join(', ');
      const within = perCase.every((r) => r !== null && r <= 1.1);
      console.log(`${label} ${n}p/1p by case: ${line} (${within ? 'all within' : 'NOT all within'} 10 %)`);
    }
  }
  return ratios;
}

/** The paced rows: every process at one fixed rate per case; returns the mean ratio to 1 process by count. */
function printPaced(rows: readonly Row[]): Map<number, number | null> {
  if (rows.length === 0) return new Map();
  console.log(
    `\n[scale-out] paced: every process at one fixed rate, ${Math.round(pacedShare * 100)} % of the req/s one process served flat out in the case (N processes serve N times the requests of one), over the same ${connections} connections; runs ${runOrder(processCounts, rounds).join(' ')}; requests counted by their Redis hits`,
  );
  console.log(
    `${'case'.padEnd(8)} ${'procs'.padStart(5)} ${'rate/proc'.padStart(9)} ${'req/s'.padStart(7)} ${'p99'.padStart(6)} ${'non-2xx'.padStart(9)} ${'gw us/req'.padStart(9)} ${'vs 1p'.padStart(6)} ${'PG us/req'.padStart(9)} ${'redis hits/sent'.padStart(15)} ${'preempt/req'.padStart(11)}`,
  );
  for (const r of rows) {
    const base = rows.find((b) => b.kind === r.kind && b.processes === 1)?.measured.cpuUs ?? null;
    const m = r.measured;
    console.log(
      `${r.kind.padEnd(8)} ${String(r.processes).padStart(5)} ${String(r.rate ?? '-').padStart(9)} ${num(m.requestsPerSecond, 7)} ${num(m.p99, 6)} ${nonOk(m).padStart(9)} ${num(m.cpuUs, 9)} ${num(ratio(m.cpuUs, base), 6, 2)} ${num(m.dbCpuUs, 9)} ${`${r.redisCounted}/${m.sent}`.padStart(15)} ${num(r.switches && m.sent ? r.switches.involuntary / m.sent : null, 11, 2)}`,
    );
  }
  return ratiosToOneProcess(rows, 'paced gateway CPU/request');
}

async function printBudget(writer: BulkWriter, rows: readonly Row[]): Promise<void> {
  const [max] = await writer.query<{ max_connections: string }>('show max_connections');
  const [reserved] = await writer.query<{ superuser_reserved_connections: string }>('show superuser_reserved_connections');
  const maxConnections = Number(max?.max_connections ?? 0);
  const reserve = Number(reserved?.superuser_reserved_connections ?? 0);
  // An internal API and a webhook worker beside the gateways, at the default pool each.
  const others = 2 * POOL_SIZE;
  const peak = Math.max(0, ...rows.flatMap((r) => r.backends));
  console.log(`\n[scale-out] PostgreSQL connections: max_connections ${maxConnections}, ${reserve} reserved for superusers; an internal API and a webhook worker at DB_POOL_SIZE ${POOL_SIZE} take ${others}`);
  for (const n of [...new Set([...processCounts, 4, 8])].sort((a, b) => a - b)) {
    const budget = connectionBudget({ maxConnections, reserved: reserve, others, processes: n, poolSize: POOL_SIZE });
    console.log(`  ${n} gateway process${n === 1 ? '' : 'es'}: at most DB_POOL_SIZE ${budget.perProcess} each (of ${budget.available})`);
  }
  const budget = connectionBudget({ maxConnections, reserved: reserve, others, processes: 1, poolSize: POOL_SIZE });
  console.log(`  at DB_POOL_SIZE ${POOL_SIZE} the budget holds ${budget.processesAtPool} gateway processes; under ${connections} connections of load a gateway held at most ${peak} backends`);
}

interface RedisCost {
  memoryUs: number | null;
  redisUs: number | null;
  redisServerUs: number | null;
}

/** One gateway counting in memory against one counting in Redis, `redisCase` in alternating rounds. */
async function measureRedisCost(env: Record<string, string>, redisEnv: Record<string, string>, tenants: readonly SeedTenant[], writer: BulkWriter, redis: Redis): Promise<RedisCost> {
  const [memory] = await startGateways(1, env, tenants[0]!);
  const children = [memory!];
  try {
    const [counting] = await startGateways(1, { ...env, ...redisEnv }, tenants[0]!);
    children.push(counting!);
    for (const [store, gateway] of [['memory', memory!], ['redis', counting!]] as const) {
      await warmUp({ kind: redisCase, url: gateway.url, pids: [gateway.process.pid], tenants, writer, seconds: warmupSeconds, connections, approvePerSecond, poolSeed: 39 }, `${store} store ${redisCase}`);
    }
    const runs: Record<'memory' | 'redis', Measured[]> = { memory: [], redis: [] };
    let serverCpu = 0;
    for (let round = 0; round < redisRounds; round += 1) {
      // Alternate which goes first, so a drift in the machine's load falls on both.
      const order = round % 2 === 0 ? (['memory', 'redis'] as const) : (['redis', 'memory'] as const);
      for (const store of order) {
        const gateway = store === 'memory' ? memory! : counting!;
        let before = 0;
        const { measured } = await runCase(
          {
            kind: redisCase, url: gateway.url, pids: [gateway.process.pid], tenants, writer, seconds, warmupSeconds: RUN_WARMUP_SECONDS, connections, approvePerSecond, poolSeed: 40 + round,
            around: { before: async () => void (before = await redisCpu(redis)), after: async () => void (serverCpu += store === 'redis' ? (await redisCpu(redis)) - before : 0) },
          },
          `${store} store ${redisCase} round ${round + 1}`,
        );
        runs[store].push(measured);
      }
    }
    const redisRequests = runs.redis.reduce((sum, m) => sum + m.sent, 0);
    const cost = { memoryUs: mergeRuns(runs.memory).cpuUs, redisUs: mergeRuns(runs.redis).cpuUs, redisServerUs: redisRequests > 0 ? (serverCpu * 1e6) / redisRequests : null };
    console.log(`\n[scale-out] what Redis costs: 1 gateway, ${redisCase}, ${redisRounds} alternating rounds of ${seconds} s per store`);
    for (const store of ['memory', 'redis'] as const) {
      for (const [i, m] of runs[store].entries()) {
        console.log(`  ${`${store} store`.padEnd(12)} round ${i + 1}: ${num(m.requestsPerSecond, 6)} req/s, p99 ${m.p99} ms, non-2xx ${nonOk(m)}, gateway ${num(m.cpuUs, 0)} us/req, PG ${num(m.dbCpuUs, 0)} us/req`);
      }
    }
    const added = cost.memoryUs === null || cost.redisUs === null ? null : cost.redisUs - cost.memoryUs;
    console.log(
      `  gateway CPU per request: ${num(cost.memoryUs, 0)} us counting in memory, ${num(cost.redisUs, 0)} us counting in Redis: Redis adds ${num(added, 0)} us (goal: at most 100); redis-server used ${num(cost.redisServerUs, 1)} us per request (a shared server: other clients' work counts too)`,
    );
    return cost;
  } finally {
    for (const child of children) await child.stop();
  }
}

async function deleteKeys(redis: Redis): Promise<number> {
  const keys = [...(await counters(redis)).keys()];
  if (keys.length > 0) await redis.del(...keys);
  return keys.length;
}

async function main(): Promise<void> {
  const started = performance.now();
  let writer: BulkWriter | undefined;
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  let gateways: Child[] = [];
  let created = false;
  try {
    await redis.connect();
    const target = { dialect: 'postgres', url: await createPostgresDatabase(pgAdminUrl, pgName) } as const;
    created = true;
    const database = createDatabase(target);
    await migrateOrThrow(database);
    writer = await openBulkWriter(target);
    const tenants = await seedForLoad(database, writer, 'postgres');
    await database.destroy();

    const env = { DATABASE_URL: target.url, CREDENTIALS_KEY, LOG_LEVEL: 'warn', DB_POOL_SIZE: String(POOL_SIZE), RATE_LIMIT_SMALL: '1000000', RATE_LIMIT_OPERATION: '1000000' };
    const redisEnv = { REDIS_URL: redisUrl, RATE_LIMIT_KEY_PREFIX: keyPrefix };
    const rows: Row[] = [];
    const pacedRows: Row[] = [];
    // The most processes any run needs, started once: a run at N processes loads the first N, and
    // the others sit idle. Each is warmed on every case first, so none is measured cold, and the
    // runs at 1, 2 and 3 processes of a case follow each other, close in time.
    const most = Math.max(...processCounts);
    gateways = await startGateways(most, { ...env, ...redisEnv }, tenants[0]!);
    for (const kind of cases) {
      await warmUp({ kind, url: gateways.map((g) => g.url), pids: gateways.map((g) => g.process.pid), tenants, writer, seconds: warmupSeconds * gateways.length, connections, approvePerSecond, poolSeed: 30 }, `${gateways.length}p ${kind}`);
    }
    // Each case at every process count with all the connections, in rounds forward and backward,
    // with the control (one process at the connections each gets at the most processes) mid-way.
    const order = runOrder(processCounts, rounds);
    const plan: [number, number][] = order.map((n) => [n, connections]);
    if (control && most > 1) plan.splice(Math.ceil(order.length / 2), 0, [1, Math.round(connections / most)]);
    for (const kind of cases) {
      const byConfiguration = new Map<string, Configuration>();
      for (const [processes, load] of plan) {
        const run = await measureConfiguration({ kind, gateways, processes, connections: load, tenants, writer, redis });
        addRun(byConfiguration, run);
        console.log(`[scale-out] ${processes}p ${load}c ${kind}: ${run.measured.requestsPerSecond.toFixed(0)} req/s, gateway ${num(run.measured.cpuUs, 0)} us/req, PG ${num(run.measured.dbCpuUs, 0)} us/req`);
      }
      // Full load by process count, then the control.
      const configurations = [...byConfiguration.values()].sort((a, b) => b.connections - a.connections || a.processes - b.processes);
      for (const c of configurations) rows.push(rowOf(kind, c));
      // The same process counts paced: every process at one fixed rate (a share of what one
      // process served flat out), so each serves the same stream whatever the count.
      const rate = pacedRate(rows.find((r) => r.kind === kind && r.processes === 1 && r.connections === connections)?.measured.requestsPerSecond ?? null, pacedShare);
      if (rate === null) continue;
      const paced = new Map<string, Configuration>();
      for (const processes of order) {
        const run = await measureConfiguration({ kind, gateways, processes, connections, tenants, writer, redis, rate: rate * processes });
        addRun(paced, run);
        console.log(`[scale-out] ${processes}p ${connections}c ${kind} at ${rate} req/s per process: gateway ${num(run.measured.cpuUs, 0)} us/req, PG ${num(run.measured.dbCpuUs, 0)} us/req`);
      }
      for (const c of [...paced.values()].sort((a, b) => a.processes - b.processes)) pacedRows.push({ ...rowOf(kind, c), rate });
    }
    for (const g of gateways) await g.stop();
    gateways = [];
    const cost = await measureRedisCost(env, redisEnv, tenants, writer, redis);

    printRows(rows);
    const ratios = printCapacity(rows);
    const pacedRatios = printPaced(pacedRows);
    await printBudget(writer, rows);
    const dirty = [...rows, ...pacedRows].filter((r) => r.measured.non2xx > 0 || r.measured.errors > 0);
    console.log(dirty.length ? `WARNING: non-2xx responses or socket errors in: ${dirty.map((r) => `${r.processes}p ${r.kind}`).join(', ')}` : '\nall responses 2xx, no socket errors');
    console.log(`load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs; whole run ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const added = cost.memoryUs === null || cost.redisUs === null ? null : cost.redisUs - cost.memoryUs;
    console.log(summaryLine(ratios, added, pacedRatios.size > 0 ? { share: pacedShare, ratios: pacedRatios } : undefined));
  } finally {
    for (const g of gateways) await g.stop();
    await writer?.close();
    if (created) await dropPostgresDatabase(pgAdminUrl, pgName);
    if (redis.status === 'ready') {
      const deleted = await deleteKeys(redis);
      console.log(`[scale-out] dropped database ${pgName}; deleted this run's ${deleted} Redis keys (${keyPrefix}*)`);
    }
    redis.disconnect();
  }
}

await main();
