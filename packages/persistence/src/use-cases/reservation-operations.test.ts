import { AppError, type ErrorKind } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../credential-cipher.js';
import { execute, executeWrite } from '../execution/execute.js';
import { findReservation, listReservations } from '../repositories/reservation-repository.js';
import { readStockLevels } from '../repositories/stock-repository.js';
import { createWebhookEndpoint } from '../repositories/webhook-endpoint-repository.js';
import { type TestDatabase, type TenantWorld, ageReservation, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { createAdjustment, approveAdjustment } from './adjustment-operations.js';
import { consumeReservation, createReservation, expireAllDue, extendReservation, releaseReservation } from './reservation-operations.js';
import { withTransaction } from '../transaction.js';
import { verifyStock } from '../repositories/stock-verification.js';
import { approveTransfer, createTransfer, shipTransfer } from './transfer-operations.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T11:00:00.000Z');

async function refusal(promise: Promise<unknown>): Promise<{ kind: ErrorKind; field: string; fields?: string[] }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) {
      const fields = error.error.issues?.map((i) => i.field);
      return fields ? { kind: error.kind, field: error.error.details.field, fields } : { kind: error.kind, field: error.error.details.field };
    }
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(dialects)('[%s] reservation operations', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let seq = 0;
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { poolSize: 8 });
  });
  afterAll(() => t.cleanup());

  async function world(openingGood = '10') {
    seq += 1;
    w = await seedTenantWorld(t.database, { openingGood, label: `R${seq}` });
    return w;
  }
  const create = (overrides: Record<string, unknown> = {}) =>
    createReservation(t.database, {
      tenantId: w.tenant.id,
      partnerId: w.partner.id,
      actor: w.actor,
      locationId: w.locations[0].id,
      reference: `ORDER-${seq}`,
      expiresIn: 900,
      items: [
        { productId: w.products[0]!.id, quantity: '2.5' },
        { sku: 'SKU-2', quantity: 3 },
      ],
      ...overrides,
    });
  const act = (number: string) => ({ tenantId: w.tenant.id, number, actor: w.actor });
  const level = async (productIndex: number) => {
    const found = (await readStockLevels(t.database, [{ locationId: w.locations[0].id, productId: w.products[productIndex]!.id }])).values().next().value!;
    return { good: found.good.toFixed(), reserved: found.reserved.toFixed(), forOrders: found.reservedForOrders.toFixed() };
  };
  /** Moves a hold's expiry into the past, as time passing would. */
  const age = (number: string) => ageReservation(t.database, w.tenant.id, number);

  it('holds every line in reserved and reserved_for_orders, with an RSV number and the expiry counted by the database clock', async () => {
    await world();
    const before = Date.now();
    const created = await create();
    expect(created).toMatchObject({ number: expect.stringMatching(/^RSV-\d{8}-000001$/), reference: `ORDER-${seq}`, status: 'active', consumedAt: null, releasedAt: null, releaseReason: null });
    expect(created.items.map((i) => [i.sku, i.quantity.toFixed(), i.consumedQuantity.toFixed()])).toEqual([['SKU-1', '2.5', '0'], ['SKU-2', '3', '0']]);
    const lasts = Date.parse(created.expiresAt) - Date.parse(created.createdAt);
    expect(lasts).toBe(900_000);
    expect(Date.parse(created.createdAt)).toBeGreaterThanOrEqual(before - 5_000);
    expect(await level(0)).toEqual({ good: '10', reserved: '2.5', forOrders: '2.5' });
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('holds all lines or none, naming every short line; a second active hold of one reference is refused', async () => {
    await world('3');
    expect(await refusal(create({ items: [{ productId: w.products[0]!.id, quantity: 4 }, { productId: w.products[1]!.id, quantity: 1 }, { productId: w.products[2]!.id, quantity: 5 }] }))).toEqual({
      kind: 'INSUFFICIENT_STOCK',
      field: 'items[0].quantity',
      fields: ['items[0].quantity', 'items[2].quantity'],
    });
    expect(await level(1)).toEqual({ good: '3', reserved: '0', forOrders: '0' });
    await create({ items: [{ productId: w.products[0]!.id, quantity: 1 }] });
    expect(await refusal(create({ items: [{ productId: w.products[1]!.id, quantity: 1 }] }))).toEqual({ kind: 'VALIDATION_ERROR', field: 'reference' });
    expect(await refusal(create({ reference: 'other', locationId: 999_999 }))).toEqual({ kind: 'VALIDATION_ERROR', field: 'location_id' });
    expect(await refusal(create({ reference: 'other', items: [{ sku: 'SKU-1', quantity: 1 }, { productId: w.products[0]!.id, quantity: 1 }] }))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[1].product_id' });
  });

  it('release gives the stock back once; consume takes it out of good; both only while active', async () => {
    await world();
    const released = await releaseReservation(t.database, { ...act((await create()).number), reason: 'customer cancelled' });
    expect(released).toMatchObject({ status: 'released', releaseReason: 'customer cancelled' });
    expect(released.releasedAt).not.toBeNull();
    expect(await level(0)).toEqual({ good: '10', reserved: '0', forOrders: '0' });
    expect(await refusal(releaseReservation(t.database, act(released.number)))).toEqual({ kind: 'INVALID_STATE', field: 'status' });
    expect(await refusal(consumeReservation(t.database, act(released.number)))).toEqual({ kind: 'INVALID_STATE', field: 'status' });

    const consumed = await consumeReservation(t.database, act((await create({ reference: 'B' })).number));
    expect(consumed.status).toBe('consumed');
    expect(consumed.items.map((i) => i.consumedQuantity.toFixed())).toEqual(['2.5', '3']);
    expect(await level(0)).toEqual({ good: '7.5', reserved: '0', forOrders: '0' });
    expect(await refusal(extendReservation(t.database, { ...act(consumed.number), expiresIn: 600 }))).toEqual({ kind: 'INVALID_STATE', field: 'status' });
    expect(await refusal(releaseReservation(t.database, { ...act('RSV-20261122-999999') }))).toEqual({ kind: 'NOT_FOUND', field: 'id' });
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('a partial consume takes the named quantities and releases the rest', async () => {
    await world();
    const hold = await create();
    expect(await refusal(consumeReservation(t.database, { ...act(hold.number), items: [{ productId: w.products[0]!.id, quantity: 3 }] }))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[0].quantity' });
    expect(await refusal(consumeReservation(t.database, { ...act(hold.number), items: [{ productId: w.products[4]!.id, quantity: 1 }] }))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[0]' });
    const consumed = await consumeReservation(t.database, { ...act(hold.number), items: [{ sku: 'SKU-1', quantity: '1.25' }] });
    expect(consumed.items.map((i) => i.consumedQuantity.toFixed())).toEqual(['1.25', '0']);
    expect(await level(0)).toEqual({ good: '8.75', reserved: '0', forOrders: '0' });
    expect(await level(1)).toEqual({ good: '10', reserved: '0', forOrders: '0' });
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('extend counts a new expiry from now by the database clock', async () => {
    await world();
    const hold = await create({ expiresIn: 60 });
    const extended = await extendReservation(t.database, { ...act(hold.number), expiresIn: 3600 });
    expect(Date.parse(extended.expiresAt) - Date.parse(extended.updatedAt)).toBe(3_600_000);
    expect(extended.status).toBe('active');
  });

  it('a hold past its expiry reads as expired at once, a call on it expires it and is refused, and the stock comes back once', async () => {
    await world();
    const hold = await create();
    await age(hold.number);
    expect((await findReservation(t.database, w.tenant.id, hold.number))?.status).toBe('expired');
    expect((await listReservations(t.database, w.tenant.id, { status: 'expired' }, { page: 1, perPage: 10 })).total).toBe(1);
    expect((await listReservations(t.database, w.tenant.id, { status: 'active' }, { page: 1, perPage: 10 })).total).toBe(0);
    expect(await refusal(consumeReservation(t.database, act(hold.number)))).toEqual({ kind: 'INVALID_STATE', field: 'status' });
    expect(await level(0)).toEqual({ good: '10', reserved: '0', forOrders: '0' });
    const stored = await execute(t.database, t.database.db.selectFrom('reservations').select(['status', 'released_at']).where('tenant_id', '=', w.tenant.id).where('number', '=', hold.number));
    expect(stored[0]!.status).toBe('expired');
    expect(stored[0]!.released_at).not.toBeNull();
    expect(await refusal(releaseReservation(t.database, act(hold.number)))).toEqual({ kind: 'INVALID_STATE', field: 'status' });
    expect((await expireAllDue(t.database)).expired).toBe(0);
    expect(await level(0)).toEqual({ good: '10', reserved: '0', forOrders: '0' });
    // The order can be held again once its hold expired, even before any sweep.
    const again = await create();
    await age(again.number);
    const third = await create();
    expect(third.status).toBe('active');
    expect((await findReservation(t.database, w.tenant.id, again.number))?.status).toBe('expired');
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('inside a wider transaction (a request\'s), the expiry a refused call finds still commits', async () => {
    await world();
    const hold = await create();
    await age(hold.number);
    const refused = await refusal(withTransaction(t.database, (tx) => releaseReservation(tx, act(hold.number))));
    expect(refused).toEqual({ kind: 'INVALID_STATE', field: 'status' });
    expect(await level(0)).toEqual({ good: '10', reserved: '0', forOrders: '0' });
    expect((await expireAllDue(t.database)).expired).toBe(0);
  });

  it('the sweep expires every due hold once, in batches, and leaves the others', async () => {
    await world();
    const due = [];
    for (let i = 0; i < 5; i += 1) due.push(await create({ reference: `due-${i}`, items: [{ productId: w.products[0]!.id, quantity: 1 }] }));
    const kept = await create({ reference: 'kept', items: [{ productId: w.products[0]!.id, quantity: 2 }] });
    for (const h of due) await age(h.number);
    const run = await expireAllDue(t.database, 2);
    expect(run).toEqual({ expired: 5, passes: 3, setAside: [] });
    for (const h of due) expect((await findReservation(t.database, w.tenant.id, h.number))?.status).toBe('expired');
    expect((await findReservation(t.database, w.tenant.id, kept.number))?.status).toBe('active');
    expect(await level(0)).toEqual({ good: '10', reserved: '2', forOrders: '2' });
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('concurrent holds for the last units: exactly as many succeed as the stock allows', async () => {
    await world('7');
    const tries = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => create({ reference: `race-${i}`, items: [{ productId: w.products[0]!.id, quantity: 1 }] })));
    const won = tries.filter((r) => r.status === 'fulfilled').length;
    const lost = tries.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(won).toBe(7);
    expect(lost.every((e) => e instanceof AppError && e.kind === 'INSUFFICIENT_STOCK')).toBe(true);
    expect(await level(0)).toEqual({ good: '7', reserved: '7', forOrders: '7' });
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('consume, release, extend and the sweep racing on one hold: exactly one ending wins, stock moved once', async () => {
    await world();
    for (let round = 0; round < 3; round += 1) {
      const hold = await create({ reference: `end-${round}` });
      const calls = [
        consumeReservation(t.database, act(hold.number)),
        releaseReservation(t.database, act(hold.number)),
        extendReservation(t.database, { ...act(hold.number), expiresIn: 600 }),
        age(hold.number).then(() => expireAllDue(t.database)),
        consumeReservation(t.database, act(hold.number)),
        releaseReservation(t.database, act(hold.number)),
      ];
      const names = ['consume', 'release', 'extend', 'sweep', 'consume', 'release'];
      const settled = await Promise.allSettled(calls);
      const won = (name: string) => settled.filter((r, i) => names[i] === name && r.status === 'fulfilled').length;
      // Whoever wins, a losing call is a refusal of the hold's state, never another error; the sweep never refuses.
      const refusals = settled.flatMap((r, i) => (r.status === 'rejected' ? [{ call: names[i], kind: r.reason instanceof AppError ? r.reason.kind : String(r.reason) }] : []));
      expect(refusals.filter((r) => r.kind !== 'INVALID_STATE' || r.call === 'sweep'), `round ${round}`).toEqual([]);
      expect(won('consume') + won('release'), `round ${round}: at most one ending call wins`).toBeLessThanOrEqual(1);
      const final = (await findReservation(t.database, w.tenant.id, hold.number))!;
      expect(['consumed', 'released', 'expired']).toContain(final.status);
      // The ending the hold shows is the one call that won, or none when it expired.
      expect({ consume: won('consume'), release: won('release') }, `round ${round}: ${final.status}`).toEqual({
        consume: final.status === 'consumed' ? 1 : 0,
        release: final.status === 'released' ? 1 : 0,
      });
      expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
    }
    const levels = await level(0);
    expect(levels.reserved).toBe('0');
  });

  it('holds race adjustment decreases and transfer approvals on one product: available never below zero', async () => {
    await world('6');
    const adjustment = await createAdjustment(
      t.database,
      { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, type: 'decrease', stockSource: 'good', reason: 'loss', items: [{ productId: w.products[0]!.id, quantity: 4, unitCost: '1' }] },
      NOW,
    );
    const transfer = await createTransfer(
      t.database,
      { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, fromLocationId: w.locations[0].id, toLocationId: w.locations[1].id, transferDate: '2026-11-22', items: [{ productId: w.products[0]!.id, quantity: 3 }] },
      NOW,
    );
    const settled = await Promise.allSettled([
      approveAdjustment(t.database, { tenantId: w.tenant.id, number: adjustment.number, actor: w.actor }, NOW),
      approveTransfer(t.database, act(transfer.number), NOW),
      ...Array.from({ length: 4 }, (_, i) => create({ reference: `mix-${i}`, items: [{ productId: w.products[0]!.id, quantity: 1 }] })),
    ]);
    // Each document is approved once and each hold has its own reference, so the only refusal any
    // of them can meet, in any order, is too little available stock; anything else is a failure.
    const refused = settled.flatMap((r) => (r.status === 'rejected' ? [r.reason instanceof AppError ? r.reason.kind : String(r.reason)] : []));
    expect(refused.filter((kind) => kind !== 'INSUFFICIENT_STOCK')).toEqual([]);
    const after = await level(0);
    expect(Number(after.good) - Number(after.reserved)).toBeGreaterThanOrEqual(0);
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
    // A shipped transfer leaves what orders hold untouched.
    if (after.reserved !== after.forOrders) {
      await shipTransfer(t.database, act(transfer.number), NOW);
      expect((await level(0)).forOrders).toBe(after.forOrders);
    }
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('writes reservation.status_changed and one stock.level_changed per row changed, versions growing per row', async () => {
    await world();
    const cipher = createCredentialCipher('k'.repeat(32));
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, NOW);
    await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: 'http://127.0.0.1:1/in', eventTypes: ['stock.level_changed', 'reservation.status_changed'] }, NOW);
    const hold = await create();
    await consumeReservation(t.database, { ...act(hold.number), items: [{ productId: w.products[0]!.id, quantity: 1 }] });
    const events = await execute(t.database, t.database.db.selectFrom('event_outbox').select(['type', 'payload']).where('tenant_id', '=', w.tenant.id).orderBy('id'));
    const payloads = events.map((e) => JSON.parse(e.payload) as { type: string; data: Record<string, unknown> });
    expect(payloads.filter((p) => p.type === 'reservation.status_changed').map((p) => [p.data['previous_status'], p.data['status']])).toEqual([[null, 'active'], ['active', 'consumed']]);
    const levels = payloads.filter((p) => p.type === 'stock.level_changed').map((p) => p.data);
    expect(levels).toHaveLength(4);
    const first = levels.filter((l) => l['product_id'] === String(w.products[0]!.id));
    expect(first.map((l) => [l['good'], l['reserved'], l['reserved_for_orders'], l['reserved_for_transfers'], l['available']])).toEqual([
      [10, 2.5, 2.5, 0, 7.5],
      [9, 0, 0, 0, 9],
    ]);
    expect(first[1]!['version']).toBeGreaterThan(first[0]!['version'] as number);
    expect(first[0]).toMatchObject({ sku: 'SKU-1', location_id: w.locations[0].id, cause: { type: 'reservation', id: hold.number, number: hold.number } });
  });

  it('stock.verify lists every row whose held quantities or ledger disagree, and nothing when all is well', async () => {
    await world();
    await create();
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
    const row = { locationId: w.locations[0].id, productId: w.products[0]!.id };
    await executeWrite(t.database, t.database.db.updateTable('stock_levels').set({ reserved_for_orders: 0 }).where('location_id', '=', row.locationId).where('product_id', '=', row.productId));
    const found = await verifyStock(t.database, w.tenant.id);
    expect(found.map((f) => [f.productId, f.check, f.recorded.toFixed(), f.expected.toFixed()])).toEqual([
      [row.productId, 'reserved_for_orders', '0', '2.5'],
      [row.productId, 'reserved_for_transfers', '2.5', '0'],
    ]);
    await executeWrite(t.database, t.database.db.updateTable('stock_levels').set({ reserved_for_orders: 25_000, good: 120_000 }).where('location_id', '=', row.locationId).where('product_id', '=', row.productId));
    expect((await verifyStock(t.database, w.tenant.id)).map((f) => [f.check, f.recorded.toFixed(), f.expected.toFixed()])).toEqual([['ledger_good', '12', '10']]);
    // A hold whose stock row does not exist (only location 0 has stock) is listed under its own
    // tenant, with or without the tenant filter.
    const elsewhere = w.locations[1].id;
    await executeWrite(t.database, t.database.db.updateTable('reservations').set({ location_id: elsewhere }).where('tenant_id', '=', w.tenant.id));
    expect(await readStockLevels(t.database, [{ locationId: elsewhere, productId: row.productId }])).toEqual(new Map());
    for (const filter of [w.tenant.id, undefined]) {
      const orphans = (await verifyStock(t.database, filter)).filter((f) => f.locationId === elsewhere && f.productId === row.productId);
      expect(orphans.map((f) => [f.tenantId, f.check, f.recorded.toFixed(), f.expected.toFixed()])).toEqual([[w.tenant.id, 'reserved_for_orders', '0', '2.5']]);
    }
  });
});
