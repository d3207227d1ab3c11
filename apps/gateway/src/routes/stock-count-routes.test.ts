// Stock counts, SKU lines and batch stock reads through the assembled gateway: every success
// checked against its strict response schema, every refusal against the error envelope.
import {
  adjustmentDetailResponse,
  createAdjustmentResponse,
  createTransferResponse,
  errorEnvelope,
  stockCountResponse,
  stockLevelsResponse,
} from '@pits/contract';
import { type TenantWorld, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TenantGateway, openTenantGateway } from '../testing/tenant-gateway.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] stock counts and SKU lines', (dialect) => {
  let g: TenantGateway;
  let w: TenantWorld;
  beforeAll(async () => {
    g = await openTenantGateway(dialect, { products: 4, openingGood: '10' });
    w = g.w;
  });
  afterAll(() => g.close());
  const call: TenantGateway['call'] = (...args) => g.call(...args);
  const good = async (productIndex: number) =>
    (await call(stockLevelsResponse, 'GET', `/api/partner/v1/stock?location_id=${w.locations[0].id}&sku=${w.products[productIndex]!.sku}`)).data.stock[0]?.good;

  it('a count answers 201 with the approved adjustment in detail form; a stale count is 409 naming every stale line', async () => {
    const body = {
      location_id: w.locations[0].id,
      stock_source: 'good',
      items: [
        { sku: 'SKU-1', counted: 8, expected: 10 },
        { product_id: String(w.products[1]!.id), counted: 13, expected: '10' },
        { sku: 'SKU-3', counted: 10, expected: null },
      ],
    };
    const created = await call(stockCountResponse, 'POST', '/api/partner/v1/stock/counts', body, 201);
    const a = created.data.adjustment;
    expect(a).toMatchObject({ status: 'approved', reason: 'stock count', type: 'increase', stock_source: 'good', item_count: 2, approved_by: { id: w.partner.id } });
    expect(a.items.map((i) => [i.sku, i.product_id, i.type, i.quantity, i.current_stock])).toEqual([
      ['SKU-1', String(w.products[0]!.id), 'decrease', 2, 8],
      ['SKU-2', String(w.products[1]!.id), 'increase', 3, 13],
    ]);
    const detail = await call(adjustmentDetailResponse, 'GET', `/api/engine/v1/adjustments/${a.id}`);
    expect(detail.data.adjustment.items.map((i) => i.type)).toEqual(['decrease', 'increase']);
    // The same body again: every expected is now stale but the opted-out line.
    const stale = await call(errorEnvelope, 'POST', '/api/partner/v1/stock/counts', body, 409);
    expect(stale).toMatchObject({ status: 'conflict', error: { code: 'STALE_QUANTITY', details: { field: 'items[0].expected', issue: 'is 10 but the current quantity is 8' } } });
    expect(stale.error.issues).toEqual([
      { field: 'items[0].expected', issue: 'is 10 but the current quantity is 8' },
      { field: 'items[1].expected', issue: 'is 10 but the current quantity is 13' },
    ]);
    expect([await good(0), await good(1), await good(2)]).toEqual([8, 13, 10]);
  });

  it('replays a count sent again with the same Idempotency-Key instead of counting twice', async () => {
    const body = { location_id: w.locations[1].id, stock_source: 'damaged', items: [{ sku: 'SKU-4', counted: 2, expected: 0 }] };
    const headers = { 'Idempotency-Key': `count-${dialect}` };
    const first = await call(stockCountResponse, 'POST', '/api/partner/v1/stock/counts', body, 201, headers);
    const again = await call(stockCountResponse, 'POST', '/api/partner/v1/stock/counts', body, 201, headers);
    expect(again.data).toEqual(first.data);
  });

  it('refuses a count with nothing to change, both or neither product reference, a bad count, or too many lines', async () => {
    const line = { counted: 1, expected: null };
    const cases: [unknown[], number, string, string][] = [
      [[{ sku: 'SKU-3', counted: 10, expected: 10 }], 422, 'items', 'the count matches the stock; there is nothing to change'],
      [[{ ...line, sku: 'SKU-1', product_id: w.products[0]!.id }], 422, 'items[0].sku', 'must not be given together with product_id'],
      [[{ ...line, sku: 'SKU-1' }, { ...line }], 422, 'items[1].product_id', 'is required (or give sku instead)'],
      [[{ sku: 'SKU-1', counted: -1, expected: null }], 422, 'items[0].counted', 'must be at least 0'],
      [[{ sku: 'SKU-1', counted: 1 }], 422, 'items[0].expected', 'is required'],
      [[{ ...line, sku: 'NOPE' }], 422, 'items[0].sku', 'product with sku "NOPE" does not exist for this tenant'],
      [[{ ...line, sku: 'SKU-1' }, { ...line, product_id: w.products[0]!.id }], 422, 'items[1].product_id', 'is the same product as items[0]'],
    ];
    for (const [items, status, field, issue] of cases) {
      const refused = await call(errorEnvelope, 'POST', '/api/partner/v1/stock/counts', { location_id: w.locations[0].id, stock_source: 'good', items }, status);
      expect(refused.error.details, JSON.stringify(items)).toEqual({ field, issue });
    }
    const many = Array.from({ length: 501 }, () => ({ ...line, sku: 'SKU-1' }));
    expect((await call(errorEnvelope, 'POST', '/api/partner/v1/stock/counts', { location_id: w.locations[0].id, stock_source: 'good', items: many }, 413)).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(await good(0)).toBe(8);
  });

  it('adjustment and transfer lines take sku instead of product_id; both or neither is 422 on the line', async () => {
    const adjustment = await call(createAdjustmentResponse, 'POST', '/api/partner/v1/adjustments', {
      location_id: w.locations[0].id, type: 'increase', stock_source: 'good', reason: 'found',
      items: [{ sku: 'SKU-4', quantity: 1, unit_cost: 2 }],
    }, 201);
    expect(adjustment.data.adjustment.items[0]).toMatchObject({ product_id: String(w.products[3]!.id), sku: 'SKU-4', type: 'increase' });
    const transfer = await call(createTransferResponse, 'POST', '/api/partner/v1/transfers', {
      from_location_id: w.locations[0].id, to_location_id: w.locations[1].id, transfer_date: '2026-11-23',
      items: [{ sku: 'SKU-4', quantity: 1 }],
    }, 201);
    expect(transfer.data.transfer.items[0]).toMatchObject({ product_id: String(w.products[3]!.id), sku: 'SKU-4', available_stock: 10 });
    const both = await call(errorEnvelope, 'POST', '/api/partner/v1/transfers', {
      from_location_id: w.locations[0].id, to_location_id: w.locations[1].id, transfer_date: '2026-11-23',
      items: [{ sku: 'SKU-4', quantity: 1 }, { sku: 'SKU-1', product_id: w.products[0]!.id, quantity: 1 }],
    }, 422);
    expect(both.error.details).toEqual({ field: 'items[1].sku', issue: 'must not be given together with product_id' });
    const neither = await call(errorEnvelope, 'POST', '/api/partner/v1/adjustments', {
      location_id: w.locations[0].id, type: 'increase', stock_source: 'good', reason: 'found', items: [{ quantity: 1, unit_cost: 2 }],
    }, 422);
    expect(neither.error.details).toEqual({ field: 'items[0].product_id', issue: 'is required (or give sku instead)' });
  });

  it('reads stock for up to 100 comma-separated SKUs or product ids; 101 is 422', async () => {
    const bySku = await call(stockLevelsResponse, 'GET', `/api/partner/v1/stock?location_id=${w.locations[0].id}&sku=SKU-3,SKU-1`);
    expect(bySku.data.stock.map((s) => s.sku)).toEqual(['SKU-1', 'SKU-3']);
    const ids = w.products.slice(0, 2).map((p) => p.id).join(',');
    const byId = await call(stockLevelsResponse, 'GET', `/api/partner/v1/stock?location_id=${w.locations[0].id}&product_id=${ids}`);
    expect(byId.data.stock.map((s) => s.sku)).toEqual(['SKU-1', 'SKU-2']);
    const tooMany = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
    for (const name of ['product_id', 'sku']) {
      const refused = await call(errorEnvelope, 'GET', `/api/partner/v1/stock?${name}=${tooMany}`, undefined, 422);
      expect(refused.error.details).toEqual({ field: name, issue: 'must have at most 100 comma-separated values' });
    }
  });
});
