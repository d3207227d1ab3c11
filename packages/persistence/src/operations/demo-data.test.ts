// The demo world of `npm start`: every flow of the reference's guides can start from it, on both
// dialects, and its stock agrees with its ledger.
import { webhookEventType } from '@pits/contract';
import { stockKey } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../credential-cipher.js';
import { findAdjustment, listAdjustments } from '../repositories/adjustment-repository.js';
import { findInbound } from '../repositories/inbound-repository.js';
import { databaseNow, findReservation } from '../repositories/reservation-repository.js';
import { verifyStock } from '../repositories/stock-verification.js';
import { findLedgerMismatches, readStockLevels } from '../repositories/stock-repository.js';
import { findTransfer } from '../repositories/transfer-repository.js';
import { listDeliveries, listWebhookEndpoints } from '../repositories/webhook-repository.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';
import { type DemoData, demoCredentialsWork, isDatabaseEmpty, seedDemoData } from './demo-data.js';

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
    // kopi 120, teh 340, sambal 75.5 - 12 shipped, beras 40 + 18 received - 2 of the consumed hold, kerupuk 0 + 48 approved.
    expect(good).toEqual(['120', '340', '63.5', '56', '48']);
    // The active hold: kopi 3 and teh 5; beras 8 for the approved transfer.
    expect(demo.productIds.map((productId) => at(productId).reservedForOrders.toFixed())).toEqual(['3', '5', '0', '0', '0']);
    expect(demo.productIds.map((productId) => at(productId).reserved.toFixed())).toEqual(['3', '5', '0', '8', '0']);
    expect(await findLedgerMismatches(t.database)).toEqual([]);
    expect(await verifyStock(t.database, demo.tenantId)).toEqual([]);
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
