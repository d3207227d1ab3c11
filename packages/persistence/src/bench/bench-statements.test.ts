// The benchmarks' bare routes take their statements and rows from here; these tests hold them to
// the repositories and the migrated schema, so the bench cannot keep a stale copy of a table.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAdjustment } from '../repositories/adjustment-repository.js';
import { type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { execute, executeTakeFirst, executeWrite } from '../execution/execute.js';
import { adjustmentByNumberQuery } from '../repositories/adjustment-repository.js';
import { countChanges, emptyLevelRow, inventoryStatements, ledgerRow, levelRow, newAdjustmentItemRow, newAdjustmentRow } from './bench-statements.js';

const dialects = await testDialects();
const AT = '2026-11-22T10:00:00.000Z';

/** The column list of an `insert into "t" ("a", "b", …)` statement. */
function insertedColumns(sql: string): string[] {
  const list = /^insert into "\w+" \(([^)]*)\)/.exec(sql)?.[1];
  if (list === undefined) throw new Error(`not an insert with a column list: ${sql}`);
  return list.split(', ').map((c) => c.replace(/"/g, ''));
}

describe.each(dialects)('[%s] bench statements', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('write every column of their tables but the generated id, as the migrated schema has them', async () => {
    const s = inventoryStatements(dialect);
    const key = { locationId: 1, productId: 2 };
    const actor = { id: 1, name: 'P', email: 'p@example.com' };
    const inserts = {
      adjustments: s.insertAdjustment(
        newAdjustmentRow({ tenantId: 't', partnerId: 1, actor, number: 'ADJ-1', locationId: 1, type: 'increase', stockSource: 'good', reason: 'r', totalAmount: '1', itemCount: 1, approval: null, at: AT }),
      ),
      adjustment_items: s.insertItems({
        rows: [newAdjustmentItemRow(1, 0, { productId: 2, productName: 'n', sku: 's', type: 'increase', quantity: 10_000, unitCost: '1', totalCost: '1', notes: '' })],
      }),
      stock_levels: s.lockStock({ rows: [emptyLevelRow('t', key, AT)] }),
      stock_ledger: s.insertLedger({
        rows: [ledgerRow('t', { ...key, bucket: 'good', delta: 1, before: 0, after: 1 }, { type: 'adjustment', id: 'ADJ-1', documentNumber: 'ADJ-1', actor: 'a' }, AT)],
      }),
    };
    const tables = await t.database.db.introspection.getTables();
    for (const [table, statement] of Object.entries(inserts)) {
      const columns = tables.find((x) => x.name === table)?.columns.map((c) => c.name);
      expect(columns, table).toBeDefined();
      expect(insertedColumns(statement.sql).sort(), table).toEqual(columns!.filter((c) => c !== 'id').sort());
    }
  });

  it('compile to what the repositories run, and their rows satisfy the schema', async () => {
    const w = await seedTenantWorld(t.database, { label: 'bench-statements' });
    const s = inventoryStatements(dialect);
    const params = { tenantId: w.tenant.id, number: 'ADJ-20261122-000001' };
    const statement = s.adjustmentByNumber(params);
    const repository = adjustmentByNumberQuery.compile(t.database, params);
    expect({ sql: statement.sql, parameters: statement.parameters }).toEqual({ sql: repository.sql, parameters: repository.parameters });

    const [location] = w.locations;
    const product = w.products[0]!;
    const inserted = await executeTakeFirst(
      t.database,
      s.insertAdjustment(
        newAdjustmentRow({ tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, number: params.number, locationId: location.id, type: 'increase', stockSource: 'good', reason: 'bench', totalAmount: '3', itemCount: 1, approval: null, at: AT }),
      ),
    );
    await execute(
      t.database,
      s.insertItems({ rows: [newAdjustmentItemRow(inserted!.id, 0, { productId: product.id, productName: product.name, sku: product.sku, type: 'increase', quantity: 20_000, unitCost: '1.5', totalCost: '3', notes: '' })] }),
    );
    await executeWrite(t.database, s.changeCounts({ rows: countChanges(w.tenant.id, null, { status: 'pending', location_id: location.id, type: 'increase' }) }));
    const key = { locationId: location.id, productId: product.id };
    await execute(t.database, s.lockStock({ rows: [emptyLevelRow(w.tenant.id, key, AT)] }));
    await executeWrite(t.database, s.writeStock({ rows: [levelRow(w.tenant.id, { ...key, good: 20_000, damaged: 0, reserved: 0 }, AT)] }));
    await executeWrite(
      t.database,
      s.insertLedger({ rows: [ledgerRow(w.tenant.id, { ...key, bucket: 'good', delta: 20_000, before: 0, after: 20_000 }, { type: 'adjustment', id: params.number, documentNumber: params.number, actor: 'bench' }, AT)] }),
    );

    const found = await findAdjustment(t.database, w.tenant.id, params.number);
    expect(found).toMatchObject({ status: 'pending', reason: 'bench', itemCount: 1, createdBy: w.actor, location: { id: location.id } });
    expect(found!.items.map((i) => [i.productId, i.quantity.toFixed(), i.totalCost.toFixed()])).toEqual([[product.id, '2', '3']]);
    const [level] = await execute(t.database, s.stockRead({ keys: [key] }));
    expect(Number(level!.good)).toBe(20_000);
  });
});
