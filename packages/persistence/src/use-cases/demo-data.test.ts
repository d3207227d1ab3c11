// The demo world of `npm start`: every flow of the reference's guides can start from it, on both
// dialects, and its stock agrees with its ledger.
import { webhookEventType } from '@pits/contract';
import { stockKey } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../credential-cipher.js';
import { findAdjustment, listAdjustments } from '../repositories/adjustment-repository.js';
import { findInbound } from '../repositories/inbound-repository.js';
import { databaseToday } from '../repositories/lot-repository.js';
import { databaseNow, findReservation } from '../repositories/reservation-repository.js';
import { verifyStock } from '../repositories/stock-verification.js';
import { listStockLevels, listStockLots } from '../repositories/stock-read-repository.js';
import { findLedgerMismatches, readStockLevels } from '../repositories/stock-repository.js';
import { findTransfer } from '../repositories/transfer-repository.js';
import { listDeliveries } from '../repositories/webhook-delivery-repository.js';
import { listWebhookEndpoints } from '../repositories/webhook-endpoint-repository.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';
import { type DemoData, DEMO_SAMBAL_LOTS, demoCredentialsWork, demoLotOf, isDatabaseEmpty, seedDemoData } from './demo-data.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T09:30:00.000Z');

describe.each(dialects)('[%s] demo data', (dialect) => {
  let t: TestDatabase;
  let demo: DemoData;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    expect(await isDatabaseEmpty(t.database)).toBe(true);
    demo = await seedDemoData(t.database, createCredentialCipher('d'.repeat(64)), NOW, { webhookUrl: 'http://127.0.0.1:4002/webhooks' });
  });
  afterAll(() => t.cleanup());

  it('has adjustments approved and pending (an increase and a decrease)', async () => {
    const states = async (n: string) => (await findAdjustment(t.database, demo.tenantId, n))?.status;
    expect(await states(demo.adjustments.approved)).toBe('approved');
    expect(await states(demo.adjustments.pendingIncrease)).toBe('pending');
    expect(await states(demo.adjustments.pendingDecrease)).toBe('pending');
    expect(demo.adjustments.pendingDecrease).toMatch(/^ADJ-20261122-\d{6}$/);
    const { total } = await listAdjustments(t.database, demo.tenantId, {}, { page: 1, perPage: 10 });
    expect(total).toBe(3);
  });

  it('has a transfer to approve, one to ship and one to receive', async () => {
    const state = async (n: string) => (await findTransfer(t.database, demo.tenantId, n))?.status;
    expect(await state(demo.transfers.pending)).toBe('pending');
    expect(await state(demo.transfers.approved)).toBe('approved');
    expect(await state(demo.transfers.inTransit)).toBe('in_transit');
  });

  it('has inbound shipments pending and one partly received', async () => {
    for (const id of demo.inboundIds.pending) expect((await findInbound(t.database, demo.tenantId, id))?.status).toBe('pending');
    expect((await findInbound(t.database, demo.tenantId, demo.inboundIds.partial))?.status).toBe('partial');
  });

  it('has an order hold active for a week and one consumed', async () => {
    const active = await findReservation(t.database, demo.tenantId, demo.reservations.active);
    expect(active).toMatchObject({ status: 'active', reference: 'ORDER-TOKO-1002' });
    expect(active!.items.map((i) => [i.sku, i.quantity.toFixed()])).toEqual([['KOPI-ARABICA-250', '3'], ['TEH-MELATI-100', '5']]);
    const lasts = Date.parse(active!.expiresAt) - Date.parse(await databaseNow(t.database));
    expect(lasts).toBeGreaterThan(6 * 86_400_000);
    expect(lasts).toBeLessThanOrEqual(7 * 86_400_000);
    const consumed = await findReservation(t.database, demo.tenantId, demo.reservations.consumed);
    expect(consumed).toMatchObject({ status: 'consumed', reference: 'ORDER-TOKO-1001' });
    expect(consumed!.items.map((i) => [i.sku, i.consumedQuantity.toFixed()])).toEqual([['BERAS-PANDAN-5KG', '2']]);
    expect(demo.reservations.active).toMatch(/^RSV-\d{8}-000002$/);
  });

  it('leaves stock that lets the pending documents go through, and agrees with the ledger', async () => {
    const [jakarta] = demo.locationIds as [number, number];
    const levels = await readStockLevels(t.database, demo.productIds.map((productId) => ({ locationId: jakarta, productId })));
    const at = (productId: number) => levels.get(stockKey({ locationId: jakarta, productId }))!;
    const good = demo.productIds.map((productId) => at(productId).good.toFixed());
    // kopi 120, teh 340, sambal 80.5 in three lots - 12 shipped, beras 40 + 18 received - 2 of the consumed hold, kerupuk 0 + 48 approved.
    expect(good).toEqual(['120', '340', '68.5', '56', '48']);
    // The active hold: kopi 3 and teh 5; beras 8 for the approved transfer.
    expect(demo.productIds.map((productId) => at(productId).reservedForOrders.toFixed())).toEqual(['3', '5', '0', '0', '0']);
    expect(demo.productIds.map((productId) => at(productId).reserved.toFixed())).toEqual(['3', '5', '0', '8', '0']);
    expect(await findLedgerMismatches(t.database)).toEqual([]);
    expect(await verifyStock(t.database, demo.tenantId)).toEqual([]);
  });

  it('holds sambal in three lots at Jakarta: one short-dated, two sellable expiring on different days, the earliest shipped from first', async () => {
    const [jakarta] = demo.locationIds as [number, number];
    const sambal = demo.productIds[2]!;
    const today = await databaseToday(t.database);
    const { rows, total } = await listStockLots(t.database, demo.tenantId, { locationId: jakarta, productIds: [sambal] }, { page: 1, perPage: 10 });
    expect(total).toBe(3);
    const [b, c, a] = DEMO_SAMBAL_LOTS.lots.map((lot) => demoLotOf(DEMO_SAMBAL_LOTS.lotPrefix, lot, today));
    expect(b!.lotNumber).toMatch(/^SB-\d{6}-B$/);
    // Earliest expiry first; the transfer in transit took its 12 from C, the first sellable lot.
    expect(rows.map((r) => [r.lotNumber, r.expiryDate, r.productionDate, r.good.toFixed(), r.daysLeft, r.sellable, r.available.toFixed()])).toEqual([
      [b!.lotNumber, b!.expiryDate, b!.productionDate, '5', 29, false, '0'],
      [c!.lotNumber, c!.expiryDate, c!.productionDate, '18', 70, true, '18'],
      [a!.lotNumber, a!.expiryDate, a!.productionDate, '45.5', 157, true, '45.5'],
    ]);
    const sellable = await listStockLots(t.database, demo.tenantId, { locationId: jakarta, productIds: [sambal], sellable: true }, { page: 1, perPage: 10 });
    expect(sellable.rows.map((r) => r.lotNumber)).toEqual([c!.lotNumber, a!.lotNumber]);
    // The row reports the short-dated lot's 5 units, and the pending damaged increase names lot A.
    const level = (await listStockLevels(t.database, demo.tenantId, { locationId: jakarta, productIds: [sambal] }, { page: 1, perPage: 1 })).rows[0]!;
    expect([level.good.toFixed(), level.reserved.toFixed(), level.shortDated.toFixed()]).toEqual(['68.5', '0', '5']);
    const pending = await findAdjustment(t.database, demo.tenantId, demo.adjustments.pendingIncrease);
    expect(pending?.items.map((i) => i.lotNumber)).toEqual([a!.lotNumber]);
  });

  it('registers the webhook endpoint it was given for every event type, with the events of the seed waiting as deliveries', async () => {
    const endpoints = await listWebhookEndpoints(t.database, demo.partnerId);
    expect(endpoints.map((e) => [e.id, e.url, e.isActive])).toEqual([[demo.webhook?.id, 'http://127.0.0.1:4002/webhooks', true]]);
    expect(endpoints[0]?.eventTypes).toEqual(webhookEventType.options);
    expect(demo.webhook?.secret).toMatch(/^whsec_/);
    const deliveries = await listDeliveries(t.database, demo.partnerId, { limit: 100 });
    expect(new Set(deliveries.map((d) => d.eventType))).toEqual(new Set(webhookEventType.options));
    expect(await isDatabaseEmpty(t.database)).toBe(false);
  });

  it('recognises its own credentials, and refuses those of another seed', async () => {
    expect(await demoCredentialsWork(t.database, demo)).toBe(true);
    // Another database's seed: its key and tenant were never in this one.
    const other = await openTestDatabase(dialect);
    try {
      const elsewhere = await seedDemoData(other.database, createCredentialCipher('d'.repeat(64)), NOW);
      expect(await demoCredentialsWork(t.database, elsewhere)).toBe(false);
      expect(await demoCredentialsWork(t.database, { ...demo, tenantId: elsewhere.tenantId })).toBe(false);
      expect(await demoCredentialsWork(t.database, { ...demo, partnerId: demo.partnerId + 1 })).toBe(false);
      expect(await demoCredentialsWork(t.database, { ...demo, tenantId: 'not-a-uuid' })).toBe(false);
    } finally {
      await other.cleanup();
    }
  });
});
