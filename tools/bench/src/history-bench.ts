// npm run bench:history — does listing a tenant's adjustments cost more as its history grows
// (issue 15)? One tenant is seeded with 10,000, then 100,000, then 1,000,000 adjustments (bulk
// writes through the drivers, the kept list totals recounted after each step), on SQLite (a temp
// file) and PostgreSQL (a database created and dropped on the server). At each size, in process:
// the p50 of the repository's list call (page 1, 10 per page; unfiltered, by status, by status and
// location; and page 501 for depth), the p50 of its total alone (the kept counts) and its share of
// the list, and for reference a plain COUNT(*) of the same rows, which is what the total cost before.
// Goal: list p50 at 1M / at 10k <= 1.5 on both databases. The last line says it.
//
// Environment: BENCH_DIALECTS (sqlite,postgres), BENCH_ITERATIONS (300 per case and size),
// BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres, where pits_history_<pid> is created and dropped).
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type AdjustmentFilters,
  type Database,
  authorizeTenant,
  createDatabase,
  createLocation,
  createPartner,
  createTenant,
  grantAccess,
  listAdjustments,
  migrateOrThrow,
  recountListCounts,
} from '@pits/persistence';
import { keptAdjustmentTotal, newAdjustmentRow } from '@pits/persistence/bench';
import { createPostgresDatabase, dropPostgresDatabase } from './bench-harness.js';
import { timedCalls } from './latency-stats.js';
import { type BulkWriter, type SeedRow, documentNumber, openBulkWriter } from './inventory-seed.js';
import type { BenchDialect } from './inventory-sql.js';

const dialects = (process.env.BENCH_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim()).filter(Boolean) as BenchDialect[];
for (const d of dialects) if (d !== 'sqlite' && d !== 'postgres') throw new Error(`BENCH_DIALECTS: unknown dialect ${d}`);
const iterations = Number(process.env.BENCH_ITERATIONS ?? 300);
const pgAdminUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SIZES = [10_000, 100_000, 1_000_000];
const CHUNK = 50_000;
/** A plain COUNT(*) at 1M takes up to a second: a few runs of it are enough for a reference. */
const REFERENCE_ITERATIONS = 7;

interface History {
  tenantId: string;
  partnerId: number;
  actor: { id: number; name: string; email: string };
  locationIds: [number, number];
  start: number;
  written: number;
}

interface Case {
  name: string;
  filters: AdjustmentFilters;
  page: number;
}

interface Row {
  size: number;
  name: string;
  listP50: number;
  totalP50: number;
  countP50: number;
}

async function seedTenant(database: Database): Promise<History> {
  const at = new Date('2024-01-01T00:00:00.000Z');
  const partner = await createPartner(database, { name: 'History Partner', email: 'history@partner.example', tier: 'small' }, at);
  const tenant = await createTenant(database, { name: 'History Tenant' }, at);
  await grantAccess(database, { tenantId: tenant.id, partnerId: partner.id }, at);
  await authorizeTenant(database, { partnerId: partner.id, tenantId: tenant.id, daysConnected: 30, installationType: 'custom' }, at);
  const locationIds: number[] = [];
  for (const code of ['A', 'B']) {
    locationIds.push((await createLocation(database, tenant.id, { code: `WH-H-${code}`, name: `History Warehouse ${code}`, address: `Jl. Sejarah ${code}`, city: 'Jakarta' }, 'bench', at)).id);
  }
  const actor = { id: partner.id, name: partner.name, email: partner.email };
  return { tenantId: tenant.id, partnerId: partner.id, actor, locationIds: locationIds as [number, number], start: at.getTime(), written: 0 };
}

/**
 * Adds adjustments up to `size`, oldest first, 30 s apart: three in four approved, one in ten
 * pending, the rest rejected; 70 % increases; the two locations in turn. Only the documents: the
 * list reads neither their lines nor stock. Rows come from the repository's own row builder, so
 * no column list is kept here.
 */
async function growTo(writer: BulkWriter, history: History, size: number): Promise<void> {
  while (history.written < size) {
    const rows: SeedRow[] = [];
    const actor = JSON.stringify(history.actor);
    const end = Math.min(size, history.written + CHUNK);
    for (let i = history.written; i < end; i += 1) {
      const created = new Date(history.start + i * 30_000).toISOString();
      const decided = new Date(history.start + i * 30_000 + 5_000).toISOString();
      const roll = (i * 7919) % 100;
      const status = roll < 75 ? 'approved' : roll < 85 ? 'pending' : 'rejected';
      const type = (i * 104_729) % 10 < 7 ? 'increase' : 'decrease';
      rows.push({
        ...newAdjustmentRow({
          tenantId: history.tenantId, partnerId: history.partnerId, actor: history.actor, number: documentNumber('ADJ', created, i + 1), locationId: history.locationIds[i % 2]!,
          type, stockSource: 'good', reason: 'History', totalAmount: '1500.5', itemCount: 1, approval: status === 'approved' ? { at: decided, by: history.actor } : null, at: created,
        }),
        // The builder writes a new document (pending, or approved at once); a rejected one moved on since.
        ...(status === 'rejected' ? { status, rejected_at: decided, rejected_by: actor, rejection_reason: 'No' } : {}),
        updated_at: status === 'pending' ? created : decided,
      });
    }
    await writer.insert('adjustments', rows);
    history.written = end;
  }
}

async function p50(run: () => Promise<unknown>, times: number, warmUps = 20): Promise<number> {
  const samples = await timedCalls(run, times, warmUps);
  return samples[Math.floor(samples.length / 2)]!;
}

/** What the total cost before the kept counts: COUNT(*) over the matching rows. */
function plainCount(writer: BulkWriter, tenantId: string, filters: AdjustmentFilters): () => Promise<unknown> {
  const where = ['tenant_id = ?'];
  const params: (string | number)[] = [tenantId];
  if (filters.status) {
    where.push('status = ?');
    params.push(filters.status);
  }
  if (filters.locationId !== undefined) {
    where.push('location_id = ?');
    params.push(filters.locationId);
  }
  const text = `select count(*) as n from adjustments where ${where.join(' and ')}`;
  return () => writer.query(text, params);
}

const ms = (n: number) => n.toFixed(3).padStart(9);

async function runDialect(dialect: BenchDialect): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pits-history-bench-'));
  const pgName = `pits_history_${process.pid}`;
  let database: Database | undefined;
  let writer: BulkWriter | undefined;
  const rows: Row[] = [];
  try {
    const target =
      dialect === 'sqlite' ? ({ dialect: 'sqlite', location: join(dir, 'history.sqlite') } as const) : ({ dialect: 'postgres', url: await createPostgresDatabase(pgAdminUrl, pgName) } as const);
    database = createDatabase(target);
    await migrateOrThrow(database);
    writer = await openBulkWriter(target);
    const history = await seedTenant(database);
    const [a] = history.locationIds;
    const cases: Case[] = [
      { name: 'page 1', filters: {}, page: 1 },
      { name: 'page 1 status=pending', filters: { status: 'pending' }, page: 1 },
      { name: 'page 1 status+location', filters: { status: 'approved', locationId: a }, page: 1 },
      { name: 'page 501', filters: {}, page: 501 },
    ];
    for (const size of SIZES) {
      const started = performance.now();
      await growTo(writer, history, size);
      await recountListCounts(database, history.tenantId);
      await writer.analyze();
      const seeded = (performance.now() - started) / 1000;
      console.log(`[${dialect}] ${size.toLocaleString('en')} adjustments (grown and analysed in ${seeded.toFixed(1)} s)`);
      for (const c of cases) {
        const page = { page: c.page, perPage: 10 };
        const listed = await listAdjustments(database, history.tenantId, c.filters, page);
        if (listed.rows.length !== 10) throw new Error(`${c.name}: ${listed.rows.length} rows at ${size}`);
        const params = { tenantId: history.tenantId, status: c.filters.status, locationId: c.filters.locationId, type: c.filters.type };
        const row: Row = {
          size,
          name: c.name,
          listP50: await p50(() => listAdjustments(database!, history.tenantId, c.filters, page), iterations),
          totalP50: await p50(() => keptAdjustmentTotal(database!, params), iterations),
          countP50: await p50(plainCount(writer!, history.tenantId, c.filters), REFERENCE_ITERATIONS, 1),
        };
        rows.push(row);
        console.log(`  ${c.name.padEnd(24)} list p50 ${ms(row.listP50)} ms   total ${ms(row.totalP50)} ms (${((row.totalP50 / row.listP50) * 100).toFixed(0).padStart(3)} % of the list)   plain COUNT(*) ${ms(row.countP50)} ms   total=${listed.total}`);
      }
    }
  } finally {
    await writer?.close();
    await database?.destroy();
    if (dialect === 'postgres') await dropPostgresDatabase(pgAdminUrl, pgName);
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

const results = new Map<BenchDialect, Row[]>();
for (const dialect of dialects) results.set(dialect, await runDialect(dialect));

console.log(`\nlist p50 in ms, one tenant, ${iterations} calls per case and size (in process, repository list call, 10 per page); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs`);
console.log(`${'dialect'.padEnd(9)}${'case'.padEnd(25)}${SIZES.map((s) => `${s.toLocaleString('en')}`.padStart(12)).join('')}${'1M/10k'.padStart(9)}${'total share 1M'.padStart(16)}${'COUNT(*) 1M'.padStart(13)}`);
for (const [dialect, rows] of results) {
  for (const name of new Set(rows.map((r) => r.name))) {
    const bySize = SIZES.map((s) => rows.find((r) => r.name === name && r.size === s)!);
    const first = bySize[0]!;
    const last = bySize[bySize.length - 1]!;
    console.log(
      `${dialect.padEnd(9)}${name.padEnd(25)}${bySize.map((r) => r.listP50.toFixed(3).padStart(12)).join('')}${(last.listP50 / first.listP50).toFixed(2).padStart(9)}${`${((last.totalP50 / last.listP50) * 100).toFixed(0)} %`.padStart(16)}${last.countP50.toFixed(2).padStart(13)}`,
    );
  }
}
const ratio = (dialect: BenchDialect) => {
  const rows = results.get(dialect);
  if (!rows) return 'not run';
  const of = (size: number) => rows.find((r) => r.name === 'page 1' && r.size === size)!.listP50;
  return (of(SIZES[SIZES.length - 1]!) / of(SIZES[0]!)).toFixed(2);
};
console.log(`history: list p50 1M / 10k = ${ratio('sqlite')} (sqlite), ${ratio('postgres')} (postgres)`);
