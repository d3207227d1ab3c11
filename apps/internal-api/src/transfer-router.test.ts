import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Actor, addDays } from '@pits/domain';
import { approveTransfer, createTransfer, databaseToday } from '@pits/persistence';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

interface World {
  tenantId: string;
  partnerId: number;
  actor: Actor;
  from: number;
  to: number;
  kopi: number;
  teh: number;
}

describe.each(dialects)('[%s] transfers', (dialect) => {
  let api: TestApi;
  let clock = TEST_NOW.getTime();
  let w: World;
  let other: World;
  let seq = 0;

  /** A tenant of a partner with two warehouses, two products (cost 12.50 and 3.25) and 10 good of each at the first warehouse. */
  async function world(): Promise<World> {
    seq += 1;
    const partner = await api.caller.partners.create({ name: `Partner ${seq}`, email: `dev${seq}@partner.example`, tier: 'small' });
    const tenantId = (await api.caller.tenants.create({ name: `Store ${seq}` })).id;
    const from = (await api.caller.locations.create({ tenantId, code: 'WH-JKT', name: 'Jakarta', picName: 'Budi' })).id;
    const to = (await api.caller.locations.create({ tenantId, code: 'WH-SBY', name: 'Surabaya' })).id;
    const kopi = (await api.caller.products.create({ tenantId, sku: 'KOPI-250', name: 'Kopi 250 g', costPrice: '12.50' })).id;
    const teh = (await api.caller.products.create({ tenantId, sku: 'TEH-100', name: 'Teh 100 g', costPrice: '3.25' })).id;
    for (const productId of [kopi, teh]) await api.caller.stock.recordOpening({ tenantId, locationId: from, productId, good: 10, reference: 'OPEN' });
    return { tenantId, partnerId: partner.id, actor: { id: partner.id, name: partner.name, email: partner.email }, from, to, kopi, teh };
  }

  /** A pending transfer of 2.5 kopi and 3 teh, made the way the partners' gateway makes it. */
  async function pending(at: World = w): Promise<string> {
    const created = await createTransfer(
      api.t.database,
      {
        tenantId: at.tenantId,
        partnerId: at.partnerId,
        actor: at.actor,
        fromLocationId: at.from,
        toLocationId: at.to,
        transferDate: '2026-11-22',
        items: [
          { productId: at.kopi, quantity: '2.5' },
          { productId: at.teh, quantity: 3, notes: 'fragile' },
        ],
      },
      new Date(clock),
    );
    return created.number;
  }

  async function approved(at: World = w): Promise<string> {
    const number = await pending(at);
    await approveTransfer(api.t.database, { tenantId: at.tenantId, number, actor: at.actor }, new Date(clock));
    return number;
  }

  const level = async (tenantId: string, locationId: number, productId: number) =>
    (await api.caller.stock.levels({ tenantId, locationId, productId })).levels[0];

  beforeAll(async () => {
    api = await openTestApi(dialect, { now: () => new Date(clock) });
    w = await world();
    other = await world();
  });
  afterAll(() => api.t.cleanup());

  it('ships and receives a transfer through its whole lifecycle; stock moves and the ledger stays balanced', async () => {
    const number = await approved();
    expect(await level(w.tenantId, w.from, w.kopi)).toMatchObject({ good: '10', reserved: '2.5', available: '7.5' });

    clock += 3_600_000;
    const shipped = await api.caller.transfers.ship({ tenantId: w.tenantId, number });
    expect(shipped).toMatchObject({
      number,
      status: 'in_transit',
      shippedAt: new Date(clock).toISOString(),
      shippedBy: { id: 0, name: 'internal-api', email: 'internal@platform' },
      receivedAt: null,
      receivedBy: null,
    });
    expect(await level(w.tenantId, w.from, w.kopi)).toMatchObject({ good: '7.5', reserved: '0', available: '7.5' });
    expect(await level(w.tenantId, w.from, w.teh)).toMatchObject({ good: '7', reserved: '0' });

    clock += 86_400_000;
    const courier = { id: 42, name: 'Gudang Surabaya', email: 'sby@store.example' };
    const received = await api.caller.transfers.receive({ tenantId: w.tenantId, number, actor: courier });
    expect(received).toMatchObject({ status: 'completed', receivedAt: new Date(clock).toISOString(), receivedBy: courier, actualArrivalDate: new Date(clock).toISOString().slice(0, 10) });
    expect(await level(w.tenantId, w.to, w.kopi)).toMatchObject({ good: '2.5', damaged: '0', reserved: '0', available: '2.5' });
    expect(await level(w.tenantId, w.to, w.teh)).toMatchObject({ good: '3' });

    const arrival = await api.caller.stock.ledger({ tenantId: w.tenantId, locationId: w.to, productId: w.kopi });
    expect(arrival.movements.map((m) => [m.causeType, m.documentNumber, m.bucket, m.before, m.change, m.after])).toEqual([['transfer', number, 'good', '0', '2.5', '2.5']]);
    const departure = await api.caller.stock.ledger({ tenantId: w.tenantId, locationId: w.from, productId: w.kopi });
    expect(departure.movements.map((m) => [m.causeType, m.bucket, m.change])).toEqual([
      ['transfer', 'good', '-2.5'],
      ['transfer', 'reserved', '-2.5'],
      ['transfer', 'reserved', '2.5'],
      ['opening', 'good', '10'],
    ]);
    expect(await api.caller.stock.checkLedger({ tenantId: w.tenantId })).toEqual({ balanced: true, mismatches: [] });
    expect(await api.caller.stock.checkLedger()).toEqual({ balanced: true, mismatches: [] });
  });

  it('byNumber returns the transfer with its items as exact decimal strings', async () => {
    const number = await pending();
    const transfer = await api.caller.transfers.byNumber({ tenantId: w.tenantId, number });
    expect(transfer).toMatchObject({
      tenantId: w.tenantId,
      number,
      status: 'pending',
      transferDate: '2026-11-22',
      fromLocation: { id: w.from, code: 'WH-JKT', name: 'Jakarta', contactPerson: 'Budi' },
      toLocation: { id: w.to, code: 'WH-SBY', name: 'Surabaya' },
      totalItems: 2,
      totalQuantity: '5.5',
      totalValue: '41',
      createdBy: w.actor,
      approvedBy: null,
      shippedBy: null,
    });
    expect(transfer.items.map((i) => [i.lineNo, i.productId, i.sku, i.quantity, i.unitPrice, i.totalValue, i.notes])).toEqual([
      [1, w.kopi, 'KOPI-250', '2.5', '12.5', '31.25', ''],
      [2, w.teh, 'TEH-100', '3', '3.25', '9.75', 'fragile'],
    ]);
  });

  it('a lot-tracked line shows the lots it took at approval, first expired first, as exact decimal strings (docs/lots.md#holds-and-transfers)', async () => {
    const today = await databaseToday(api.t.database);
    const madu = (await api.caller.products.create({ tenantId: w.tenantId, sku: 'MADU-LOT', name: 'Madu', productionBatch: true })).id;
    await api.caller.stock.recordOpening({ tenantId: w.tenantId, locationId: w.from, productId: madu, good: '1.5', reference: 'OPEN', lotNumber: 'M-SOON', expiryDate: addDays(today, 40) });
    await api.caller.stock.recordOpening({ tenantId: w.tenantId, locationId: w.from, productId: madu, good: '5', reference: 'OPEN', lotNumber: 'M-LATE', expiryDate: addDays(today, 90) });
    const created = await createTransfer(
      api.t.database,
      { tenantId: w.tenantId, partnerId: w.partnerId, actor: w.actor, fromLocationId: w.from, toLocationId: w.to, transferDate: '2026-11-22', items: [{ productId: madu, quantity: '2' }, { productId: w.teh, quantity: 1 }] },
      new Date(clock),
    );
    await approveTransfer(api.t.database, { tenantId: w.tenantId, number: created.number, actor: w.actor }, new Date(clock));
    const shipped = await api.caller.transfers.ship({ tenantId: w.tenantId, number: created.number });
    expect(shipped.items.map((i) => [i.sku, i.allocations])).toEqual([
      ['MADU-LOT', [
        { lotNumber: 'M-SOON', expiryDate: addDays(today, 40), quantity: '1.5' },
        { lotNumber: 'M-LATE', expiryDate: addDays(today, 90), quantity: '0.5' },
      ]],
      ['TEH-100', []],
    ]);
    expect((await api.caller.transfers.byNumber({ tenantId: w.tenantId, number: created.number })).items[0]!.allocations).toEqual(shipped.items[0]!.allocations);
  });

  it('shipping a pending transfer, or receiving one not in transit, is CONFLICT with kind INVALID_STATE, and moves nothing', async () => {
    const stillPending = await pending();
    const before = await api.caller.stock.levels({ tenantId: w.tenantId, perPage: 100 });
    expect(await refusal(api.caller.transfers.ship({ tenantId: w.tenantId, number: stillPending }))).toMatchObject({ code: 'CONFLICT', kind: 'INVALID_STATE', field: 'status' });
    expect(await refusal(api.caller.transfers.receive({ tenantId: w.tenantId, number: stillPending }))).toMatchObject({ code: 'CONFLICT', kind: 'INVALID_STATE' });
    expect(await api.caller.stock.levels({ tenantId: w.tenantId, perPage: 100 })).toEqual(before);
    const notShipped = await approved();
    const afterApproval = await api.caller.stock.levels({ tenantId: w.tenantId, perPage: 100 });
    expect(await refusal(api.caller.transfers.receive({ tenantId: w.tenantId, number: notShipped }))).toMatchObject({ code: 'CONFLICT', kind: 'INVALID_STATE' });
    expect(await api.caller.stock.levels({ tenantId: w.tenantId, perPage: 100 })).toEqual(afterApproval);
    await api.caller.transfers.ship({ tenantId: w.tenantId, number: notShipped });
    expect(await refusal(api.caller.transfers.ship({ tenantId: w.tenantId, number: notShipped }))).toMatchObject({ code: 'CONFLICT', kind: 'INVALID_STATE' });
    expect((await api.caller.transfers.byNumber({ tenantId: w.tenantId, number: stillPending })).status).toBe('pending');
    expect(await api.caller.stock.checkLedger({ tenantId: w.tenantId })).toEqual({ balanced: true, mismatches: [] });
  });

  it("another tenant's transfer is NOT_FOUND on number, exactly like an unknown one, and is not touched", async () => {
    const theirs = await approved(other);
    for (const call of [
      () => api.caller.transfers.ship({ tenantId: w.tenantId, number: theirs }),
      () => api.caller.transfers.receive({ tenantId: w.tenantId, number: theirs }),
      () => api.caller.transfers.byNumber({ tenantId: w.tenantId, number: theirs }),
      () => api.caller.transfers.ship({ tenantId: w.tenantId, number: 'TRF-20261122-999999' }),
      () => api.caller.transfers.byNumber({ tenantId: w.tenantId, number: 'TRF-20261122-999999' }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'number' });
    }
    expect((await api.caller.transfers.byNumber({ tenantId: other.tenantId, number: theirs })).status).toBe('approved');
    expect(await level(other.tenantId, other.from, other.kopi)).toMatchObject({ good: '10', reserved: '2.5' });
  });

  it('an unknown tenant is NOT_FOUND on tenantId; malformed inputs are BAD_REQUEST on the field', async () => {
    const ghost = randomUUID();
    for (const call of [
      () => api.caller.transfers.ship({ tenantId: ghost, number: 'TRF-20261122-000001' }),
      () => api.caller.transfers.receive({ tenantId: ghost, number: 'TRF-20261122-000001' }),
      () => api.caller.transfers.byNumber({ tenantId: ghost, number: 'TRF-20261122-000001' }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'tenantId' });
    }
    expect(await refusal(api.caller.transfers.ship({ tenantId: w.tenantId, number: 'ADJ-20261122-000001' }))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'number' });
    expect(await refusal(api.caller.transfers.byNumber({ tenantId: w.tenantId, number: '' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'number' });
    expect(await refusal(api.caller.transfers.receive({ tenantId: w.tenantId, number: 'TRF-20261122-000001', actor: { id: 1, name: '', email: 'x@y.example' } }))).toMatchObject({ code: 'BAD_REQUEST', field: 'actor.name' });
  });

  it('without the service token every transfer procedure is UNAUTHORIZED, and nothing moves', async () => {
    const number = await approved();
    for (const call of [
      () => api.anonymous.transfers.ship({ tenantId: w.tenantId, number }),
      () => api.anonymous.transfers.receive({ tenantId: w.tenantId, number }),
      () => api.anonymous.transfers.byNumber({ tenantId: w.tenantId, number }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
    }
    expect((await api.caller.transfers.byNumber({ tenantId: w.tenantId, number })).status).toBe('approved');
  });
});
