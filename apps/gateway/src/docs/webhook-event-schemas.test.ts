// The payload schemas the document publishes under `webhooks` (packages/contract's
// webhook-event-schemas.ts) against what persistence really writes to the outbox: every status
// change and stock change of a tenant, on every dialect, through the same operations the routes
// call, and the test event. Here rather than in the contract, which may not depend on persistence.
import { WEBHOOK_EVENT_SCHEMAS, deliveryEventType, webhookEvent } from '@pits/contract';
import {
  announceLotBoundaries,
  approveAdjustment,
  approveTransfer,
  consumeReservation,
  createAdjustment,
  createCredentialCipher,
  createInbound,
  createReservation,
  createTestDelivery,
  createTransfer,
  createWebhookEndpoint,
  createProduct,
  databaseToday,
  moveCalendar,
  receiveInbound,
  recordOpeningStock,
  rejectAdjustment,
  releaseReservation,
  shipTransfer,
} from '@pits/persistence';
import { type TestDatabase, connectTenant, execute, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { addDays } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T11:00:00.000Z');

describe.each(dialects)('[%s] webhook payloads as persistence writes them', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('parse with the schema of their type, and every delivery type is among them', { timeout: 60_000 }, async () => {
    const w = await seedTenantWorld(t.database, { openingGood: '10', now: NOW });
    const cipher = createCredentialCipher('w'.repeat(64));
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id }, NOW);
    const { endpoint } = await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: 'https://partner.example/hooks', eventTypes: deliveryEventType.options.filter((type) => type !== 'webhook.test') }, NOW);
    const [a, b] = w.locations;
    const [p1, p2] = w.products as [(typeof w.products)[0], (typeof w.products)[0]];
    const tenant = { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor };

    // Opening stock: a cause without a document number.
    await recordOpeningStock(t.database, { tenantId: w.tenant.id, locationId: b.id, productId: p2.id, good: '4', actor: 'seed', reference: 'stock-take 2026' }, NOW);
    const increase = await createAdjustment(t.database, { ...tenant, locationId: a.id, type: 'increase', stockSource: 'damaged', reason: 'found', items: [{ productId: p1.id, quantity: '1.25', unitCost: 2 }] }, NOW);
    await approveAdjustment(t.database, { tenantId: w.tenant.id, number: increase.number, actor: w.actor }, NOW);
    const refused = await createAdjustment(t.database, { ...tenant, locationId: a.id, type: 'decrease', stockSource: 'good', reason: 'broken', items: [{ sku: 'SKU-2', quantity: 1, unitCost: 1 }] }, NOW);
    await rejectAdjustment(t.database, { tenantId: w.tenant.id, number: refused.number, actor: w.actor, reason: 'counted again' }, NOW);
    const transfer = await createTransfer(t.database, { ...tenant, fromLocationId: a.id, toLocationId: b.id, transferDate: '2026-11-22', items: [{ productId: p1.id, quantity: 2 }] }, NOW);
    await approveTransfer(t.database, { tenantId: w.tenant.id, number: transfer.number, actor: w.actor }, NOW);
    await shipTransfer(t.database, { tenantId: w.tenant.id, number: transfer.number, actor: w.actor }, NOW);
    const inbound = await createInbound(t.database, { tenantId: w.tenant.id, locationId: a.id, sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', createdBy: 'ops', lines: [{ productId: p2.id, expectedQuantity: 5 }] }, NOW);
    await receiveInbound(t.database, { tenantId: w.tenant.id, id: inbound.id, actor: w.actor, receipts: [{ sku: 'SKU-2', quantity: '2.5' }] }, NOW);
    const consumed = await createReservation(t.database, { ...tenant, locationId: a.id, reference: 'ORDER-1', expiresIn: 900, items: [{ productId: p1.id, quantity: '1.5' }] });
    await consumeReservation(t.database, { tenantId: w.tenant.id, number: consumed.number, actor: w.actor });
    const released = await createReservation(t.database, { ...tenant, locationId: a.id, reference: 'ORDER-2', expiresIn: 900, items: [{ productId: p2.id, quantity: 1 }] });
    await releaseReservation(t.database, { tenantId: w.tenant.id, number: released.number, actor: w.actor, reason: 'cancelled' });
    // A lot-tracked product: a lot one day from turning unsellable gets its notice at once, and its
    // turning unsellable (the calendar moved a day) a stock.level_changed of cause lot_expiry.
    const lotted = await createProduct(t.database, w.tenant.id, { sku: 'LOTTED', name: 'Lotted', costPrice: '1.00', publishedPrice: '2.00', productionBatch: true, outboundExpired: 5 }, 'seed', NOW);
    const today = await databaseToday(t.database);
    await recordOpeningStock(t.database, { tenantId: w.tenant.id, locationId: a.id, productId: lotted.id, good: '3', actor: 'seed', reference: 'opening', lotNumber: 'L-1', expiryDate: addDays(today, 5) }, NOW);
    await announceLotBoundaries(t.database);
    try {
      await moveCalendar(t.database, 1);
      await announceLotBoundaries(t.database);
    } finally {
      await moveCalendar(t.database, 0);
    }
    const test = await createTestDelivery(t.database, cipher, w.partner.id, endpoint.id, { holder: 'schema-test', leaseMs: 30_000, now: NOW });

    const rows = await execute(t.database, t.database.db.selectFrom('event_outbox').select(['event_id', 'type', 'payload']).where('partner_id', '=', w.partner.id).orderBy('id'));
    expect(rows.map((row) => row.event_id)).toContain(test.eventId);
    for (const row of rows) {
      const payload = JSON.parse(row.payload) as unknown;
      const schema = WEBHOOK_EVENT_SCHEMAS[row.type as keyof typeof WEBHOOK_EVENT_SCHEMAS];
      expect(schema, row.type).toBeDefined();
      const parsed = schema.safeParse(payload);
      expect(parsed.error?.issues ?? [], `${row.type} ${row.payload}`).toEqual([]);
      // The union picks the same schema by type, and the payload is what was written, unchanged.
      expect(webhookEvent.parse(payload)).toEqual(payload);
    }
    expect(new Set(rows.map((row) => row.type))).toEqual(new Set(deliveryEventType.options));
    const causes = rows.flatMap((row) => (row.type === 'stock.level_changed' ? [(JSON.parse(row.payload) as { data: { cause: { type: string } } }).data.cause.type] : []));
    expect(new Set(causes)).toEqual(new Set(['opening', 'adjustment', 'transfer', 'inbound', 'reservation', 'lot_expiry']));
    const previous = rows.flatMap((row) => (row.type === 'reservation.status_changed' ? [(JSON.parse(row.payload) as { data: { previous_status: string | null } }).data.previous_status] : []));
    expect(previous).toContain(null);
  });
});
