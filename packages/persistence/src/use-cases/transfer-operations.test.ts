import { AppError, type ErrorKind } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findLedgerMismatches, readStockLevels } from '../repositories/stock-repository.js';
import { findTransfer, listTransfers } from '../repositories/transfer-repository.js';
import { type TestDatabase, capabilitiesOf, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { approveTransfer, createTransfer, receiveTransfer, rejectTransfer, shipTransfer } from './transfer-operations.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T11:00:00.000Z');

async function refusal(promise: Promise<unknown>): Promise<{ kind: ErrorKind; field: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { kind: error.kind, field: error.error.details.field };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(dialects)('[%s] transfer operations', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let other: TenantWorld;
  let seq = 0;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    other = await seedTenantWorld(t.database, { label: 'Other' });
  });
  afterAll(() => t.cleanup());

  async function world() {
    seq += 1;
    w = await seedTenantWorld(t.database, { openingGood: '10', label: `W${seq}` });
    return w;
  }
  const base = (overrides: Record<string, unknown> = {}) => ({
    tenantId: w.tenant.id,
    partnerId: w.partner.id,
    actor: w.actor,
    fromLocationId: w.locations[0].id,
    toLocationId: w.locations[1].id,
    transferDate: '2026-11-22',
    items: [
      { productId: w.products[0]!.id, quantity: '2.5' },
      { productId: w.products[1]!.id, quantity: 3, notes: 'fragile' },
    ],
    ...overrides,
  });
  const act = (number: string) => ({ tenantId: w.tenant.id, number, actor: w.actor });
  const level = async (locationId: number, productId: number) =>
    (await readStockLevels(t.database, [{ locationId, productId }])).values().next().value;

  it('creates a pending transfer priced at cost, with exact totals and the first TRF number', async () => {
    await world();
    const created = await createTransfer(t.database, base({ expectedArrivalDate: '2026-11-25', referenceNumber: 'PO-7', notes: 'weekly' }), NOW);
    expect(created).toMatchObject({ number: 'TRF-20261122-000001', status: 'pending', transferDate: '2026-11-22', expectedArrivalDate: '2026-11-25', actualArrivalDate: null, referenceNumber: 'PO-7', notes: 'weekly', totalItems: 2 });
    expect(created.items.map((i) => [i.unitPrice.toString(), i.totalValue.toString()])).toEqual([['1.5', '3.75'], ['2.5', '7.5']]);
    expect(created.totalQuantity.toString()).toBe('5.5');
    expect(created.totalValue.toString()).toBe('11.25');
    expect(created.fromLocation).toEqual({ id: w.locations[0].id, code: 'WH-JKT', name: 'Jakarta Warehouse', address: 'Jl. Sudirman 1', contactPerson: 'Budi', phone: '+62211234' });
    expect([created.approvedAt, created.shippedAt, created.receivedAt, created.rejectedAt, created.approvedBy, created.shippedBy]).toEqual([null, null, null, null, null, null]);
  });

  it('names products by SKU as well as by id; an unknown SKU is refused on that line', async () => {
    await world();
    const created = await createTransfer(t.database, base({ items: [{ sku: 'SKU-2', quantity: 1 }, { productId: w.products[0]!.id, quantity: 2 }] }), NOW);
    expect(created.items.map((i) => [i.productId, i.sku])).toEqual([[w.products[1]!.id, 'SKU-2'], [w.products[0]!.id, 'SKU-1']]);
    expect(await refusal(createTransfer(t.database, base({ items: [{ productId: w.products[0]!.id, quantity: 1 }, { sku: 'GONE', quantity: 1 }] }), NOW))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[1].sku' });
    expect(await refusal(createTransfer(t.database, base({ items: [{ sku: 'SKU-1', quantity: 1 }, { productId: w.products[0]!.id, quantity: 1 }] }), NOW))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[1].product_id' });
  });

  it('refuses the same location twice, or a location or product of another tenant', async () => {
    await world();
    expect(await refusal(createTransfer(t.database, base({ toLocationId: w.locations[0].id }), NOW))).toEqual({ kind: 'VALIDATION_ERROR', field: 'to_location_id' });
    expect(await refusal(createTransfer(t.database, base({ fromLocationId: other.locations[0].id }), NOW))).toEqual({ kind: 'VALIDATION_ERROR', field: 'from_location_id' });
    expect(await refusal(createTransfer(t.database, base({ toLocationId: other.locations[1].id }), NOW))).toEqual({ kind: 'VALIDATION_ERROR', field: 'to_location_id' });
    expect(await refusal(createTransfer(t.database, base({ items: [{ productId: other.products[0]!.id, quantity: 1 }] }), NOW))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[0].product_id' });
  });

  it('approve reserves, ship takes out, receive puts in: stock is conserved and the ledger balances', async () => {
    await world();
    const trf = await createTransfer(t.database, base(), NOW);
    const [src, dst, p] = [w.locations[0].id, w.locations[1].id, w.products[0]!.id];
    const approved = await approveTransfer(t.database, act(trf.number), NOW);
    expect(approved).toMatchObject({ status: 'approved', approvedAt: NOW.toISOString(), approvedBy: w.actor });
    expect((await level(src, p))?.reserved.toString()).toBe('2.5');
    expect((await level(src, p))?.good.toString()).toBe('10');
    const shipped = await shipTransfer(t.database, act(trf.number), NOW);
    expect(shipped).toMatchObject({ status: 'in_transit', shippedAt: NOW.toISOString(), shippedBy: w.actor });
    expect([(await level(src, p))?.good.toString(), (await level(src, p))?.reserved.toString()]).toEqual(['7.5', '0']);
    const received = await receiveTransfer(t.database, act(trf.number), new Date('2026-11-24T03:00:00.000Z'));
    expect(received).toMatchObject({ status: 'completed', receivedBy: w.actor, actualArrivalDate: '2026-11-24' });
    expect((await level(dst, p))?.good.toString()).toBe('2.5');
    expect((await level(dst, w.products[1]!.id))?.good.toString()).toBe('3');
    expect(await findLedgerMismatches(t.database, w.tenant.id)).toEqual([]);
    const ledger = await t.database.db.selectFrom('stock_ledger').select(['bucket', 'delta', 'location_id']).where('tenant_id', '=', w.tenant.id).where('cause_id', '=', trf.number).orderBy('id').execute();
    expect(ledger).toHaveLength(2 + 4 + 2);
  });

  it('an approval that exceeds what is available reserves nothing and stays pending', async () => {
    await world();
    const trf = await createTransfer(t.database, base({ items: [{ productId: w.products[0]!.id, quantity: 4 }, { productId: w.products[1]!.id, quantity: 11 }] }), NOW);
    expect(await refusal(approveTransfer(t.database, act(trf.number), NOW))).toEqual({ kind: 'INSUFFICIENT_STOCK', field: 'items[1].quantity' });
    expect((await level(w.locations[0].id, w.products[0]!.id))?.reserved.toString()).toBe('0');
    expect((await findTransfer(t.database, w.tenant.id, trf.number))?.status).toBe('pending');
  });

  it('every action from a wrong state is INVALID_STATE; reject records the reason', async () => {
    await world();
    const trf = await createTransfer(t.database, base(), NOW);
    expect(await refusal(shipTransfer(t.database, act(trf.number), NOW))).toMatchObject({ kind: 'INVALID_STATE' });
    expect(await refusal(receiveTransfer(t.database, act(trf.number), NOW))).toMatchObject({ kind: 'INVALID_STATE' });
    const rejected = await rejectTransfer(t.database, { ...act(trf.number), reason: 'wrong warehouse' }, NOW);
    expect(rejected).toMatchObject({ status: 'rejected', rejectionReason: 'wrong warehouse', rejectedBy: w.actor, rejectedAt: NOW.toISOString() });
    for (const action of [approveTransfer, shipTransfer, receiveTransfer]) {
      expect(await refusal(action(t.database, act(trf.number), NOW))).toMatchObject({ kind: 'INVALID_STATE' });
    }
    expect(await refusal(rejectTransfer(t.database, { ...act(trf.number), reason: 'x' }, NOW))).toMatchObject({ kind: 'INVALID_STATE' });
    expect(await refusal(approveTransfer(t.database, { ...act(trf.number), tenantId: other.tenant.id }, NOW))).toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('20 concurrent approvals that together exceed the stock never reserve more than is there', async () => {
    await world();
    const transfers = [];
    for (let i = 0; i < 20; i += 1) transfers.push(await createTransfer(t.database, base({ items: [{ productId: w.products[2]!.id, quantity: '1.5' }] }), NOW));
    const pools = capabilitiesOf(dialect).hasRowLocks ? [t.database, t.connectAgain()] : [t.database];
    const outcomes = await Promise.allSettled(transfers.map((trf, i) => approveTransfer(pools[i % pools.length]!, act(trf.number), NOW)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(6);
    expect((await level(w.locations[0].id, w.products[2]!.id))?.reserved.toString()).toBe('9');
    expect(await findLedgerMismatches(t.database, w.tenant.id)).toEqual([]);
  });

  it('lists newest first with all filters; date bounds are inclusive', async () => {
    await world();
    for (const [date, from] of [['2026-11-01', 0], ['2026-11-10', 1], ['2026-11-20', 0], ['2026-11-30', 1]] as const) {
      await createTransfer(t.database, base({ transferDate: date, fromLocationId: w.locations[from]!.id, toLocationId: w.locations[1 - from]!.id }), NOW);
    }
    const all = await listTransfers(t.database, w.tenant.id, {}, { page: 1, perPage: 10 });
    expect(all.total).toBe(4);
    expect(all.rows.map((r) => r.number)).toEqual(['TRF-20261122-000004', 'TRF-20261122-000003', 'TRF-20261122-000002', 'TRF-20261122-000001']);
    const between = await listTransfers(t.database, w.tenant.id, { transferDateFrom: '2026-11-10', transferDateTo: '2026-11-20' }, { page: 1, perPage: 10 });
    expect(between.rows.map((r) => r.transferDate).sort()).toEqual(['2026-11-10', '2026-11-20']);
    expect((await listTransfers(t.database, w.tenant.id, { fromLocationId: w.locations[1].id }, { page: 1, perPage: 10 })).total).toBe(2);
    expect((await listTransfers(t.database, w.tenant.id, { toLocationId: w.locations[1].id, status: 'pending' }, { page: 1, perPage: 10 })).total).toBe(2);
    expect((await listTransfers(t.database, w.tenant.id, { status: 'approved' }, { page: 1, perPage: 10 })).total).toBe(0);
    const page2 = await listTransfers(t.database, w.tenant.id, {}, { page: 2, perPage: 3 });
    expect(page2.rows.map((r) => r.number)).toEqual(['TRF-20261122-000001']);
  });
});
