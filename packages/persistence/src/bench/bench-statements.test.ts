// The benchmarks' bare routes take their statements and rows from here; these tests hold them to
// the repositories and the migrated schema, so the bench cannot keep a stale copy of a table.
import { addDays, dec } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findAdjustment } from '../repositories/adjustment-repository.js';
import { type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { execute, executeTakeFirst, executeWrite } from '../execution/execute.js';
import { adjustmentDetailQuery } from '../repositories/adjustment-repository.js';
import type { Scope, Tx } from '../execution/scope.js';
import { createProduct } from '../repositories/product-repository.js';
import { databaseToday, insertAllocations, listAllocations, productPolicies, readLotLevels, writeLotLevels } from '../repositories/lot-repository.js';
import { markLinesWithLots } from '../repositories/reservation-repository.js';
import { createReservation } from '../use-cases/reservation-operations.js';
import { recordOpeningStock } from '../use-cases/stock-operations.js';
import { withTransaction } from '../transaction.js';
import {
  type BenchStatement,
  emptyLevelRow,
  inventoryStatements,
  ledgerRow,
  levelRow,
  lotStatements,
  newAdjustmentItemRow,
  newAdjustmentRow,
  todayOf,
} from './bench-statements.js';

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
      stock_levels: s.writeStock({ rows: [levelRow('t', { ...key, good: 0, damaged: 0, reserved: 0 }, AT)] }),
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
    const statement = s.adjustmentDetail(params);
    const repository = adjustmentDetailQuery.compile(t.database, params);
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
    expect(found!.currentStock.get(product.id)?.toFixed()).toBe('2');
    const [level] = await execute(t.database, s.stockRead({ keys: [key] }));
    expect(Number(level!.good)).toBe(20_000);
  });
});

/** Thrown to roll back a transaction whose statements were only to be seen. */
class RolledBack extends Error {}

/**
 * The statements `work` sends (text and parameters), run for real in a transaction that is then
 * rolled back, and what it returned.
 */
async function sent<T>(scope: Scope, work: (tx: Tx) => Promise<T>): Promise<{ statements: BenchStatement[]; value: T }> {
  const statements: BenchStatement[] = [];
  let value: T | undefined;
  await withTransaction(scope, async (tx) => {
    const recording: Tx = {
      ...tx,
      runner: {
        run: (compiled) => {
          statements.push({ sql: compiled.sql, parameters: compiled.parameters });
          return tx.runner.run(compiled);
        },
      },
    };
    value = await work(recording);
    throw new RolledBack();
  }).catch((error: unknown) => {
    if (!(error instanceof RolledBack)) throw error;
  });
  return { statements, value: value as T };
}

const plainStatement = ({ sql, parameters }: BenchStatement): BenchStatement => ({ sql, parameters });

describe.each(dialects)('[%s] bench lot statements', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('send what the lot repository functions send, text and parameters, for a held lot', async () => {
    const w = await seedTenantWorld(t.database, { label: 'bench-lots', openingGood: '5' });
    const today = await databaseToday(t.database);
    const product = await createProduct(t.database, w.tenant.id, { sku: 'BENCH-LOT', name: 'Bench lot', costPrice: '2.00', publishedPrice: '4.00', productionBatch: true, outboundExpired: 30 }, 'seed', new Date(AT));
    const location = w.locations[0].id;
    for (const [lotNumber, days] of [['SHORT', 10], ['A', 90], ['B', 180]] as const) {
      await recordOpeningStock(t.database, { tenantId: w.tenant.id, locationId: location, productId: product.id, good: '10', actor: 'seed', reference: 'opening', lotNumber, expiryDate: addDays(today, days) }, new Date(AT));
    }
    const hold = await createReservation(t.database, {
      tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: location, reference: 'bench-lots', expiresIn: 900,
      items: [{ productId: w.products[0]!.id, quantity: '1' }, { productId: product.id, quantity: '2' }],
    });
    expect(hold.items.map((i) => i.allocations.map((a) => [a.lotNumber, a.quantity.toFixed()]))).toEqual([[], [['A', '2']]]);
    const lots = lotStatements(dialect);
    const keys = [{ locationId: location, productId: product.id }];

    const levels = await sent(t.database, (tx) => readLotLevels(tx, keys));
    expect(levels.statements).toEqual([plainStatement(lots.lotLevels({ keys }))]);
    const lotA = [...levels.value.values()].find((l) => l.lotNumber === 'A')!;
    expect([...levels.value.values()].map((l) => l.lotNumber).sort()).toEqual(['A', 'B', 'SHORT']);

    const day = await sent(t.database, (tx) => databaseToday(tx));
    expect(day.statements).toEqual([plainStatement(lots.today({}))]);
    const [clock] = await execute(t.database, lots.today({}));
    expect(todayOf(clock!)).toBe(today);

    const marked = await sent(t.database, (tx) => markLinesWithLots(tx, hold.id, [2]));
    expect(marked.statements).toEqual([lots.markLines({ reservationId: hold.id, lineNumbers: [2] }), lots.lineIds({ reservationId: hold.id, lineNumbers: [2] })].map(plainStatement));
    const lineId = marked.value.get(2)!;

    const allocations = await sent(t.database, (tx) => listAllocations(tx, 'reservation', [lineId]));
    expect(allocations.statements).toEqual([plainStatement(lots.allocations({ document: 'reservation', ids: [lineId] }))]);
    expect(allocations.value.get(lineId)!.map((a) => a.lotId)).toEqual([lotA.lotId]);

    const policies = await sent(t.database, (tx) => productPolicies(tx, [product.id]));
    expect(policies.statements).toEqual([plainStatement(lots.policies({ ids: [product.id] }))]);

    // The hold's first line (a product without lots) has no allocation yet.
    const [first] = await execute(t.database, lots.lineIds({ reservationId: hold.id, lineNumbers: [1] }));
    const allocated = await sent(t.database, (tx) => insertAllocations(tx, w.tenant.id, 'reservation', [{ itemId: first!.id, allocations: [{ lotId: lotA.lotId, quantity: dec('1') }] }]));
    expect(allocated.statements).toEqual([
      plainStatement(lots.insertAllocations({ rows: [{ tenant_id: w.tenant.id, document: 'reservation', item_id: first!.id, seq: 1, lot_id: lotA.lotId, quantity: 10_000 }] })),
    ]);

    const changed = { ...lotA, reserved: lotA.reserved.plus(1) };
    const written = await sent(t.database, (tx) => writeLotLevels(tx, w.tenant.id, { lots: new Map([['a', changed]]), changes: [] }, new Map([[`${product.id}:A`, lotA.lotId]]), new Date(AT)));
    expect(written.statements).toEqual([
      plainStatement(
        lots.writeLotStock({
          rows: [{ tenant_id: w.tenant.id, location_id: location, product_id: product.id, lot_id: lotA.lotId, good: 100_000, damaged: 0, reserved: 30_000, expiring_sent: 0, unsellable_sent: 0, updated_at: AT }],
        }),
      ),
    ]);
  });
});
