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
    expect(status.map((s) => s.name)).toEqual(['001-initial-schema', '002-area-search', '003-crash-safe-idempotency', '004-webhook-attempt-body', '005-installation-grants', '007-list-counts']);
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
});
