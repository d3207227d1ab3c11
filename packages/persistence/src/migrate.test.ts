import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateToLatest, migrationStatus } from './migrate.js';
import { type TestDatabase, openTestDatabase, testDialects } from './testing/index.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] migrations', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('has run every listed migration, and a second run does nothing', async () => {
    const status = await migrationStatus(t.database);
    expect(status.map((s) => s.name)).toEqual(['001-initial-schema', '002-area-search']);
    expect(status.every((s) => s.executedAt instanceof Date)).toBe(true);
    const again = await migrateToLatest(t.database);
    expect(again.error).toBeUndefined();
    expect(again.results).toEqual([]);
  });

  it('creates every table the contract needs', async () => {
    const tables = (await t.database.db.introspection.getTables()).map((x) => x.name).sort();
    expect(tables).toEqual(
      expect.arrayContaining([
        'adjustment_items', 'adjustments', 'api_keys', 'areas', 'document_sequences', 'event_outbox',
        'idempotency_records', 'inbound_details', 'inbound_shipments', 'installations', 'locations',
        'logistic_preferences', 'partners', 'products', 'stock_ledger', 'stock_levels', 'tenants',
        'transfer_items', 'transfers', 'webhook_deliveries', 'webhook_delivery_attempts', 'webhook_endpoints',
      ]),
    );
  });

  it('returns the same JavaScript types on both drivers', async () => {
    const row = await sql<{ n: number; big: number; ts: string; d: string; b: number; m: string }>`select
      cast(42 as ${dialect === 'postgres' ? sql`bigint` : sql`integer`}) as n,
      cast(9007199254740991 as ${dialect === 'postgres' ? sql`bigint` : sql`integer`}) as big,
      ${dialect === 'postgres' ? sql`cast('2026-01-31T08:15:30.123Z' as timestamptz)` : sql`'2026-01-31T08:15:30.123Z'`} as ts,
      ${dialect === 'postgres' ? sql`cast('2026-01-31' as date)` : sql`'2026-01-31'`} as d,
      ${dialect === 'postgres' ? sql`true` : sql`1`} as b,
      ${dialect === 'postgres' ? sql`cast('39.98' as numeric(28, 8))` : sql`'39.98'`} as m`.execute(t.database.db);
    const r = row.rows[0]!;
    expect(r.n).toBe(42);
    expect(r.big).toBe(Number.MAX_SAFE_INTEGER);
    expect(r.ts).toBe('2026-01-31T08:15:30.123Z');
    expect(r.d).toBe('2026-01-31');
    expect(r.b).toBe(1);
    expect(typeof r.m).toBe('string');
    expect(Number(r.m)).toBe(39.98);
  });
});
