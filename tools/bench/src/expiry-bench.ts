// npm run bench:expiry — how late order holds expire (docs/holds.md#states-and-expiry): two built
// gateway processes (apps/gateway/dist/main.js) sweep one database, on SQLite (a temp file) and on
// PostgreSQL (a throwaway database, created and dropped; skipped when the server is unreachable).
// It creates holds that expire in 60 s straight through the persistence API, spread evenly over
// BENCH_SPREAD_MS (so their expiries fall at every phase of the sweepers' runs, not all just
// before or just after one run), waits until the
// gateways have expired them all (at most BENCH_MAX_WAIT_MS after the last expiry), and prints,
// per dialect, the lateness of each expiry: released_at - expires_at, both taken from the
// database's clock, so the figure includes no clock skew between processes.
//
// Environment: BENCH_DIALECTS (sqlite,postgres), BENCH_HOLDS (200), BENCH_SPREAD_MS (30000), BENCH_GATEWAYS (2),
// BENCH_SWEEP_INTERVAL_MS (unset: the gateway's default RESERVATION_SWEEP_INTERVAL_MS),
// BENCH_MAX_WAIT_MS (180000), BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres, where
// pits_expiry_bench_<pid>_<random hex> is created and dropped).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, createDatabase, createReservation, migrateOrThrow } from '@pits/persistence';
import { execute, seedTenantWorld } from '@pits/persistence/testing';
import { type Child, createPostgresDatabase, dropPostgresDatabase, postgresReachable, startGateway } from './bench-harness.js';
import { percentile } from './latency-stats.js';

type BenchDialect = 'sqlite' | 'postgres';

const dialects = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()).filter(Boolean) as BenchDialect[];
const holds = Number(process.env.BENCH_HOLDS ?? 200);
const spreadMs = Number(process.env.BENCH_SPREAD_MS ?? 30_000);
const gatewayCount = Number(process.env.BENCH_GATEWAYS ?? 2);
const sweepIntervalMs = process.env.BENCH_SWEEP_INTERVAL_MS;
const maxWaitMs = Number(process.env.BENCH_MAX_WAIT_MS ?? 180_000);
const pgAdminUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
// The harness drops a database of this name before creating it: the random part keeps two runs
// (or a pid reused since a run that was killed) from dropping each other's.
const pgName = `pits_expiry_bench_${process.pid}_${randomBytes(4).toString('hex')}`;
const EXPIRES_IN_SECONDS = 60;
const CREDENTIALS_KEY = 'e'.repeat(64);

for (const [name, value, min] of [['BENCH_HOLDS', holds, 1], ['BENCH_GATEWAYS', gatewayCount, 1], ['BENCH_SPREAD_MS', spreadMs, 0], ['BENCH_MAX_WAIT_MS', maxWaitMs, 1000]] as const) {
  if (!Number.isSafeInteger(value) || value < min) throw new Error(`${name}: a whole number of at least ${min}, got ${String(value)}`);
}

interface Lateness {
  dialect: BenchDialect;
  expired: number;
  notExpired: number;
  /** Milliseconds, ascending. */
  lateMs: number[];
  createSeconds: number;
}

const millis = (value: unknown): number => new Date(value as string | Date).getTime();

/** One hold after another, the i-th at i / holds of the spread (or as soon as the previous one is in, when later). */
async function createHolds(database: Database, world: Awaited<ReturnType<typeof seedTenantWorld>>): Promise<void> {
  const started = performance.now();
  for (let i = 0; i < holds; i += 1) {
    const wait = started + (i * spreadMs) / holds - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    await createReservation(database, {
      tenantId: world.tenant.id,
      partnerId: world.partner.id,
      actor: world.actor,
      locationId: world.locations[0].id,
      reference: `bench-${i}`,
      expiresIn: EXPIRES_IN_SECONDS,
      items: [{ productId: world.products[0]!.id, quantity: 1 }],
    });
  }
}

async function runDialect(dialect: BenchDialect): Promise<Lateness | null> {
  const dir = mkdtempSync(join(tmpdir(), 'pits-expiry-bench-'));
  let database: Database | undefined;
  const gateways: Child[] = [];
  try {
    let databaseUrl: string;
    if (dialect === 'sqlite') {
      databaseUrl = join(dir, 'bench.sqlite');
    } else {
      const unreachable = await postgresReachable(pgAdminUrl);
      if (unreachable) {
        console.log(`[postgres] skipped: ${pgAdminUrl} is not reachable (${unreachable}); set BENCH_PG_URL`);
        return null;
      }
      databaseUrl = await createPostgresDatabase(pgAdminUrl, pgName);
    }
    database = createDatabase(dialect === 'sqlite' ? { dialect: 'sqlite', location: databaseUrl } : { dialect: 'postgres', url: databaseUrl });
    await migrateOrThrow(database);
    const world = await seedTenantWorld(database, { products: 1, openingGood: String(holds), label: 'Expiry' });

    for (let i = 0; i < gatewayCount; i += 1) {
      const env: Record<string, string> = { DATABASE_URL: databaseUrl, CREDENTIALS_KEY, LOG_LEVEL: 'warn' };
      if (sweepIntervalMs !== undefined) env.RESERVATION_SWEEP_INTERVAL_MS = sweepIntervalMs;
      gateways.push(await startGateway(env));
    }

    const created = performance.now();
    await createHolds(database, world);
    const createSeconds = (performance.now() - created) / 1000;
    console.log(`[${dialect}] ${holds} holds created in ${createSeconds.toFixed(1)} s, expiring in ${EXPIRES_IN_SECONDS} s; ${gatewayCount} gateways sweeping`);

    const tenantHolds = () => database!.db.selectFrom('reservations').where('tenant_id', '=', world.tenant.id);
    const latest = await execute(database, tenantHolds().select((eb) => eb.fn.max('expires_at').as('last')));
    const deadline = millis(latest[0]!.last) + maxWaitMs;
    for (;;) {
      const active = await execute(database, tenantHolds().select((eb) => eb.fn.countAll<number>().as('n')).where('status', '=', 'active'));
      if (Number(active[0]!.n) === 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 500));
    }

    const rows = await execute(database, tenantHolds().select(['status', 'expires_at', 'released_at']));
    const expired = rows.filter((r) => r.status === 'expired' && r.released_at !== null);
    const lateMs = expired.map((r) => millis(r.released_at) - millis(r.expires_at)).sort((a, b) => a - b);
    return { dialect, expired: expired.length, notExpired: rows.length - expired.length, lateMs, createSeconds };
  } finally {
    for (const gateway of gateways) await gateway.stop();
    await database?.destroy();
    if (dialect === 'postgres') await dropPostgresDatabase(pgAdminUrl, pgName).catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  }
}

const results: Lateness[] = [];
for (const dialect of dialects) {
  const result = await runDialect(dialect);
  if (result) results.push(result);
}

const interval = sweepIntervalMs ? `RESERVATION_SWEEP_INTERVAL_MS=${sweepIntervalMs}` : 'the default RESERVATION_SWEEP_INTERVAL_MS';
console.log(`\nexpiry lateness (released_at - expires_at, database clock), ${holds} holds of ${EXPIRES_IN_SECONDS} s created over ${spreadMs / 1000} s, ${gatewayCount} gateway processes, ${interval}`);
console.log(`${'dialect'.padEnd(10)} ${'expired'.padStart(8)} ${'missed'.padStart(7)} ${'min s'.padStart(7)} ${'p50 s'.padStart(7)} ${'p95 s'.padStart(7)} ${'max s'.padStart(7)}`);
const seconds = (ms: number) => (ms / 1000).toFixed(1).padStart(7);
for (const r of results) {
  console.log(`${r.dialect.padEnd(10)} ${String(r.expired).padStart(8)} ${String(r.notExpired).padStart(7)} ${seconds(r.lateMs[0] ?? Number.NaN)} ${seconds(percentile(r.lateMs, 50))} ${seconds(percentile(r.lateMs, 95))} ${seconds(r.lateMs.at(-1) ?? Number.NaN)}`);
}
console.log(`load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs`);
const missed = results.some((r) => r.notExpired > 0);
const late = results.some((r) => (r.lateMs.at(-1) ?? 0) > 60_000);
console.log(`expiry: ${missed ? 'SOME HOLDS NOT EXPIRED' : late ? 'SOME EXPIRED LATER THAN 60 s' : 'every hold expired within 60 s of its expiry'}`);
