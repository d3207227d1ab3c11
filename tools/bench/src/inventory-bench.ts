// npm run bench:inventory — requests per second and p50/p99 latency of the adjustment endpoints
// (create, detail, list, approve), the stock count and order holds (reserve: a hold of two lines
// created, then consumed; two HTTP requests per hold, each counted as a request; reserve-lots: the
// same on lot-tracked products, three lots each, one short-dated, allocated first expired first
// out, and compared with reserve too) through the whole gateway, each beside a bare Koa route that
// runs the same SQL straight on the driver (bare-inventory-server.ts), in the same run, on SQLite
// and on PostgreSQL. Both servers are child processes; autocannon runs here with 50 connections.
// The database is seeded with 100,000 adjustments and 20,000 transfers over 5 tenants.
// Goal: every endpoint at no less than half of its bare route's requests per second.
//
// Environment: BENCH_SECONDS (10), BENCH_DIALECTS (sqlite,postgres), BENCH_CASES
// (create,detail,list,approve,count,reserve,reserve-lots), BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres, where
// a database pits_bench_<pid> is created and dropped), BENCH_APPROVE_POOL_PER_SECOND (4000: pending
// adjustments written per second of an approve run), BENCH_PROFILE_DIR (run the gateway under
// --cpu-prof, profiles written there when it stops), BENCH_ROUNDS (1: runs of each side per case,
// alternating gateway bare bare gateway …, so a drift of the machine falls on both sides alike;
// each round runs every case in turn, backwards on odd rounds, so it falls on the cases alike
// too; req/s is their mean, p99 their worst, CPU pooled over their requests, and each round's
// ratios are printed under the table).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { type Database, createDatabase, databaseToday, migrateOrThrow } from '@pits/persistence';
import { type Child, ROOT, freePort, startNode } from './bench-harness.js';
import { checkBareRoutesAgainstGateway } from './gateway-sql-capture.js';
import {
  CASES,
  COUNT_LINES,
  CREATE_LINES,
  CREDENTIALS_KEY,
  type Case,
  HOLD_CASES,
  type Measured,
  PATHS,
  RESERVE_LINES,
  SEED,
  casesFrom,
  createPostgresDatabase,
  dropPostgresDatabase,
  isHoldCase,
  nonOk,
  requestsFor,
  reserveCapacity,
  runCase,
  seedForLoad,
} from './inventory-load.js';
import { type BulkWriter, type SeedTenant, openBulkWriter, writePendingPool } from './inventory-seed.js';
import type { BenchDialect } from './inventory-sql.js';
import { mergeRuns, ratio, runOrder } from './scale-out-model.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const warmupSeconds = Math.min(2, seconds);
const connections = 50;
const dialects = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()).filter(Boolean) as BenchDialect[];
const cases = casesFrom(process.env.BENCH_CASES);
const pgAdminUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const approvePerSecond = Number(process.env.BENCH_APPROVE_POOL_PER_SECOND ?? 4000);
const profileDir = process.env.BENCH_PROFILE_DIR;
const rounds = Number(process.env.BENCH_ROUNDS ?? 1);
if (!Number.isSafeInteger(rounds) || rounds < 1) throw new Error(`BENCH_ROUNDS: a whole number of at least 1, got ${process.env.BENCH_ROUNDS}`);

for (const d of dialects) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`BENCH_DIALECTS: unknown dialect ${d}`);

type Side = 'gateway' | 'bare';

interface Pair {
  kind: Case;
  path: string;
  /** Every round merged. */
  gateway: Measured;
  bare: Measured;
  /** Each round's run of each side, in round order. */
  rounds: Record<Side, Measured[]>;
}

/** The runs of one side as one: req/s their mean, p99 their worst, CPU pooled over their requests. */
const merged = (side: Side, runs: readonly Measured[]): Measured => ({ name: side, ...mergeRuns(runs) });

/** gateway ÷ bare of req/s, and of CPU per request (null where it was not measured). */
function sideBySide(gateway: Measured, bare: Measured): { throughput: number | null; cpu: number | null } {
  return { throughput: ratio(gateway.requestsPerSecond, bare.requestsPerSecond), cpu: ratio(gateway.cpuUs, bare.cpuUs) };
}

/** The structure of a JSON value: keys and value types, arrays by their first element. */
function shapeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return `[${value.length ? shapeOf(value[0]) : ''}]`;
  if (typeof value === 'object') {
    return `{${Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${k}:${shapeOf(v)}`).join(',')}}`;
  }
  return typeof value;
}

/** One request of each case to both servers: same status, same JSON shape (values may differ). */
async function compareResponses(targets: { gateway: string; bare: string }, tenants: readonly SeedTenant[], writer: BulkWriter): Promise<string[]> {
  const problems: string[] = [];
  const approvals = { entries: await writePendingPool(writer, tenants.slice(0, 1), 2, new Date(), 3), next: 0 };
  for (const kind of CASES) {
    // Each request of the case in turn (reserve: its create, then its consume), as autocannon sends them.
    const answers: Record<'gateway' | 'bare', { status: number; shape: string }[]> = { gateway: [], bare: [] };
    for (const side of ['gateway', 'bare'] as const) {
      const context = {};
      for (const template of requestsFor(kind, tenants, approvals)) {
        const request = (template.setupRequest as (r: autocannon.Request, c: object) => autocannon.Request | null)({}, context);
        if (!request) break;
        const res = await fetch(`${targets[side]}${request.path}`, { method: request.method!, headers: request.headers as Record<string, string>, ...(request.body ? { body: request.body as string } : {}) });
        const text = await res.text();
        if (typeof template.onResponse === 'function') template.onResponse(res.status, text, context, {});
        answers[side].push({ status: res.status, shape: shapeOf(JSON.parse(text)) });
      }
    }
    for (const [i, g] of answers.gateway.entries()) {
      const b = answers.bare[i];
      const which = answers.gateway.length > 1 ? `${kind} request ${i + 1}` : kind;
      if (!b) problems.push(`${which}: the bare side never sent it`);
      else if (g.status !== b.status) problems.push(`${which}: gateway ${g.status}, bare ${b.status}`);
      else if (g.shape !== b.shape) problems.push(`${which}: response shapes differ\n    gateway ${g.shape}\n    bare    ${b.shape}`);
    }
  }
  return problems;
}

const fmt = (n: number, width: number, digits = 0) => n.toFixed(digits).padStart(width);

function printPairs(title: string, pairs: Pair[]): void {
  console.log(`\n${title}`);
  console.log(
    `${'case'.padEnd(12)} ${'gw req/s'.padStart(9)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'bare req/s'.padStart(10)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)} ${'ratio'.padStart(6)}  ${'gw non-2xx'.padEnd(11)} ${'bare non-2xx'.padEnd(12)} ${'errors'.padStart(6)} ${'CPU us/req gw'.padStart(13)} ${'bare'.padStart(5)} ${'gw/bare'.padStart(7)}${pairs.some((p) => p.gateway.dbCpuUs !== null) ? ` ${'PG us/req gw'.padStart(12)} ${'bare'.padStart(5)}` : ''}`,
  );
  for (const p of pairs) {
    const { throughput, cpu: cpuRatio } = sideBySide(p.gateway, p.bare);
    const percent = (throughput ?? 0) * 100;
    const cpu = (m: Measured, width: number) => (m.cpuUs === null ? '-' : m.cpuUs.toFixed(0)).padStart(width);
    const db = (m: Measured, width: number) => (m.dbCpuUs === null ? '-' : m.dbCpuUs.toFixed(0)).padStart(width);
    console.log(
      `${p.kind.padEnd(12)} ${fmt(p.gateway.requestsPerSecond, 9)} ${fmt(p.gateway.p50, 7)} ${fmt(p.gateway.p99, 7)} ${fmt(p.bare.requestsPerSecond, 10)} ${fmt(p.bare.p50, 7)} ${fmt(p.bare.p99, 7)} ${`${percent.toFixed(0)}%`.padStart(6)}  ${nonOk(p.gateway).padEnd(11)} ${nonOk(p.bare).padEnd(12)} ${`${p.gateway.errors}/${p.bare.errors}`.padStart(6)} ${cpu(p.gateway, 13)} ${cpu(p.bare, 5)} ${(cpuRatio === null ? '-' : `${cpuRatio.toFixed(2)}x`).padStart(7)}${p.gateway.dbCpuUs !== null ? ` ${db(p.gateway, 12)} ${db(p.bare, 5)}` : ''}`,
    );
  }
  if (rounds > 1) {
    console.log(`each round, gateway ÷ bare (req/s, CPU per request):`);
    for (const p of pairs) {
      const each = p.rounds.gateway.map((g, i) => sideBySide(g, p.rounds.bare[i]!));
      console.log(`  ${p.kind.padEnd(12)} ${each.map((r) => `${r.throughput?.toFixed(2) ?? '-'} / ${r.cpu === null ? '-' : `${r.cpu.toFixed(2)}x`}`).join('   ')}`);
    }
  }
  const clean = (p: Pair) => p.gateway.non2xx === 0 && p.bare.non2xx === 0 && p.gateway.errors === 0 && p.bare.errors === 0;
  const meets = pairs.filter((p) => p.gateway.requestsPerSecond >= p.bare.requestsPerSecond / 2);
  const misses = pairs.filter((p) => p.gateway.requestsPerSecond < p.bare.requestsPerSecond / 2);
  console.log(`goal (gateway >= 50% of bare req/s): met by ${meets.map((p) => p.kind).join(', ') || 'none'}; missed by ${misses.map((p) => p.kind).join(', ') || 'none'}`);
  const dirty = pairs.filter((p) => !clean(p));
  console.log(dirty.length ? `WARNING: non-2xx responses or socket errors in: ${dirty.map((p) => p.kind).join(', ')} (see the columns above)` : 'all responses 2xx, no socket errors');
}

const times = (r: number | null) => (r === null ? '-' : `${r.toFixed(2)}x`);

/**
 * What lots cost a hold: reserve-lots against its own bare route, and against reserve on the same
 * side (req/s, and CPU per request the other way round), merged and round by round.
 */
function printLots(pairs: Pair[]): void {
  const plain = pairs.find((p) => p.kind === 'reserve');
  const lots = pairs.find((p) => p.kind === 'reserve-lots');
  if (!lots) return;
  const own = sideBySide(lots.gateway, lots.bare);
  console.log(`lots: reserve-lots gateway ÷ bare ${own.throughput?.toFixed(2) ?? '-'} req/s, CPU per request ${times(own.cpu)}`);
  if (!plain) return;
  for (const side of ['gateway', 'bare'] as const) {
    const merged = sideBySide(lots[side], plain[side]);
    const each = lots.rounds[side].map((m, i) => sideBySide(m, plain.rounds[side][i]!));
    console.log(
      `lots: reserve-lots ÷ reserve, ${side.padEnd(7)} ${merged.throughput?.toFixed(2) ?? '-'} req/s, CPU per request ${times(merged.cpu)}${rounds > 1 ? ` (each round: ${each.map((r) => `${r.throughput?.toFixed(2) ?? '-'} / ${times(r.cpu)}`).join('   ')})` : ''}`,
    );
  }
}

async function runDialect(dialect: BenchDialect): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'pits-inventory-bench-'));
  const pgName = `pits_bench_${process.pid}`;
  let database: Database | undefined;
  let writer: BulkWriter | undefined;
  const children: Child[] = [];
  try {
    const target =
      dialect === 'sqlite'
        ? ({ dialect: 'sqlite', location: join(dir, 'bench.sqlite') } as const)
        : ({ dialect: 'postgres', url: await createPostgresDatabase(pgAdminUrl, pgName) } as const);
    const databaseUrl = target.dialect === 'sqlite' ? target.location : target.url;
    database = createDatabase(target);
    await migrateOrThrow(database);
    writer = await openBulkWriter(target);
    const now = new Date();
    const tenants = await seedForLoad(database, writer, dialect);

    const [sample] = await writePendingPool(writer, tenants.slice(0, 1), 1, now, 1);
    const tenant = tenants[0]!;
    const checks = await checkBareRoutesAgainstGateway(target, { tenant, detailNumber: tenant.adjustmentNumbers[123]!, approveNumber: sample!.number, createLines: CREATE_LINES, countLines: COUNT_LINES, reserveLines: RESERVE_LINES });
    for (const check of checks) {
      if (check.matches) {
        console.log(`[${dialect}] SQL of ${check.kind}${check.lines ? ` (${check.lines} lines)` : ''}: the bare route runs the gateway's ${check.gateway.length} statements`);
      } else {
        console.log(`[${dialect}] SQL of ${check.kind} DIFFERS\n  gateway:\n    ${check.gateway.join('\n    ')}\n  bare:\n    ${check.bare.join('\n    ')}`);
      }
    }
    const today = await databaseToday(database);
    await database.destroy();
    database = undefined;
    for (const kind of HOLD_CASES.filter((k) => cases.includes(k))) {
      // Each consumed hold takes its units out of good for good: the stock must outlast every run
      // (warm-ups included, both sides, every round) at a rate well above what the machine reaches.
      const capacity = await reserveCapacity(writer, tenants, kind, today);
      const ceiling = 4000; // holds per second, far past both sides here
      const needed = Math.ceil((seconds + warmupSeconds) * rounds * 2 * ceiling);
      console.log(`[${dialect}] ${kind}: good stock for ${capacity} holds; the runs need at most ${needed} (${ceiling} holds/s)`);
      if (capacity < needed) throw new Error(`[${dialect}] ${kind}: the seeded good stock allows ${capacity} holds, fewer than ${needed}: lower BENCH_SECONDS or BENCH_ROUNDS`);
    }

    const gatewayPort = await freePort();
    const gatewayArgs = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=gateway-${dialect}-${process.pid}.cpuprofile`] : []), join(ROOT, 'apps/gateway/dist/main.js')];
    const env = { DATABASE_URL: databaseUrl, CREDENTIALS_KEY, LOG_LEVEL: 'warn' };
    children.push(await startNode(gatewayArgs, { ...env, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: String(gatewayPort), RATE_LIMIT_SMALL: '1000000' }, gatewayPort));
    const barePort = await freePort();
    // No fixed profile name for the bare server: tsx's loader thread writes a profile of its own.
    const bareArgs = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, `bare-${dialect}-${process.pid}`)}`] : []), '--import', 'tsx', join(ROOT, 'tools/bench/src/bare-inventory-server.ts')];
    children.push(await startNode(bareArgs, { ...env, PORT: String(barePort) }, barePort));
    const targets = { gateway: `http://127.0.0.1:${gatewayPort}`, bare: `http://127.0.0.1:${barePort}` };
    const pids = { gateway: children[0]!.process.pid, bare: children[1]!.process.pid };
    const problems = await compareResponses(targets, tenants, writer);
    console.log(problems.length ? `[${dialect}] RESPONSES DIFFER: ${problems.join('; ')}` : `[${dialect}] one request per case to both servers: same statuses and JSON shapes`);

    const results = new Map(cases.map((kind) => [kind, { gateway: [], bare: [] } as Record<Side, Measured[]>]));
    // Round by round, every case in turn (backwards on odd rounds), its two sides in the order of
    // that round: two rounds run each pair of runs as A B B A, so a drift of the machine falls on
    // cases and sides alike.
    const order = runOrder<Side>(['gateway', 'bare'], rounds);
    for (let round = 0; round < rounds; round += 1) {
      for (const kind of round % 2 === 0 ? cases : [...cases].reverse()) {
        for (const side of order.slice(2 * round, 2 * round + 2)) {
          const { measured, poolShort } = await runCase(
            { kind, url: targets[side], pids: [pids[side]], tenants, writer, seconds, warmupSeconds, connections, approvePerSecond, poolSeed: side === 'gateway' ? 11 : 12 },
            `${side} ${kind}`,
          );
          results.get(kind)![side].push(measured);
          if (poolShort) console.log(`[${dialect}] the approve pool ran out on ${side}: raise BENCH_APPROVE_POOL_PER_SECOND`);
        }
      }
    }
    const pairs: Pair[] = cases.map((kind) => {
      const runs = results.get(kind)!;
      return { kind, path: PATHS[kind], gateway: merged('gateway', runs.gateway), bare: merged('bare', runs.bare), rounds: runs };
    });
    printPairs(
      `[${dialect}] adjustments, ${seconds} s per run${rounds > 1 ? ` × ${rounds} rounds per side` : ''}, ${connections} connections, ${SEED.tenants} tenants (${SEED.adjustmentsPerTenant} adjustments and ${SEED.transfersPerTenant} transfers each); p50/p99 in ms`,
      pairs,
    );
    printLots(pairs);
    for (const p of pairs) console.log(`  ${p.kind.padEnd(12)} ${p.path}`);
    if (cases.some(isHoldCase)) console.log(`  ${HOLD_CASES.join(', ')}: req/s, latency and CPU count each HTTP request; a hold is two of them (holds/s = req/s ÷ 2, CPU per hold = 2 × CPU us/req)`);
    console.log(`  CPU us/req: the server process's user+system CPU over the measured run, read once it has served the run's last requests / requests sent${dialect === 'postgres' ? '; PG us/req: the same for the PostgreSQL backends serving it' : ' (SQLite runs inside it)'}; load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs`);
  } finally {
    for (const child of children) await child.stop();
    await writer?.close();
    await database?.destroy();
    if (dialect === 'postgres') await dropPostgresDatabase(pgAdminUrl, pgName);
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const dialect of dialects) await runDialect(dialect);
