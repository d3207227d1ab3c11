// Lots and expiry dates through the assembled gateway (docs/lots.md): every success checked against
// the contract's strict response schemas, every refusal against the error envelope.
import {
  adjustmentDetailResponse,
  approveTransferResponse,
  createAdjustmentResponse,
  createTransferResponse,
  errorEnvelope,
  receiveInboundResponse,
  reservationResponse,
  stockLevelsResponse,
  stockLotsResponse,
  stockMovementsResponse,
  transferDetailResponse,
} from '@pits/contract';
import { addDays } from '@pits/domain';
import { createInbound, createProduct, databaseToday, recordOpeningStock } from '@pits/persistence';
import { testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TenantGateway, openTenantGateway } from '../testing/tenant-gateway.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] lot routes', (dialect) => {
  let g: TenantGateway;
  let today: string;
  let lotted: { id: number; sku: string };
  beforeAll(async () => {
    g = await openTenantGateway(dialect, { products: 2, openingGood: '10' });
    today = await databaseToday(g.t.database);
    const product = await createProduct(g.t.database, g.w.tenant.id, { sku: 'SAMBAL', name: 'Sambal', costPrice: '2.00', publishedPrice: '4.00', productionBatch: true, outboundExpired: 30, inboundExpired: 60 }, 'seed', new Date());
    lotted = { id: product.id, sku: product.sku };
    for (const [lotNumber, days, good] of [['SB-A', 100, '10'], ['SB-B', 50, '5'], ['SB-C', 10, '4']] as const) {
      await recordOpeningStock(g.t.database, { tenantId: g.w.tenant.id, locationId: jakarta(), productId: lotted.id, good, actor: 'seed', reference: 'opening', lotNumber, expiryDate: addDays(today, days) }, new Date());
    }
  });
  afterAll(() => g.close());
  const call: TenantGateway['call'] = (...args) => g.call(...args);
  const jakarta = () => g.w.locations[0].id;

  it('GET /stock/lots lists the lots first expiring first, filtered; GET /stock shows short_dated out of available', async () => {
    const all = (await call(stockLotsResponse, 'GET', `/api/partner/v1/stock/lots?sku=${lotted.sku}`)).data;
    expect(all.lots.map((l) => [l.lot_number, l.days_left, l.sellable, l.available])).toEqual([
      ['SB-C', 10, false, 0],
      ['SB-B', 50, true, 5],
      ['SB-A', 100, true, 10],
    ]);
    expect(all.pagination).toMatchObject({ current_page: 1, total: 3 });
    const sellable = (await call(stockLotsResponse, 'GET', `/api/partner/v1/stock/lots?product_id=${lotted.id}&sellable=true&expiring_before=${addDays(today, 60)}`)).data;
    expect(sellable.lots.map((l) => l.lot_number)).toEqual(['SB-B']);
    const level = (await call(stockLevelsResponse, 'GET', `/api/partner/v1/stock?product_id=${lotted.id}`)).data.stock[0]!;
    expect([level.good, level.short_dated, level.available]).toEqual([19, 4, 15]);
    expect((await call(errorEnvelope, 'GET', '/api/partner/v1/stock/lots?expiring_before=2026-02-30', undefined, 422)).error.details.field).toBe('expiring_before');
    expect((await call(errorEnvelope, 'GET', '/api/partner/v1/stock/lots?sellable=maybe', undefined, 422)).error.details.field).toBe('sellable');
  });

  it('a hold shows its allocations first expired first out; one sellable lots cannot cover is 422 INSUFFICIENT_STOCK', async () => {
    const held = (await call(reservationResponse, 'POST', '/api/partner/v1/reservations', { location_id: jakarta(), reference: 'LOT-ORDER-1', items: [{ sku: lotted.sku, quantity: 7 }] }, 201)).data.reservation;
    expect(held.items[0]!.allocations).toEqual([
      { lot_number: 'SB-B', expiry_date: addDays(today, 50), quantity: 5 },
      { lot_number: 'SB-A', expiry_date: addDays(today, 100), quantity: 2 },
    ]);
    const refused = (await call(errorEnvelope, 'POST', '/api/partner/v1/reservations', { location_id: jakarta(), reference: 'LOT-ORDER-2', items: [{ sku: lotted.sku, quantity: 9 }] }, 422)).error;
    expect(refused).toMatchObject({ code: 'INSUFFICIENT_STOCK', details: { field: 'items[0].quantity' } });
    const pinned = (await call(errorEnvelope, 'POST', '/api/partner/v1/reservations', { location_id: jakarta(), reference: 'LOT-ORDER-3', items: [{ sku: lotted.sku, quantity: 1, lot_number: 'SB-C' }] }, 422)).error;
    expect(pinned.message).toContain('not sellable');
    const untracked = (await call(errorEnvelope, 'POST', '/api/partner/v1/reservations', { location_id: jakarta(), reference: 'LOT-ORDER-4', items: [{ sku: 'SKU-1', quantity: 1, lot_number: 'SB-A' }] }, 422)).error;
    expect(untracked.details.field).toBe('items[0].lot_number');
    await call(reservationResponse, 'POST', `/api/partner/v1/reservations/${held.id}/consume`, {}, 200);
    const moved = (await call(stockMovementsResponse, 'GET', `/api/partner/v1/stock/movements?product_id=${lotted.id}&limit=20`)).data.movements.filter((m) => m.cause_id === held.id && m.bucket === 'good');
    expect(moved.map((m) => [m.lot_number, m.quantity_change]).sort()).toEqual([
      ['SB-A', -2],
      ['SB-B', -5],
    ]);
  });

  it('adjustment lines name their lot (422 on lot_number otherwise); the line answers with it', async () => {
    const missing = (await call(errorEnvelope, 'POST', '/api/partner/v1/adjustments', { location_id: jakarta(), type: 'increase', stock_source: 'good', reason: 'found', items: [{ sku: lotted.sku, quantity: 1, unit_cost: 1 }] }, 422)).error;
    expect(missing).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'items[0].lot_number' } });
    const created = (
      await call(createAdjustmentResponse, 'POST', '/api/partner/v1/adjustments', { location_id: jakarta(), type: 'increase', stock_source: 'good', reason: 'found', items: [{ sku: lotted.sku, quantity: 1, unit_cost: 1, lot_number: 'SB-NEW', expiry_date: addDays(today, 200) }] }, 201)
    ).data.adjustment;
    const detail = (await call(adjustmentDetailResponse, 'GET', `/api/engine/v1/adjustments/${created.id}`)).data.adjustment;
    expect(detail.items[0]).toMatchObject({ lot_number: 'SB-NEW', expiry_date: addDays(today, 200) });
  });

  it('a transfer approves its lots and answers with them; a receipt short of inbound_expired is 422 SHELF_LIFE_TOO_SHORT', async () => {
    const created = (await call(createTransferResponse, 'POST', '/api/partner/v1/transfers', { from_location_id: jakarta(), to_location_id: g.w.locations[1].id, transfer_date: '2026-11-22', items: [{ sku: lotted.sku, quantity: 2, lot_number: 'SB-A' }] }, 201)).data.transfer;
    // Its available stock is what GET /stock says: short-dated units left out.
    const level = (await call(stockLevelsResponse, 'GET', `/api/partner/v1/stock?product_id=${lotted.id}&location_id=${jakarta()}`)).data.stock[0]!;
    expect(level.short_dated).toBeGreaterThan(0);
    expect(created.items[0]!.available_stock).toBe(level.available);
    const approved = (await call(approveTransferResponse, 'POST', `/api/partner/v1/transfers/${created.id}/approve`, {}, 200)).data.transfer;
    expect(approved.status).toBe('approved');
    // The pinned lot is what the approval took, shown on the line.
    const detail = (await call(transferDetailResponse, 'GET', `/api/engine/v1/transfers/${created.id}`)).data.transfer;
    expect(detail.items[0]!.allocations).toEqual([{ lot_number: 'SB-A', expiry_date: addDays(today, 100), quantity: 2 }]);
    const shipment = await createInbound(g.t.database, { tenantId: g.w.tenant.id, locationId: jakarta(), sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', createdBy: 'ops', lines: [{ productId: lotted.id, expectedQuantity: 10 }] }, new Date());
    const short = (await call(errorEnvelope, 'POST', `/api/partner/v1/inbound/${shipment.id}/receive`, { items: [{ sku: lotted.sku, received_quantity: 2, lot_number: 'IN-1', expiry_date: addDays(today, 30) }] }, 422)).error;
    expect(short).toMatchObject({ code: 'SHELF_LIFE_TOO_SHORT', details: { field: 'items[0].expiry_date' } });
    await call(receiveInboundResponse, 'POST', `/api/partner/v1/inbound/${shipment.id}/receive`, { items: [{ sku: lotted.sku, received_quantity: 2, lot_number: 'IN-1', expiry_date: addDays(today, 90) }] }, 200);
    const lots = (await call(stockLotsResponse, 'GET', `/api/partner/v1/stock/lots?sku=${lotted.sku}&location_id=${jakarta()}`)).data.lots;
    expect(lots.find((l) => l.lot_number === 'IN-1')).toMatchObject({ good: 2, sellable: true });
    expect(lots.find((l) => l.lot_number === 'SB-A')).toMatchObject({ reserved: 2 });
  });
});
