import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { migrateTo, migrateToLatest, migrationStatus } from './migrate.js';
import { type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from './testing/index.js';
import { verifyStock } from './repositories/stock-verification.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] migrations', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('has run every listed migration, and a second run does nothing', async () => {
    const status = await migrationStatus(t.database);
    expect(status.map((s) => s.name)).toEqual(['001-initial-schema', '002-area-search', '003-crash-safe-idempotency', '004-webhook-attempt-body', '005-installation-grants', '006-adjustment-item-type', '007-list-counts', '008-reservations', '009-webhook-endpoint-active', '010-ledger-bucket-index', '011-lots', '012-lot-notice-indexes', '013-newest-ledger-ids', '014-list-count-triggers']);
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
        'idempotency_records', 'inbound_details', 'inbound_shipments', 'installation_grants', 'installations', 'locations',
        'logistic_preferences', 'partners', 'products', 'stock_ledger', 'stock_levels', 'tenants',
        'transfer_items', 'transfers', 'webhook_deliveries', 'webhook_delivery_attempts', 'webhook_endpoints',
      ]),
    );
  });

  it('006 gives every existing adjustment line its adjustment\'s type, and goes back down', async () => {
    const w = await seedTenantWorld(t.database, { products: 2, label: 'M006' });
    expect((await migrateTo(t.database, '005-installation-grants')).error).toBeUndefined();
    const at = '2026-01-01T00:00:00.000Z';
    const actor = JSON.stringify(w.actor);
    for (const [number, type] of [['ADJ-20260101-000001', 'increase'], ['ADJ-20260101-000002', 'decrease']] as const) {
      const { rows } = await sql<{ id: number }>`insert into adjustments (tenant_id, partner_id, number, location_id, type, stock_source, reason, status, total_amount, item_count, created_by, created_at, updated_at)
        values (${w.tenant.id}, ${w.partner.id}, ${number}, ${w.locations[0].id}, ${type}, 'good', 'old', 'pending', '2', 2, ${actor}, ${at}, ${at}) returning id`.execute(t.database.db);
      for (const product of w.products) {
        await sql`insert into adjustment_items (adjustment_id, line_no, product_id, product_name, sku, quantity, unit_cost, total_cost, notes)
          values (${rows[0]!.id}, ${product.id}, ${product.id}, ${product.name}, ${product.sku}, 10000, '1', '1', '')`.execute(t.database.db);
      }
    }
    expect((await migrateToLatest(t.database)).error).toBeUndefined();
    const lines = await t.database.db
      .selectFrom('adjustment_items')
      .innerJoin('adjustments', 'adjustments.id', 'adjustment_items.adjustment_id')
      .select(['adjustments.number', 'adjustment_items.type'])
      .where('adjustments.tenant_id', '=', w.tenant.id)
      .orderBy('adjustment_items.id')
      .execute();
    expect(lines.map((l) => [l.number.slice(-1), l.type])).toEqual([['1', 'increase'], ['1', 'increase'], ['2', 'decrease'], ['2', 'decrease']]);
  });

  it('013 names each stock row\'s newest ledger row per bucket, fills it for old rows, and goes back down', async () => {
    const w = await seedTenantWorld(t.database, { products: 3, openingGood: '10', label: 'M013' });
    const newest = async () => {
      const ledger = await t.database.db
        .selectFrom('stock_ledger')
        .select((eb) => ['location_id', 'product_id', 'bucket', eb.fn.max('id').as('id')])
        .where('tenant_id', '=', w.tenant.id)
        .groupBy(['location_id', 'product_id', 'bucket'])
        .execute();
      return ledger.map((l) => `${l.location_id}:${l.product_id}:${l.bucket}=${Number(l.id)}`).sort();
    };
    const named = async () => {
      const rows = await t.database.db
        .selectFrom('stock_levels')
        .select(['location_id', 'product_id', 'good_ledger_id', 'damaged_ledger_id', 'reserved_ledger_id'])
        .where('tenant_id', '=', w.tenant.id)
        .execute();
      return rows
        .flatMap((r) => (['good', 'damaged', 'reserved'] as const).flatMap((b) => (r[`${b}_ledger_id`] === null ? [] : [`${r.location_id}:${r.product_id}:${b}=${Number(r[`${b}_ledger_id`])}`])))
        .sort();
    };
    const expected = await newest();
    expect(expected.length).toBeGreaterThan(0);
    // Written by the stock write path itself,
    expect(await named()).toEqual(expected);
    // and filled by the migration for rows written before it.
    expect((await migrateTo(t.database, '012-lot-notice-indexes')).error).toBeUndefined();
    // Asked of this database's own table (the catalogue lists other test schemas' tables too).
    await expect(t.database.db.selectFrom('stock_levels').select(sql<number>`good_ledger_id`.as('id')).execute()).rejects.toThrow(/good_ledger_id/);
    expect((await migrateToLatest(t.database)).error).toBeUndefined();
    expect(await named()).toEqual(expected);
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });
});
