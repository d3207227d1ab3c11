// npm run bench:verify — does stock.verify cost more as a tenant's history grows (issue 27)? One
// tenant (two locations, twenty products, so 40 stock rows) is seeded with 10,000, then 100,000
// adjustments and their ledger rows, and the same 2,000 transfers at both sizes, so the documents
// that still hold stock (approved transfers) stay as many while the history grows tenfold
// (inventory-seed.ts, a fresh database per size), on SQLite (a
// temp file) and PostgreSQL (a database created and dropped on the server). At each size, in
// process: the p50 and max of `verifyStock` for the tenant (one snapshot; each bucket checked at
// its newest ledger row) and, for reference, of `findLedgerMismatches` (the sum of the whole
// ledger, what verify did before). Goal: verify at the larger size within 1.5 x the smaller.
//
// Environment: BENCH_DIALECTS (sqlite,postgres), BENCH_ITERATIONS (200), BENCH_PG_URL
// (postgres://postgres@127.0.0.1:5432/postgres, where pits_verify_<pid>_<size> is created and dropped).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDatabase, findLedgerMismatches, migrateOrThrow, verifyStock } from '@pits/persistence';
import { createPostgresDatabase, dropPostgresDatabase } from './bench-harness.js';
import { openBulkWriter, seedInventory } from './inventory-seed.js';
import type { BenchDialect } from './inventory-sql.js';
import { percentile, timedCalls } from './latency-stats.js';

const dialects = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()).filter(Boolean) as BenchDialect[];
for (const d of dialects) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`BENCH_DIALECTS: unknown dialect ${d}`);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 200);
const pgAdminUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SIZES = [10_000, 100_000];
/** Transfers at every size: their approved ones are what verify reads besides the stock rows. */
const TRANSFERS = 2_000;

async function timed(run: () => Promise<unknown>): Promise<{ p50: number; max: number }> {
  const times = await timedCalls(run, iterations);
  return { p50: percentile(times, 50), max: times.at(-1)! };
}

interface Row {
  dialect: BenchDialect;
  adjustments: number;
  ledgerRows: number;
  verify: { p50: number; max: number };
  ledgerSum: { p50: number; max: number };
}

async function measure(dialect: BenchDialect, adjustments: number): Promise<Row> {
  const dir = mkdtempSync(join(tmpdir(), 'pits-verify-'));
  const pgName = `pits_verify_${process.pid}_${adjustments}`;
  let target: { dialect: 'sqlite'; location: string } | { dialect: 'postgres'; url: string };
  if (dialect === 'sqlite') target = { dialect: 'sqlite', location: join(dir, 'verify.sqlite') };
  else target = { dialect: 'postgres', url: await createPostgresDatabase(pgAdminUrl, pgName) };
  const database = createDatabase(target.dialect === 'sqlite' ? target : { dialect: 'postgres', url: target.url });
  try {
    await migrateOrThrow(database);
    const writer = await openBulkWriter(target);
    let seeded;
    try {
      seeded = await seedInventory(database, writer, { tenants: 1, adjustmentsPerTenant: adjustments, transfersPerTenant: TRANSFERS, now: new Date() });
    } finally {
      await writer.close();
    }
    const tenantId = seeded.tenants[0]!.tenantId;
    const found = await verifyStock(database, tenantId);
    if (found.length > 0) throw new Error(`the seeded database does not verify: ${JSON.stringify(found.slice(0, 3))}`);
    return {
      dialect,
      adjustments,
      ledgerRows: seeded.counts.ledgerRows,
      verify: await timed(() => verifyStock(database, tenantId)),
      ledgerSum: await timed(() => findLedgerMismatches(database, tenantId)),
    };
  } finally {
    await database.destroy();
    if (dialect === 'postgres') await dropPostgresDatabase(pgAdminUrl, pgName);
    rmSync(dir, { recursive: true, force: true });
  }
}

const ms = (value: number) => value.toFixed(2).padStart(9);
console.log(`bench:verify, ${iterations} calls per case; ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
console.log('dialect    adjustments  ledger rows  verify p50  verify max  ledger-sum p50  ledger-sum max   (ms)');
const rows: Row[] = [];
for (const dialect of dialects) {
  for (const size of SIZES) {
    const row = await measure(dialect, size);
    rows.push(row);
    console.log(
      `${dialect.padEnd(10)} ${String(row.adjustments).padStart(11)} ${String(row.ledgerRows).padStart(12)} ${ms(row.verify.p50)}   ${ms(row.verify.max)}   ${ms(row.ledgerSum.p50).padStart(13)}   ${ms(row.ledgerSum.max).padStart(13)}`,
    );
  }
}
let missed = false;
for (const dialect of dialects) {
  const [small, large] = [rows.find((r) => r.dialect === dialect && r.adjustments === SIZES[0]), rows.find((r) => r.dialect === dialect && r.adjustments === SIZES[1])];
  if (!small || !large) continue;
  const ratio = large.verify.p50 / small.verify.p50;
  const sumRatio = large.ledgerSum.p50 / small.ledgerSum.p50;
  console.log(`${dialect}: verify p50 ${ratio.toFixed(2)} x from ${SIZES[0]} to ${SIZES[1]} adjustments (goal <= 1.5); the ledger sum ${sumRatio.toFixed(2)} x`);
  if (ratio > 1.5) missed = true;
}
console.log(missed ? 'goal missed' : 'goal met');
process.exitCode = missed ? 1 : 0;
