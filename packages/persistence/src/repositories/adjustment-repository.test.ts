// The two projections of an adjustment row: a list page reads summaries (what the list shows,
// without the actors' JSON), a detail reads the whole record; the fields they share agree. A
// detail with its lines and their stock is one statement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAdjustment, createAdjustment, rejectAdjustment } from '../use-cases/adjustment-operations.js';
import { type TestDatabase, countingScope, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { newAdjustmentLineRow, newAdjustmentRow } from '../use-cases/adjustment-operations.js';
import { type Tx, withTransaction } from '../transaction.js';
import { findAdjustment, findAdjustmentRecord, insertAdjustmentWithItems, listAdjustments } from './adjustment-repository.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T10:00:00.000Z');

describe.each(dialects)('[%s] adjustment projections', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());


  it('inserts an adjustment with its lines in one statement where the dialect takes an insert in a WITH, answering what a read gives back', async () => {
    const w = await seedTenantWorld(t.database, { products: 205, label: 'with-lines' });
    const [location] = w.locations;
    let sequence = 0;
    const insert = async (lineCount: number) => {
      sequence += 1;
      const number = `ADJ-20261122-${String(sequence).padStart(6, '0')}`;
      let statements = 0;
      const lines = w.products.slice(0, lineCount).map((p, i) =>
        newAdjustmentLineRow(i, { productId: p.id, productName: p.name, sku: p.sku, type: 'increase', quantity: 10_000 * (i + 1), unitCost: '2.5', totalCost: `${2.5 * (i + 1)}`, notes: `line ${i + 1}` }),
      );
      const row = newAdjustmentRow({
        tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, number, locationId: location.id, type: 'increase', stockSource: 'good', reason: 'with lines',
        totalAmount: '7.5', itemCount: lineCount, approval: null, at: NOW.toISOString(),
      });
      const created = await withTransaction(t.database, (tx) => {
        const counted: Tx = { ...tx, runner: { run: (compiled) => ((statements += 1), tx.runner.run(compiled)) } };
        return insertAdjustmentWithItems(counted, row, { id: location.id, code: location.code, name: location.name, address: location.address }, lines);
      });
      const { currentStock: _stock, ...stored } = (await findAdjustment(t.database, w.tenant.id, number))!;
      return { created, stored, statements };
    };
    const small = await insert(3);
    expect(small.statements).toBe(t.database.dialect.insertsInWith ? 1 : 2);
    expect(small.created).toEqual(small.stored);
    expect(small.created.items.map((i) => [i.lineNo, i.notes])).toEqual([[1, 'line 1'], [2, 'line 2'], [3, 'line 3']]);
    // Past one batch of lines: the adjustment, then its lines in two statements, on every dialect.
    const large = await insert(205);
    expect(large.statements).toBe(3);
    expect(large.created).toEqual(large.stored);
    expect(large.created.items).toHaveLength(205);
  });

  it('a list page holds every field of the detail record but the actors, which it never parses', async () => {
    const w = await seedTenantWorld(t.database, { openingGood: '10', label: 'projections' });
    const [a] = w.locations;
    const create = (type: 'increase' | 'decrease') =>
      createAdjustment(
        t.database,
        { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: a!.id, type, stockSource: 'good', reason: 'count', items: [{ productId: w.products[0]!.id, quantity: '1.5', unitCost: 2 }] },
        NOW,
      );
    const approved = await create('increase');
    const rejected = await create('decrease');
    await create('increase');
    await approveAdjustment(t.database, { tenantId: w.tenant.id, number: approved.number, actor: w.actor }, NOW);
    await rejectAdjustment(t.database, { tenantId: w.tenant.id, number: rejected.number, actor: w.actor, reason: 'miscounted' }, NOW);

    const { rows, total } = await listAdjustments(t.database, w.tenant.id, {}, { page: 1, perPage: 10 });
    expect(total).toBe(3);
    expect(rows.map((r) => r.status).sort()).toEqual(['approved', 'pending', 'rejected']);
    for (const row of rows) {
      expect(Object.keys(row).filter((key) => ['createdBy', 'approvedBy', 'rejectedBy'].includes(key)), row.number).toEqual([]);
      const { createdBy, approvedBy, rejectedBy, ...shared } = (await findAdjustmentRecord(t.database, w.tenant.id, row.number))!;
      expect(createdBy).toEqual(w.actor);
      expect(row).toEqual(shared);
    }
  });

  it('a detail reads its lines in order with their products\' stock in its bucket, in one statement', async () => {
    const w = await seedTenantWorld(t.database, { products: 3, label: 'detail' });
    const [a] = w.locations;
    const [p1, p2, p3] = w.products;
    const create = (stockSource: 'good' | 'damaged', items: { productId: number; quantity: string }[]) =>
      createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: a!.id, type: 'increase', stockSource, reason: 'count', items: items.map((i) => ({ ...i, unitCost: 1 })) }, NOW);
    const good = await create('good', [{ productId: p1!.id, quantity: '4' }]);
    const damaged = await create('damaged', [{ productId: p2!.id, quantity: '1.5' }]);
    await approveAdjustment(t.database, { tenantId: w.tenant.id, number: good.number, actor: w.actor }, NOW);
    await approveAdjustment(t.database, { tenantId: w.tenant.id, number: damaged.number, actor: w.actor }, NOW);
    // Pending, over the three products: p3 has no stock row at the location yet.
    const pending = await create('damaged', [{ productId: p3!.id, quantity: '2' }, { productId: p1!.id, quantity: '1' }, { productId: p2!.id, quantity: '1' }]);
    const counted = countingScope(t.database);
    const detail = (await findAdjustment(counted.scope, w.tenant.id, pending.number))!;
    expect(counted.statements).toBe(1);
    expect(detail.items.map((i) => [i.lineNo, i.productId, i.quantity.toFixed()])).toEqual([[1, p3!.id, '2'], [2, p1!.id, '1'], [3, p2!.id, '1']]);
    // The damaged bucket: p1 has good stock only, p2 damaged, p3 no row.
    expect([...detail.currentStock].map(([id, q]) => [id, q.toFixed()]).sort()).toEqual([[p1!.id, '0'], [p2!.id, '1.5']].sort());
    expect(detail.currentStock.has(p3!.id)).toBe(false);
    const { items: _items, currentStock: _stock, ...record } = detail;
    expect(record).toEqual(await findAdjustmentRecord(t.database, w.tenant.id, pending.number));
    expect(await findAdjustment(t.database, w.tenant.id, 'ADJ-20261122-999999')).toBeUndefined();
  });

  it('a list page with rows is one statement, its total riding on it; an empty page reads the total alone', async () => {
    const w = await seedTenantWorld(t.database, { products: 1, label: 'list-total' });
    for (let i = 0; i < 3; i += 1) {
      await createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, type: 'increase', stockSource: 'good', reason: 'r', items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW);
    }
    const page = countingScope(t.database);
    expect(await listAdjustments(page.scope, w.tenant.id, { status: 'pending' }, { page: 1, perPage: 2 })).toMatchObject({ total: 3, rows: [{}, {}] });
    expect(page.statements).toBe(1);
    const past = countingScope(t.database);
    expect(await listAdjustments(past.scope, w.tenant.id, { status: 'pending' }, { page: 3, perPage: 2 })).toEqual({ rows: [], total: 3 });
    expect(past.statements).toBe(2);
  });
});
