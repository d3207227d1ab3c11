// Lots and expiry dates on both databases (docs/lots.md): first expired first out and pinning,
// all-or-nothing refusals, a lot's own floor, the day boundary moved by the test calendar,
// shelf life on receipt, lots through a transfer, and stock.verify over all of it.
import { AppError, type ErrorKind, addDays } from '@pits/domain';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../credential-cipher.js';
import { execute, executeWrite } from '../execution/execute.js';
import { databaseToday, moveCalendar } from '../repositories/lot-repository.js';
import { createProduct } from '../repositories/product-repository.js';
import { findReservation } from '../repositories/reservation-repository.js';
import { listStockLevels, listStockLots, listStockMovements } from '../repositories/stock-read-repository.js';
import { verifyStock } from '../repositories/stock-verification.js';
import { createWebhookEndpoint } from '../repositories/webhook-endpoint-repository.js';
import { type TestDatabase, type TenantWorld, ageReservation, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { findAdjustment } from '../repositories/adjustment-repository.js';
import { approveAdjustment, createAdjustment, recordStockCount } from './adjustment-operations.js';
import { createInbound, receiveInbound } from './inbound-operations.js';
import { announceLotBoundaries } from './lot-boundary-operations.js';
import { consumeReservation, createReservation, expireAllDue, releaseReservation } from './reservation-operations.js';
import { recordOpeningStock } from './stock-operations.js';
import { approveTransfer, createTransfer, receiveTransfer, shipTransfer } from './transfer-operations.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T11:00:00.000Z');

async function refusal(promise: Promise<unknown>): Promise<{ kind: ErrorKind; field: string; message: string; fields?: string[] }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) {
      const fields = error.error.issues?.map((i) => i.field);
      const base = { kind: error.kind, field: error.error.details.field, message: error.message };
      return fields ? { ...base, fields } : base;
    }
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(dialects)('[%s] lots and expiry dates', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let today: string;
  let seq = 0;
  /** A lot-tracked product: minimum 30 days left to sell, 60 on receipt. */
  let lotted: { id: number; sku: string };
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { poolSize: 8 });
  });
  afterAll(() => t.cleanup());
  afterEach(async () => {
    await moveCalendar(t.database, 0);
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  const at = () => w.locations[0].id;
  /** A world with a lot-tracked product holding three lots at the first location: 10 expiring in 100 days, 5 in 50, 4 in 10 (short-dated). */
  async function world() {
    seq += 1;
    w = await seedTenantWorld(t.database, { openingGood: '10', label: `L${seq}` });
    today = await databaseToday(t.database);
    const product = await createProduct(t.database, w.tenant.id, { sku: 'SAMBAL', name: 'Sambal', costPrice: '2.00', publishedPrice: '4.00', productionBatch: true, outboundExpired: 30, inboundExpired: 60 }, 'seed', NOW);
    lotted = { id: product.id, sku: product.sku };
    await opening('LOT-A', 100, '10');
    await opening('LOT-B', 50, '5');
    await opening('LOT-C', 10, '4');
  }
  const opening = (lotNumber: string, daysLeft: number, good: string, locationId = at()) =>
    recordOpeningStock(t.database, { tenantId: w.tenant.id, locationId, productId: lotted.id, good, actor: 'seed', reference: 'opening', lotNumber, expiryDate: addDays(today, daysLeft) }, NOW);
  const hold = (quantity: string | number, extra: { lotNumber?: string; reference?: string } = {}) =>
    createReservation(t.database, {
      tenantId: w.tenant.id,
      partnerId: w.partner.id,
      actor: w.actor,
      locationId: at(),
      reference: extra.reference ?? `ORDER-${Math.random()}`,
      expiresIn: 900,
      items: [{ productId: lotted.id, quantity, lotNumber: extra.lotNumber }],
    });
  const lots = async (locationId = at()) =>
    Object.fromEntries(
      (await listStockLots(t.database, w.tenant.id, { locationId, productIds: [lotted.id] }, { page: 1, perPage: 50 })).rows.map((l) => [
        l.lotNumber,
        { good: l.good.toFixed(), reserved: l.reserved.toFixed(), available: l.available.toFixed(), sellable: l.sellable, expiry: l.expiryDate },
      ]),
    );
  const row = async (locationId = at()) => {
    const found = (await listStockLevels(t.database, w.tenant.id, { locationId, productIds: [lotted.id] }, { page: 1, perPage: 5 })).rows[0]!;
    return { good: found.good.toFixed(), reserved: found.reserved.toFixed(), shortDated: found.shortDated.toFixed() };
  };
  const allocations = (items: { allocations: { lotNumber: string; quantity: { toFixed(): string } }[] }[]) => items.map((i) => i.allocations.map((a) => [a.lotNumber, a.quantity.toFixed()]));

  it('lists lots first expiring first, with days left, sellability and a short-dated lot out of available', async () => {
    await world();
    const page = await listStockLots(t.database, w.tenant.id, { productIds: [lotted.id] }, { page: 1, perPage: 10 });
    expect(page.rows.map((l) => [l.lotNumber, l.daysLeft, l.sellable, l.available.toFixed()])).toEqual([
      ['LOT-C', 10, false, '0'],
      ['LOT-B', 50, true, '5'],
      ['LOT-A', 100, true, '10'],
    ]);
    expect(await row()).toEqual({ good: '19', reserved: '0', shortDated: '4' });
    expect((await listStockLots(t.database, w.tenant.id, { sellable: false }, { page: 1, perPage: 10 })).rows.map((l) => l.lotNumber)).toEqual(['LOT-C']);
    expect((await listStockLots(t.database, w.tenant.id, { expiringBefore: addDays(today, 60) }, { page: 1, perPage: 10 })).rows.map((l) => l.lotNumber)).toEqual(['LOT-C', 'LOT-B']);
    // Products without lots have no short-dated units.
    const plain = (await listStockLevels(t.database, w.tenant.id, { productIds: [w.products[0]!.id] }, { page: 1, perPage: 5 })).rows[0]!;
    expect(plain.shortDated.toFixed()).toBe('0');
  });

  it('holds first expired first out, or the pinned lot, and never a short-dated unit', async () => {
    await world();
    const fefo = await hold(7);
    expect(allocations(fefo.items)).toEqual([[['LOT-B', '5'], ['LOT-A', '2']]]);
    const pinned = await hold(3, { lotNumber: 'LOT-A' });
    expect(allocations(pinned.items)).toEqual([[['LOT-A', '3']]]);
    // The allocations are read back with the hold.
    expect(allocations((await findReservation(t.database, w.tenant.id, fefo.number))!.items)).toEqual([[['LOT-B', '5'], ['LOT-A', '2']]]);
    expect(await lots()).toMatchObject({ 'LOT-A': { reserved: '5', available: '5' }, 'LOT-B': { reserved: '5', available: '0' }, 'LOT-C': { reserved: '0', sellable: false } });
    const shortDated = await refusal(hold(1, { lotNumber: 'LOT-C' }));
    expect(shortDated).toMatchObject({ kind: 'INSUFFICIENT_STOCK', field: 'items[0].quantity' });
    expect(shortDated.message).toContain('not sellable');
    // The row has 19 good and 10 reserved, but only 5 sellable units are free: refused, nothing held.
    const short = await refusal(hold(6));
    expect(short).toMatchObject({ kind: 'INSUFFICIENT_STOCK', field: 'items[0].quantity' });
    expect(short.message).toContain('4 more in lots too close to expiry');
    expect(await row()).toEqual({ good: '19', reserved: '10', shortDated: '4' });
    expect(await hold(5)).toMatchObject({ status: 'active' });
    expect(await lots()).toMatchObject({ 'LOT-A': { reserved: '10', available: '0' } });
  });

  it('holds all lines or none across products with and without lots, naming every short line', async () => {
    await world();
    const mixed = (quantities: [string, string]) =>
      createReservation(t.database, {
        tenantId: w.tenant.id,
        partnerId: w.partner.id,
        actor: w.actor,
        locationId: at(),
        reference: `MIX-${Math.random()}`,
        expiresIn: 900,
        items: [
          { productId: w.products[0]!.id, quantity: quantities[0] },
          { productId: lotted.id, quantity: quantities[1] },
        ],
      });
    expect(await refusal(mixed(['11', '16']))).toMatchObject({ kind: 'INSUFFICIENT_STOCK', fields: ['items[0].quantity', 'items[1].quantity'] });
    expect(await refusal(mixed(['1', '16']))).toMatchObject({ kind: 'INSUFFICIENT_STOCK', field: 'items[1].quantity' });
    expect(await row()).toEqual({ good: '19', reserved: '0', shortDated: '4' });
    const held = await mixed(['1', '15']);
    expect(allocations(held.items)).toEqual([[], [['LOT-B', '5'], ['LOT-A', '10']]]);
    expect(await refusal(createReservation(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: at(), reference: 'X', expiresIn: 60, items: [{ productId: w.products[0]!.id, quantity: 1, lotNumber: 'LOT-A' }] }))).toMatchObject({
      kind: 'VALIDATION_ERROR',
      field: 'items[0].lot_number',
    });
  });

  it('consumes from the allocations in their order and releases the rest; release and expiry give every lot back', async () => {
    await world();
    const first = await hold(7);
    await consumeReservation(t.database, { tenantId: w.tenant.id, number: first.number, actor: w.actor, items: [{ productId: lotted.id, quantity: 6 }] });
    // LOT-B is empty: a lot without units is not listed.
    expect(await lots()).toMatchObject({ 'LOT-A': { good: '9', reserved: '0' } });
    expect(Object.keys(await lots())).toEqual(['LOT-C', 'LOT-A']);
    const movements = (await listStockMovements(t.database, w.tenant.id, { productId: lotted.id }, { limit: 20 })).rows.filter((m) => m.causeId === first.number && m.bucket === 'good');
    expect(movements.map((m) => [m.lotNumber, m.change.toFixed()]).sort()).toEqual([
      ['LOT-A', '-1'],
      ['LOT-B', '-5'],
    ]);
    const second = await hold(4);
    await releaseReservation(t.database, { tenantId: w.tenant.id, number: second.number, actor: w.actor });
    const third = await hold(9);
    await ageReservation(t.database, w.tenant.id, third.number);
    expect((await expireAllDue(t.database, 10)).expired).toBeGreaterThanOrEqual(1);
    expect(await lots()).toMatchObject({ 'LOT-A': { good: '9', reserved: '0', available: '9' } });
  });

  it("keeps each lot above zero and above its reserved units, even when the row has enough", async () => {
    await world();
    await hold(5, { lotNumber: 'LOT-B' });
    const decrease = await createAdjustment(
      t.database,
      { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: at(), type: 'decrease', stockSource: 'good', reason: 'broken', items: [{ productId: lotted.id, quantity: 1, unitCost: 1, lotNumber: 'LOT-B' }] },
      NOW,
    );
    expect(decrease.items[0]).toMatchObject({ lotNumber: 'LOT-B' });
    const refused = await refusal(approveAdjustment(t.database, { tenantId: w.tenant.id, number: decrease.number, actor: w.actor }, NOW));
    expect(refused).toMatchObject({ kind: 'INSUFFICIENT_STOCK', field: 'items[0].quantity' });
    expect(refused.message).toContain('lot LOT-B');
    // A count of the lot below its reserved units is refused the same way; one at or above sets it.
    expect(await refusal(recordStockCount(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: at(), stockSource: 'good', items: [{ productId: lotted.id, lotNumber: 'LOT-B', counted: 4, expected: 5 }] }, NOW))).toMatchObject({
      kind: 'INSUFFICIENT_STOCK',
    });
    expect(await refusal(recordStockCount(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: at(), stockSource: 'good', items: [{ productId: lotted.id, lotNumber: 'LOT-A', counted: 8, expected: 19 }] }, NOW))).toMatchObject({
      kind: 'STALE_QUANTITY',
    });
    await recordStockCount(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: at(), stockSource: 'good', items: [{ productId: lotted.id, lotNumber: 'LOT-A', counted: 8, expected: 10 }] }, NOW);
    expect(await lots()).toMatchObject({ 'LOT-A': { good: '8' }, 'LOT-B': { good: '5', reserved: '5' } });
    expect(await row()).toMatchObject({ good: '17', reserved: '5' });
  });

  it('requires the lot on lines of lot-tracked products, refuses it elsewhere, and keeps a lot its expiry date', async () => {
    await world();
    const adjust = (items: Record<string, unknown>[]) =>
      createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: at(), type: 'increase', stockSource: 'good', reason: 'found', items: items as never }, NOW);
    expect(await refusal(adjust([{ productId: lotted.id, quantity: 1, unitCost: 1 }]))).toMatchObject({ kind: 'VALIDATION_ERROR', field: 'items[0].lot_number' });
    expect(await refusal(adjust([{ productId: w.products[0]!.id, quantity: 1, unitCost: 1, lotNumber: 'X1' }]))).toMatchObject({ kind: 'VALIDATION_ERROR', field: 'items[0].lot_number' });
    expect(await refusal(adjust([{ productId: lotted.id, quantity: 1, unitCost: 1, lotNumber: 'LOT-A', expiryDate: addDays(today, 5) }]))).toMatchObject({ kind: 'VALIDATION_ERROR', field: 'items[0].expiry_date' });
    expect(await refusal(adjust([{ productId: lotted.id, quantity: 1, unitCost: 1, lotNumber: 'NEW-1' }]))).toMatchObject({ kind: 'VALIDATION_ERROR', field: 'items[0].expiry_date' });
    // An increase creates a new lot with its dates, at approval; adjustments are not held to inbound_expired.
    const created = await adjust([{ productId: lotted.id, quantity: 2, unitCost: 1, lotNumber: 'NEW-1', expiryDate: addDays(today, 40), productionDate: addDays(today, -10) }]);
    await approveAdjustment(t.database, { tenantId: w.tenant.id, number: created.number, actor: w.actor }, NOW);
    expect(await lots()).toMatchObject({ 'NEW-1': { good: '2', sellable: true, expiry: addDays(today, 40) } });
    // Its detail names the lot of the line, read in the same statement as the line.
    const detail = (await findAdjustment(t.database, w.tenant.id, created.number))!;
    expect(detail.items.map((i) => [i.lotNumber, i.expiryDate])).toEqual([['NEW-1', addDays(today, 40)]]);
  });

  it('refuses a receipt below inbound_expired with SHELF_LIFE_TOO_SHORT and applies nothing of it', async () => {
    await world();
    const shipment = await createInbound(t.database, { tenantId: w.tenant.id, locationId: at(), sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', createdBy: 'ops', lines: [{ productId: lotted.id, expectedQuantity: 10 }, { productId: w.products[0]!.id, expectedQuantity: 5 }] }, NOW);
    const receive = (receipts: Record<string, unknown>[]) => receiveInbound(t.database, { tenantId: w.tenant.id, id: shipment.id, actor: w.actor, receipts: receipts as never }, NOW);
    const refused = await refusal(
      receive([
        { sku: w.products[0]!.sku, quantity: '5' },
        { sku: lotted.sku, quantity: '4', lotNumber: 'IN-1', expiryDate: addDays(today, 59) },
      ]),
    );
    expect(refused).toMatchObject({ kind: 'SHELF_LIFE_TOO_SHORT', field: 'items[1].expiry_date' });
    expect(refused.message).toMatch(/60/);
    expect(refused.message).toMatch(/59/);
    expect(await row()).toMatchObject({ good: '19' });
    await receive([
      { sku: w.products[0]!.sku, quantity: '5' },
      { sku: lotted.sku, quantity: '4', lotNumber: 'IN-1', expiryDate: addDays(today, 60) },
    ]);
    expect(await lots()).toMatchObject({ 'IN-1': { good: '4', sellable: true } });
    expect(await refusal(receive([{ sku: lotted.sku, quantity: '1' }]))).toMatchObject({ kind: 'VALIDATION_ERROR', field: 'items[0].lot_number' });
  });

  it('transfers ship the lots allocated first expired first out, and the destination receives them with their dates', async () => {
    await world();
    const transfer = await createTransfer(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, fromLocationId: at(), toLocationId: w.locations[1].id, transferDate: '2026-11-22', items: [{ productId: lotted.id, quantity: 7 }] }, NOW);
    expect(await refusal(createTransfer(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, fromLocationId: at(), toLocationId: w.locations[1].id, transferDate: '2026-11-22', items: [{ productId: lotted.id, quantity: 16 }] }, NOW).then((big) => approveTransfer(t.database, { tenantId: w.tenant.id, number: big.number, actor: w.actor }, NOW)))).toMatchObject({ kind: 'INSUFFICIENT_STOCK' });
    const approved = await approveTransfer(t.database, { tenantId: w.tenant.id, number: transfer.number, actor: w.actor }, NOW);
    expect(allocations(approved.items)).toEqual([[['LOT-B', '5'], ['LOT-A', '2']]]);
    await shipTransfer(t.database, { tenantId: w.tenant.id, number: transfer.number, actor: w.actor }, NOW);
    expect(await lots()).toMatchObject({ 'LOT-A': { good: '8', reserved: '0' } });
    await receiveTransfer(t.database, { tenantId: w.tenant.id, number: transfer.number, actor: w.actor }, NOW);
    expect(await lots(w.locations[1].id)).toEqual({
      'LOT-B': { good: '5', reserved: '0', available: '5', sellable: true, expiry: addDays(today, 50) },
      'LOT-A': { good: '2', reserved: '0', available: '2', sellable: true, expiry: addDays(today, 100) },
    });
  });

  it('a lot crossing its day boundary leaves available at once, and the boundary job sends its events once', async () => {
    await world();
    // 30 days left today: sellable until tomorrow 00:00 WIB (its notice is due at once); 37 days
    // left: sellable 8 more days, its notice due tomorrow.
    await opening('LOT-D', 30, '6');
    await opening('LOT-E', 37, '2');
    const cipher = createCredentialCipher('k'.repeat(32));
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, NOW);
    await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: 'http://127.0.0.1:1/in', eventTypes: ['stock.level_changed', 'stock.lot_expiring'] }, NOW);
    await hold(2, { lotNumber: 'LOT-D' });
    await announceLotBoundaries(t.database, 50);
    const events = async () =>
      (await execute(t.database, t.database.db.selectFrom('event_outbox').select('payload').where('tenant_id', '=', w.tenant.id).orderBy('id'))).map(
        (e) => JSON.parse(e.payload) as { type: string; data: Record<string, unknown> },
      );
    const sent = await events();
    // LOT-C (already short-dated) and LOT-D (a day from it) are announced on the first run; LOT-E is not due yet.
    expect(sent.filter((e) => e.type === 'stock.lot_expiring').map((e) => e.data['lot_number'])).toEqual(['LOT-C', 'LOT-D']);
    expect(await row()).toEqual({ good: '27', reserved: '2', shortDated: '4' });

    await moveCalendar(t.database, 1);
    // Reads show the crossing at once, before any job ran: LOT-D's 4 free units are short-dated, its 2 held stay held.
    expect(await row()).toEqual({ good: '27', reserved: '2', shortDated: '8' });
    expect(await lots()).toMatchObject({ 'LOT-D': { sellable: false, available: '0', reserved: '2' } });
    const run = await announceLotBoundaries(t.database, 50);
    expect(run).toEqual({ expiring: 1, unsellable: 1 });
    const after = (await events()).slice(sent.length);
    expect(after.filter((e) => e.type === 'stock.lot_expiring').map((e) => [e.data['lot_number'], e.data['days_left'], e.data['unsellable_from']])).toEqual([
      ['LOT-E', 36, addDays(today, 8)],
    ]);
    const changed = after.filter((e) => e.type === 'stock.level_changed');
    expect(changed.map((e) => [e.data['short_dated'], e.data['available'], (e.data['cause'] as { type: string; id: string }).type, (e.data['cause'] as { id: string }).id])).toEqual([[8, 17, 'lot_expiry', 'LOT-D']]);
    // Once per lot and location.
    expect(await announceLotBoundaries(t.database, 50)).toEqual({ expiring: 0, unsellable: 0 });
    // A hold can no longer take LOT-D.
    expect(allocations((await hold(3)).items)).toEqual([[['LOT-E', '2'], ['LOT-B', '1']]]);
  });

  it('the boundary job marks emptied lots without a word, and a lot stocked again at a location gets its notice again', async () => {
    await world();
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, NOW);
    await createWebhookEndpoint(t.database, createCredentialCipher('k'.repeat(32)), w.partner.id, { url: 'http://127.0.0.1:1/in', eventTypes: ['stock.lot_expiring'] }, NOW);
    // 35 days left: its notice is due (6 days before it turns unsellable); counted to nothing first.
    await opening('LOT-F', 35, '2');
    await recordStockCount(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: at(), stockSource: 'good', items: [{ productId: lotted.id, lotNumber: 'LOT-F', counted: 0, expected: 2 }] }, NOW);
    const notices = async () =>
      (await execute(t.database, t.database.db.selectFrom('event_outbox').select('payload').where('tenant_id', '=', w.tenant.id).where('type', '=', 'stock.lot_expiring').orderBy('id'))).map(
        (e) => (JSON.parse(e.payload) as { data: { lot_number: string } }).data.lot_number,
      );
    expect(await announceLotBoundaries(t.database, 50)).toMatchObject({ expiring: 1 });
    expect(await notices()).toEqual(['LOT-C']);
    // Only lots whose day has not come are still to read: LOT-A and LOT-B.
    const unsent = await execute(t.database, t.database.db.selectFrom('lot_stock').innerJoin('lots', 'lots.id', 'lot_stock.lot_id').select('lots.lot_number').where('lot_stock.product_id', '=', lotted.id).where('lot_stock.expiring_sent', '=', 0));
    expect(unsent.map((r) => r.lot_number).sort()).toEqual(['LOT-A', 'LOT-B']);
    const refill = await createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: at(), type: 'increase', stockSource: 'good', reason: 'found', items: [{ productId: lotted.id, quantity: 1, unitCost: 1, lotNumber: 'LOT-F' }] }, NOW);
    await approveAdjustment(t.database, { tenantId: w.tenant.id, number: refill.number, actor: w.actor }, NOW);
    expect(await announceLotBoundaries(t.database, 50)).toMatchObject({ expiring: 1 });
    expect(await notices()).toEqual(['LOT-C', 'LOT-F']);
  });

  it('moves existing stock of a flagged product into lot LEGACY by migration, and verify lists a row whose lots do not add up', async () => {
    await world();
    const legacyRow = await execute(t.database, t.database.db.selectFrom('lots').select('lot_number').where('product_id', '=', lotted.id));
    expect(legacyRow.map((r) => r.lot_number).sort()).toEqual(['LOT-A', 'LOT-B', 'LOT-C']);
    await executeWrite(t.database, t.database.db.updateTable('lot_stock').set({ good: 0 }).where('product_id', '=', lotted.id).where('lot_id', 'in', t.database.db.selectFrom('lots').select('id').where('lot_number', '=', 'LOT-C')));
    const found = await verifyStock(t.database, w.tenant.id);
    expect(found).toEqual([expect.objectContaining({ productId: lotted.id, check: 'lots_good', recorded: expect.anything(), expected: expect.anything() })]);
    expect(found[0]!.recorded.toFixed()).toBe('19');
    expect(found[0]!.expected.toFixed()).toBe('15');
    // Put it back for the afterEach check.
    await executeWrite(t.database, t.database.db.updateTable('lot_stock').set({ good: 40_000 }).where('product_id', '=', lotted.id).where('lot_id', 'in', t.database.db.selectFrom('lots').select('id').where('lot_number', '=', 'LOT-C')));
  });

  it('concurrent holds over three lots (one short-dated) hold exactly the sellable units, never a short-dated one', async () => {
    await world();
    const attempts = 30;
    const results = await Promise.allSettled(Array.from({ length: attempts }, (_, i) => hold(1, { reference: `RACE-${i}` })));
    const held = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason as AppError);
    expect(held).toHaveLength(15);
    expect(refused.every((e) => e instanceof AppError && e.kind === 'INSUFFICIENT_STOCK')).toBe(true);
    expect(await lots()).toMatchObject({ 'LOT-A': { reserved: '10' }, 'LOT-B': { reserved: '5' }, 'LOT-C': { reserved: '0' } });
  });
});
