import { AppError, type ErrorKind, dec } from '@pits/domain';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { findAdjustment, listAdjustments } from '../repositories/adjustment-repository.js';
import { findLedgerMismatches, readStockLevels } from '../repositories/stock-repository.js';
import { type TestDatabase, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { type ApprovalDecision, approveAdjustment, createAdjustment, rejectAdjustment } from './adjustment-operations.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T09:30:00.000Z');

async function refusal(promise: Promise<unknown>): Promise<{ kind: ErrorKind; field: string; issues?: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { kind: error.kind, field: error.error.details.field, issues: error.error.issues };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(dialects)('[%s] adjustment operations', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let other: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());
  beforeEach(async () => {
    await t.database.db.deleteFrom('adjustments').execute();
    w = await seedTenantWorld(t.database, { openingGood: '10', label: `A${Math.random().toString(36).slice(2, 8)}` });
    other = await seedTenantWorld(t.database, { label: `B${Math.random().toString(36).slice(2, 8)}` });
  });

  const base = () => ({
    tenantId: w.tenant.id,
    partnerId: w.partner.id,
    actor: w.actor,
    locationId: w.locations[0].id,
    type: 'increase' as const,
    stockSource: 'good' as const,
    reason: 'stock count',
  });

  it('creates a pending adjustment with exact totals and the first ADJ number of the tenant', async () => {
    const created = await createAdjustment(
      t.database,
      { ...base(), items: [
        { productId: w.products[0]!.id, quantity: 3, unitCost: '0.1' },
        { productId: w.products[1]!.id, quantity: '2', unitCost: '19.99', notes: 'shelf B' },
      ] },
      NOW,
    );
    expect(created.number).toBe('ADJ-20261122-000001');
    expect(created.status).toBe('pending');
    expect(created.items.map((i) => i.totalCost.toString())).toEqual(['0.3', '39.98']);
    expect(created.totalAmount.toString()).toBe('40.28');
    expect(created.itemCount).toBe(2);
    expect(created.items[1]).toMatchObject({ sku: 'SKU-2', productName: 'Product 2', notes: 'shelf B', lineNo: 2 });
    expect(created.location).toEqual({ id: w.locations[0].id, code: 'WH-JKT', name: 'Jakarta Warehouse', address: 'Jl. Sudirman 1' });
    expect(created.createdBy).toEqual(w.actor);
    expect([created.approvedAt, created.approvedBy, created.rejectedAt, created.rejectedBy, created.rejectionReason]).toEqual([null, null, null, null, null]);
    expect(created.createdAt).toBe(NOW.toISOString());
    const again = await findAdjustment(t.database, w.tenant.id, created.number);
    expect(again?.items.map((i) => i.quantity.toString())).toEqual(['3', '2']);
    expect(again?.totalAmount.toString()).toBe('40.28');
  });

  it("names products by SKU as well as by id; an unknown or another tenant's SKU, or one product twice, is refused on that line", async () => {
    const created = await createAdjustment(t.database, { ...base(), items: [
      { sku: 'SKU-2', quantity: 1, unitCost: 1 },
      { productId: w.products[0]!.id, quantity: 2, unitCost: 1 },
    ] }, NOW);
    expect(created.items.map((i) => [i.productId, i.sku])).toEqual([[w.products[1]!.id, 'SKU-2'], [w.products[0]!.id, 'SKU-1']]);
    const unknown = await refusal(createAdjustment(t.database, { ...base(), items: [
      { productId: w.products[0]!.id, quantity: 1, unitCost: 1 },
      { sku: 'NOPE', quantity: 1, unitCost: 1 },
      { sku: 'sku-2', quantity: 1, unitCost: 1 },
    ] }, NOW));
    expect(unknown).toMatchObject({ kind: 'VALIDATION_ERROR', field: 'items[1].sku' });
    expect(unknown.issues).toEqual([
      { field: 'items[1].sku', issue: 'product with sku "NOPE" does not exist for this tenant' },
      { field: 'items[2].sku', issue: 'product with sku "sku-2" does not exist for this tenant' },
    ]);
    const twice = await refusal(createAdjustment(t.database, { ...base(), items: [
      { productId: w.products[2]!.id, quantity: 1, unitCost: 1 },
      { sku: 'SKU-3', quantity: 1, unitCost: 1 },
    ] }, NOW));
    expect(twice).toMatchObject({ kind: 'VALIDATION_ERROR', field: 'items[1].sku' });
    // Another tenant has the same SKUs: resolution stays inside the tenant.
    const mine = await createAdjustment(t.database, { ...base(), items: [{ sku: 'SKU-3', quantity: 1, unitCost: 1 }] }, NOW);
    expect(mine.items[0]!.productId).toBe(w.products[2]!.id);
    expect((await listAdjustments(t.database, w.tenant.id, {}, { page: 1, perPage: 10 })).total).toBe(2);
  });

  it("refuses a location or product of another tenant, naming the input, and writes nothing", async () => {
    expect(await refusal(createAdjustment(t.database, { ...base(), locationId: other.locations[0].id, items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW)))
      .toMatchObject({ kind: 'VALIDATION_ERROR', field: 'location_id' });
    const refused = await refusal(createAdjustment(t.database, { ...base(), items: [
      { productId: w.products[0]!.id, quantity: 1, unitCost: 1 },
      { productId: other.products[0]!.id, quantity: 1, unitCost: 1 },
      { productId: 999_999, quantity: 1, unitCost: 1 },
    ] }, NOW));
    expect(refused).toMatchObject({ kind: 'VALIDATION_ERROR', field: 'items[1].product_id' });
    expect(refused.issues).toEqual([
      { field: 'items[1].product_id', issue: expect.stringContaining('does not exist') },
      { field: 'items[2].product_id', issue: expect.stringContaining('does not exist') },
    ]);
    const { total } = await listAdjustments(t.database, w.tenant.id, {}, { page: 1, perPage: 10 });
    expect(total).toBe(0);
  });

  it('approving an increase adds stock with one ledger row per item, once', async () => {
    const adj = await createAdjustment(t.database, { ...base(), items: w.products.slice(0, 2).map((p) => ({ productId: p.id, quantity: '1.5', unitCost: 2 })) }, NOW);
    const approved = await approveAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, NOW);
    expect(approved).toMatchObject({ status: 'approved', approvedAt: NOW.toISOString(), approvedBy: w.actor });
    const levels = await readStockLevels(t.database, w.products.slice(0, 2).map((p) => ({ locationId: w.locations[0].id, productId: p.id })));
    expect([...levels.values()].map((l) => l.good.toString())).toEqual(['11.5', '11.5']);
    const ledger = await t.database.db.selectFrom('stock_ledger').selectAll().where('tenant_id', '=', w.tenant.id).where('cause_id', '=', adj.number).execute();
    expect(ledger).toHaveLength(2);
    expect(ledger[0]).toMatchObject({ cause_type: 'adjustment', document_number: adj.number, bucket: 'good', delta: 15000, quantity_before: 100000, quantity_after: 115000 });
    expect(await refusal(approveAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, NOW))).toMatchObject({ kind: 'INVALID_STATE' });
    expect(await findLedgerMismatches(t.database)).toEqual([]);
  });

  it('returns the decided record exactly as stored, without reading it back', async () => {
    const later = new Date(NOW.getTime() + 60_000);
    for (const decide of [
      (number: string) => approveAdjustment(t.database, { tenantId: w.tenant.id, number, actor: w.actor }, later),
      (number: string) => rejectAdjustment(t.database, { tenantId: w.tenant.id, number, actor: w.actor, reason: 'counted twice' }, later),
    ]) {
      const adj = await createAdjustment(t.database, { ...base(), items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW);
      const decided = await decide(adj.number);
      const { items: _items, currentStock: _stock, ...stored } = (await findAdjustment(t.database, w.tenant.id, adj.number))!;
      expect(decided).toEqual(stored);
      expect(decided.updatedAt).toBe(later.toISOString());
    }
  });

  it('a decided adjustment is refused before any stock row is locked or created', async () => {
    const fresh = w.products[2]!;
    const adj = await createAdjustment(t.database, { ...base(), locationId: w.locations[1].id, items: [{ productId: fresh.id, quantity: 1, unitCost: 1 }] }, NOW);
    await rejectAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor, reason: 'no' }, NOW);
    let decisions = 0;
    const counting: ApprovalDecision = () => {
      decisions += 1;
      throw new Error('decided a non-pending adjustment');
    };
    expect(await refusal(approveAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, NOW, counting))).toMatchObject({ kind: 'INVALID_STATE', field: 'status' });
    expect(decisions).toBe(0);
    const rows = await t.database.db.selectFrom('stock_levels').select('good').where('location_id', '=', w.locations[1].id).where('product_id', '=', fresh.id).execute();
    expect(rows).toEqual([]);
  });

  it('a decrease into damaged stock that is not there is refused whole and stays pending', async () => {
    const adj = await createAdjustment(t.database, { ...base(), type: 'decrease', stockSource: 'damaged', items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 0 }] }, NOW);
    expect(await refusal(approveAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, NOW)))
      .toMatchObject({ kind: 'INSUFFICIENT_STOCK', field: 'items[0].quantity' });
    expect((await findAdjustment(t.database, w.tenant.id, adj.number))?.status).toBe('pending');
    expect(await t.database.db.selectFrom('stock_ledger').select('id').where('tenant_id', '=', w.tenant.id).where('cause_id', '=', adj.number).execute()).toEqual([]);
  });

  it('a decrease of good stock cannot go below what is reserved', async () => {
    const p = w.products[0]!;
    await t.database.db.updateTable('stock_levels').set({ reserved: 80000 }).where('product_id', '=', p.id).execute();
    const adj = await createAdjustment(t.database, { ...base(), type: 'decrease', items: [{ productId: p.id, quantity: 3, unitCost: 1 }] }, NOW);
    expect(await refusal(approveAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, NOW))).toMatchObject({ kind: 'INSUFFICIENT_STOCK' });
    const ok = await createAdjustment(t.database, { ...base(), type: 'decrease', items: [{ productId: p.id, quantity: 2, unitCost: 1 }] }, NOW);
    await approveAdjustment(t.database, { tenantId: w.tenant.id, number: ok.number, actor: w.actor }, NOW);
    const level = (await readStockLevels(t.database, [{ locationId: w.locations[0].id, productId: p.id }])).values().next().value;
    expect(level?.good.toString()).toBe('8');
  });

  it('rejects with a reason, changes no stock, and refuses a second decision', async () => {
    const adj = await createAdjustment(t.database, { ...base(), items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW);
    const rejected = await rejectAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor, reason: 'duplicate count' }, NOW);
    expect(rejected).toMatchObject({ status: 'rejected', rejectionReason: 'duplicate count', rejectedBy: w.actor, rejectedAt: NOW.toISOString(), approvedAt: null });
    expect(await refusal(approveAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, NOW))).toMatchObject({ kind: 'INVALID_STATE' });
    expect(await refusal(rejectAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor, reason: 'x' }, NOW))).toMatchObject({ kind: 'INVALID_STATE' });
    const level = (await readStockLevels(t.database, [{ locationId: w.locations[0].id, productId: w.products[0]!.id }])).values().next().value;
    expect(level?.good.toString()).toBe('10');
  });

  it("another tenant's adjustment is not found, exactly like an unknown one", async () => {
    const adj = await createAdjustment(t.database, { ...base(), items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW);
    // Thunks, so that each refusal is awaited as it happens (never an unhandled rejection).
    for (const action of [
      () => approveAdjustment(t.database, { tenantId: other.tenant.id, number: adj.number, actor: other.actor }, NOW),
      () => rejectAdjustment(t.database, { tenantId: other.tenant.id, number: adj.number, actor: other.actor, reason: 'x' }, NOW),
      () => approveAdjustment(t.database, { tenantId: w.tenant.id, number: 'ADJ-20261122-999999', actor: w.actor }, NOW),
    ]) {
      expect(await refusal(action())).toMatchObject({ kind: 'NOT_FOUND', field: 'id' });
    }
    expect(await findAdjustment(t.database, other.tenant.id, adj.number)).toBeUndefined();
  });

  it('lists newest first with filters and pages that neither repeat nor skip', async () => {
    const numbers: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      const at = new Date(NOW.getTime() + (i % 3) * 1000); // equal timestamps too: id breaks the tie
      const adj = await createAdjustment(t.database, { ...base(), type: i % 2 ? 'decrease' : 'increase', locationId: w.locations[i % 2]!.id, items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, at);
      numbers.push(adj.number);
    }
    const seen: string[] = [];
    for (let page = 1; page <= 3; page += 1) {
      const { rows, total } = await listAdjustments(t.database, w.tenant.id, {}, { page, perPage: 3 });
      expect(total).toBe(7);
      seen.push(...rows.map((r) => r.number));
    }
    expect(new Set(seen).size).toBe(7);
    const all = (await listAdjustments(t.database, w.tenant.id, {}, { page: 1, perPage: 100 })).rows;
    expect(seen).toEqual(all.map((r) => r.number));
    for (let i = 1; i < all.length; i += 1) {
      const [a, b] = [all[i - 1]!, all[i]!];
      expect(a.createdAt > b.createdAt || (a.createdAt === b.createdAt && a.id > b.id)).toBe(true);
    }
    const decreases = await listAdjustments(t.database, w.tenant.id, { type: 'decrease' }, { page: 1, perPage: 100 });
    expect(decreases.total).toBe(3);
    const atB = await listAdjustments(t.database, w.tenant.id, { locationId: w.locations[1].id, status: 'pending' }, { page: 1, perPage: 100 });
    expect(atB.rows.every((r) => r.location.id === w.locations[1].id)).toBe(true);
    expect(atB.total).toBe(3);
    expect((await listAdjustments(t.database, w.tenant.id, { status: 'approved' }, { page: 1, perPage: 10 })).total).toBe(0);
    expect((await listAdjustments(t.database, other.tenant.id, {}, { page: 1, perPage: 10 })).total).toBe(0);
    expect(dec(all[0]!.totalAmount).toString()).toBe('1');
  });
});
