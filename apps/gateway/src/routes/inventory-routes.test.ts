// Adjustments, transfers and stock reads through the assembled gateway, every response checked
// against the contract's strict response schemas.
import {
  adjustmentActionResponse,
  adjustmentDetailResponse,
  adjustmentListResponse,
  approveTransferResponse,
  createAdjustmentResponse,
  createTransferResponse,
  errorEnvelope,
  receiveTransferResponse,
  rejectTransferResponse,
  shipTransferResponse,
  stockLevelsResponse,
  stockMovementsResponse,
  transferDetailResponse,
  transferListResponse,
} from '@pits/contract';
import { createApiKey } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { loadGatewayConfig } from '../config.js';
import { type Gateway, createGateway } from '../create-gateway.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] inventory routes', (dialect) => {
  let t: TestDatabase;
  let gateway: Gateway;
  let url: string;
  let w: TenantWorld;
  let key: string;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database, { openingGood: '10' });
    key = (await createApiKey(t.database, w.partner.id, { environment: 'test' }, new Date())).secret;
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
    const config = loadGatewayConfig({ CREDENTIALS_KEY: 'c'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0' });
    gateway = createGateway(config, { database: t.database, logger: pino({ level: 'silent' }) });
    url = (await gateway.listen()).url;
  });
  afterAll(async () => {
    await gateway.close();
    await t.cleanup();
  });

  async function call<S extends z.ZodType>(schema: S, method: string, path: string, body?: unknown, expected = 200): Promise<z.output<S>> {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { Authorization: key, 'X-Tenant-Id': w.tenant.id, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: unknown = await res.json();
    expect({ status: res.status, json }).toMatchObject({ status: expected });
    return schema.parse(json);
  }

  it('creates (201), shows and lists an adjustment in the three forms of the contract', async () => {
    const created = await call(createAdjustmentResponse, 'POST', '/api/partner/v1/adjustments', {
      location_id: w.locations[0].id,
      type: 'increase',
      stock_source: 'good',
      reason: 'count',
      items: [
        { product_id: String(w.products[0]!.id), quantity: 3, unit_cost: 0.1 },
        { product_id: w.products[1]!.id, quantity: 2, unit_cost: 19.99, notes: 'B' },
      ],
    }, 201);
    const a = created.data.adjustment;
    expect(a).toMatchObject({ id: a.adjustment_number, status: 'pending', total_amount: 40.28, item_count: 2 });
    expect(a.items.map((i) => i.total_cost)).toEqual([0.3, 39.98]);
    const detail = await call(adjustmentDetailResponse, 'GET', `/api/engine/v1/adjustments/${a.id}`);
    expect(detail.data.adjustment.items.map((i) => i.current_stock)).toEqual([10, 10]);
    await call(adjustmentActionResponse, 'POST', `/api/partner/v1/adjustments/${a.id}/approve`, {});
    const after = await call(adjustmentDetailResponse, 'GET', `/api/engine/v1/adjustments/${a.id}`);
    expect(after.data.adjustment).toMatchObject({ status: 'approved', approved_by: { id: w.partner.id } });
    expect(after.data.adjustment.items.map((i) => i.current_stock)).toEqual([13, 12]);
    const list = await call(adjustmentListResponse, 'GET', '/api/engine/v1/adjustments?status=approved');
    expect(list.data.adjustments.map((x) => x.id)).toEqual([a.id]);
    expect(list.data.pagination).toEqual({ current_page: 1, per_page: 10, total: 1, last_page: 1 });
    const again = await call(errorEnvelope, 'PATCH', `/api/partner/v1/adjustments/${a.id}/approve`, {}, 422);
    expect(again.error.code).toBe('INVALID_STATE');
    const missing = await call(errorEnvelope, 'GET', '/api/engine/v1/adjustments/ADJ-20000101-000001', undefined, 404);
    expect(missing.error.code).toBe('NOT_FOUND');
  });

  it('runs a transfer through approve, ship and receive, and shows the stock and its movements', async () => {
    const created = await call(createTransferResponse, 'POST', '/api/partner/v1/transfers', {
      from_location_id: w.locations[0].id,
      to_location_id: w.locations[1].id,
      transfer_date: '2026-11-22',
      items: [{ product_id: String(w.products[2]!.id), quantity: 4 }],
    }, 201);
    const id = created.data.transfer.id;
    expect(created.data.transfer.items[0]).toMatchObject({ available_stock: 10, unit_price: 3.5, total_value: 14 });
    // Create answers the locations without contact person and phone; only the detail adds them.
    expect(created.data.transfer.from_location).toEqual({ id: w.locations[0].id, code: 'WH-JKT', name: 'Jakarta Warehouse', address: 'Jl. Sudirman 1' });
    expect(Object.keys(created.data.transfer.to_location).sort()).toEqual(['address', 'code', 'id', 'name']);
    expect((await call(transferDetailResponse, 'GET', `/api/engine/v1/transfers/${id}`)).data.transfer.from_location).toMatchObject({ contact_person: 'Budi', phone: '+62211234' });
    await call(approveTransferResponse, 'PATCH', `/api/partner/v1/transfers/${id}/approve`, {});
    const detail = await call(transferDetailResponse, 'GET', `/api/engine/v1/transfers/${id}`);
    expect(detail.data.transfer.items[0]?.available_stock).toBe(6);
    await call(shipTransferResponse, 'PATCH', `/api/partner/v1/transfers/${id}/ship`);
    await call(receiveTransferResponse, 'POST', `/api/partner/v1/transfers/${id}/receive`, {});
    const list = await call(transferListResponse, 'GET', `/api/engine/v1/transfers?status=completed&transfer_date_from=2026-11-22&transfer_date_to=2026-11-22`);
    expect(list.data.transfers.map((x) => x.id)).toEqual([id]);
    const stock = await call(stockLevelsResponse, 'GET', `/api/partner/v1/stock?product_id=${w.products[2]!.id}`);
    expect(stock.data.stock.map((s) => [s.location_id, s.good, s.reserved, s.available])).toEqual([
      [w.locations[0].id, 6, 0, 6],
      [w.locations[1].id, 4, 0, 4],
    ]);
    const movements = await call(stockMovementsResponse, 'GET', `/api/partner/v1/stock/movements?product_id=${w.products[2]!.id}&limit=3`);
    expect(movements.data.movements.map((m) => [m.cause_type, m.document_number, m.bucket, m.quantity_change])).toEqual([
      ['transfer', id, 'good', 4],
      ['transfer', id, 'good', -4],
      ['transfer', id, 'reserved', -4],
    ]);
    expect(movements.data.next_cursor).not.toBeNull();
    const rest = await call(stockMovementsResponse, 'GET', `/api/partner/v1/stock/movements?product_id=${w.products[2]!.id}&limit=3&cursor=${movements.data.next_cursor}`);
    expect(rest.data.movements.map((m) => m.cause_type)).toEqual(['transfer', 'opening']);
    expect(rest.data.next_cursor).toBeNull();
    const backwards = await call(errorEnvelope, 'GET', '/api/partner/v1/stock/movements?from=2026-11-23&to=2026-11-22', undefined, 422);
    expect(backwards.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'to' } });
  });

  it('rejects a transfer with its reason', async () => {
    const created = await call(createTransferResponse, 'POST', '/api/partner/v1/transfers', {
      from_location_id: w.locations[0].id, to_location_id: w.locations[1].id, transfer_date: '2026-11-22', items: [{ product_id: w.products[0]!.id, quantity: 1 }],
    }, 201);
    const rejected = await call(rejectTransferResponse, 'PATCH', `/api/partner/v1/transfers/${created.data.transfer.id}/reject`, { reason: 'not needed' });
    expect(rejected.data.transfer).toMatchObject({ status: 'rejected', rejection_reason: 'not needed', rejected_by: { id: w.partner.id, name: w.partner.name, email: w.partner.email } });
  });
});
