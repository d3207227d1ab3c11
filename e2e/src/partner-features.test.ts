// Issue 13's partner features end to end (docs/extensions.md, docs/errors.md): products (list, filters, detail,
// tenant scoping), SKU on every line kind (adjustments, transfers, inbound receipts, stock counts)
// with both/neither refused on the line, batch stock reads, stock counts (201, 409 STALE_QUANTITY,
// two counts racing from the same read), and the webhook test send. Every response is checked
// against /openapi.json by the gateway client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { JsonBody } from './harness/gateway-response.js';
import { createShipment } from './harness/inbound-fixtures.js';
import { type CatalogueProduct, STOCK, type TenantSession, allMovements, createProducts, recordOpening, stockAt } from './harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { expectWebhookContract, liveContract } from './harness/openapi-contract.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { type WebhookReceiver, startWebhookReceiver } from './harness/webhook-receiver.js';

const PRODUCTS = '/api/partner/v1/products';
const PRODUCT = '/api/partner/v1/products/{id}';
const COUNTS = '/api/partner/v1/stock/counts';
const ADJUSTMENTS = '/api/partner/v1/adjustments';
const TRANSFERS = '/api/partner/v1/transfers';
const RECEIVE = '/api/partner/v1/inbound/{id}/receive';
const WEBHOOKS = '/api/partner/v1/webhooks';
const WEBHOOK_TEST = '/api/partner/v1/webhooks/{id}/test';

const fill = (template: string, id: string | number) => template.replace('{id}', encodeURIComponent(String(id)));
const dialects = await e2eDialects();

describe.each(dialects)('[%s] partner features of issue 13', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  let outsider: OnboardedPartner;
  let a: TenantSession;
  let b: TenantSession;
  let locations: number[];
  /** Tenant A's catalogue: FEAT-1..6; FEAT-1..4 have 20 good at the first location, FEAT-5 and 6 none. */
  let products: CatalogueProduct[];
  let productB: CatalogueProduct;
  let receiver: WebhookReceiver | undefined;

  const count = (body: unknown, headers?: Record<string, string>) => gw.post(COUNTS, body, { key: a.key, tenant: a.tenant, ...(headers ? { headers } : {}) });
  const listProducts = (session: TenantSession, query: Record<string, string | number> = {}) => gw.get(PRODUCTS, { key: session.key, tenant: session.tenant, query });
  /** SKUs of tenant A's products as lists order them: by product id (products are created in parallel). */
  const inIdOrder = (...skus: string[]) => skus.map((sku) => products.find((p) => p.sku === sku)!).sort((x, y) => x.id - y.id).map((p) => p.sku);
  const skusOf = async (query: Record<string, string | number>) => {
    const res = await listProducts(a, query);
    expect(res.status, res.text).toBe(200);
    return (res.body.data.products as JsonBody[]).map((p) => p.sku as string);
  };

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' } });
    gw = gatewayClient(stack.gateway.url);
    partner = await onboardPartner(stack.internal, gw, { label: 'Features', tier: 'large', tenants: 2, locations: 2 });
    outsider = await onboardPartner(stack.internal, gw, { label: 'FeatOutsider', tier: 'large', tenants: 1, locations: 1 });
    a = { key: partner.key, tenant: partner.tenants[0]!.id };
    b = { key: partner.key, tenant: partner.tenants[1]!.id };
    locations = partner.tenants[0]!.locationIds;
    products = await createProducts(stack.internal, a.tenant, 6, 'FEAT', (i) => `${i + 1}.50`);
    await stack.internal.products.update.mutate({ tenantId: a.tenant, id: products[4]!.id, changes: { barcode: '8991005', name: 'Kopi Arabika 100% Gayo' } });
    productB = (await createProducts(stack.internal, b.tenant, 1, 'FEAT'))[0]!;
    for (const product of products.slice(0, 4)) await recordOpening(stack.internal, a.tenant, locations[0]!, product.id, { good: '20' }, `OPEN-${product.sku}`);
  });
  afterAll(async () => {
    await receiver?.close();
    await stopAfterLedgerCheck(stack);
  });
  showOutputOnFailure(() => stack?.services() ?? []);

  describe('products', () => {
    it('lists the tenant\'s products by id ascending, stock or not, in the inbound product shape, a page at a time', async () => {
      const res = await listProducts(a);
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'errors', 'request_id', 'status']);
      expect(res.body.data.pagination).toEqual({ current_page: 1, per_page: 20, total: 6, last_page: 1 });
      const listed = res.body.data.products as JsonBody[];
      const all = inIdOrder(...products.map((p) => p.sku));
      expect(listed.map((p) => p.sku)).toEqual(all);
      expect(listed.map((p) => p.product_id)).toEqual(products.map((p) => p.id).sort((x, y) => x - y));
      expect(listed.find((p) => p.sku === 'FEAT-1')).toMatchObject({ product_id: products[0]!.id, name: products[0]!.name, cost_price: '1.50', deleted_at: null });
      const second = await listProducts(a, { page: 2, per_page: 4 });
      expect((second.body.data.products as JsonBody[]).map((p) => p.sku)).toEqual(all.slice(4));
      expect(second.body.data.pagination).toEqual({ current_page: 2, per_page: 4, total: 6, last_page: 2 });
      expect((await listProducts(b)).body.data.products.map((p: JsonBody) => p.product_id)).toEqual([productB.id]);
    });

    it('filters: up to 100 comma-separated SKUs, exact barcode, case-insensitive search of name or SKU with literal wildcards', async () => {
      expect(await skusOf({ sku: 'FEAT-3,FEAT-1,NOPE' })).toEqual(inIdOrder('FEAT-1', 'FEAT-3'));
      expect(await skusOf({ sku: 'feat-3' })).toEqual([]);
      expect(await skusOf({ barcode: '8991005' })).toEqual(['FEAT-5']);
      expect(await skusOf({ search: 'ARABIKA' })).toEqual(['FEAT-5']);
      expect(await skusOf({ search: '100%' })).toEqual(['FEAT-5']);
      expect(await skusOf({ search: 'feat-_' })).toEqual([]);
      expect(await skusOf({ search: 'feat-6' })).toEqual(['FEAT-6']);
      const tooMany = Array.from({ length: 101 }, (_, i) => `S${i}`).join(',');
      expectError(await listProducts(a, { sku: tooMany }), 'VALIDATION_ERROR', 'sku');
      expectError(await listProducts(a, { search: 'a\u0000' }), 'VALIDATION_ERROR', 'search');
    });

    it("detail: data.product; another tenant's or an unknown id is 404", async () => {
      const res = await gw.get(fill(PRODUCT, products[5]!.id), { key: a.key, tenant: a.tenant, template: PRODUCT });
      expect(res.status, res.text).toBe(200);
      expect(Object.keys(res.body.data)).toEqual(['product']);
      expect(res.body.data.product).toMatchObject({ product_id: products[5]!.id, sku: 'FEAT-6' });
      for (const id of [productB.id, 99_999_999, 'abc']) expectError(await gw.get(fill(PRODUCT, id), { key: a.key, tenant: a.tenant, template: PRODUCT }), 'NOT_FOUND');
      expectError(await gw.get(fill(PRODUCT, products[0]!.id), { key: outsider.key, tenant: a.tenant, template: PRODUCT }), 'FORBIDDEN');
    });
  });

  describe('SKU on every line kind', () => {
    it('adjustment and transfer lines take sku; both or neither is 422 on the line; an unknown SKU is refused on it', async () => {
      const adj = await gw.post(ADJUSTMENTS, { location_id: locations[0], type: 'increase', stock_source: 'good', reason: 'by sku', items: [{ sku: 'FEAT-5', quantity: 1, unit_cost: 2 }] }, { key: a.key, tenant: a.tenant });
      expect(adj.status, adj.text).toBe(201);
      expect(adj.body.data.adjustment.items[0]).toMatchObject({ product_id: String(products[4]!.id), sku: 'FEAT-5', type: 'increase' });
      const trf = await gw.post(TRANSFERS, { from_location_id: locations[0], to_location_id: locations[1], transfer_date: '2026-11-23', items: [{ sku: 'FEAT-2', quantity: 1 }] }, { key: a.key, tenant: a.tenant });
      expect(trf.status, trf.text).toBe(201);
      expect(trf.body.data.transfer.items[0]).toMatchObject({ product_id: String(products[1]!.id), sku: 'FEAT-2', available_stock: 20 });
      const line = { quantity: 1, unit_cost: 1 };
      const refusals: [unknown, string][] = [
        [{ ...line, sku: 'FEAT-1', product_id: products[0]!.id }, 'items[0].sku'],
        [{ ...line }, 'items[0].product_id'],
        [{ ...line, sku: 'FEAT-NOPE' }, 'items[0].sku'],
      ];
      for (const [item, field] of refusals) {
        expectError(await gw.post(ADJUSTMENTS, { location_id: locations[0], type: 'increase', stock_source: 'good', reason: 'x', items: [item] }, { key: a.key, tenant: a.tenant }), 'VALIDATION_ERROR', field);
      }
      expectError(
        await gw.post(TRANSFERS, { from_location_id: locations[0], to_location_id: locations[1], transfer_date: '2026-11-23', items: [{ sku: 'FEAT-1', quantity: 1 }, { product_id: products[0]!.id, quantity: 1 }] }, { key: a.key, tenant: a.tenant }),
        'VALIDATION_ERROR',
        'items[1].product_id',
      );
    });

    it('receipt lines take sku instead of item_id; both or neither is 422; responses carry product_id and sku', async () => {
      const shipment = await createShipment(stack.internal, a.tenant, locations[1]!, [[products[5]!.id, 4], [products[4]!.id, 2]]);
      const receive = (items: unknown[]) => gw.post(fill(RECEIVE, shipment.id), { items }, { key: a.key, tenant: a.tenant, template: RECEIVE });
      expectError(await receive([{ sku: 'FEAT-6', item_id: String(shipment.lines[0]!.id), received_quantity: 1 }]), 'VALIDATION_ERROR', 'items[0].sku');
      expectError(await receive([{ received_quantity: 1 }]), 'VALIDATION_ERROR', 'items[0].item_id');
      expectError(await receive([{ sku: 'FEAT-1', received_quantity: 1 }]), 'VALIDATION_ERROR', 'items[0].sku');
      const res = await receive([{ sku: 'FEAT-6', received_quantity: 4 }]);
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.inbound.items).toEqual([expect.objectContaining({ id: String(shipment.lines[0]!.id), product_id: products[5]!.id, sku: 'FEAT-6', received_quantity: 4, pending_quantity: 0 })]);
      expect(await stockAt(gw, a, locations[1]!, products[5]!.id)).toEqual({ good: 4, damaged: 0, reserved: 0, available: 4 });
    });

    it('GET /stock reads up to 100 comma-separated SKUs or product ids in one call; 101 is 422', async () => {
      const bySku = await gw.get(STOCK, { key: a.key, tenant: a.tenant, query: { location_id: locations[0]!, sku: 'FEAT-3,FEAT-1' } });
      expect(bySku.status, bySku.text).toBe(200);
      expect((bySku.body.data.stock as JsonBody[]).map((s) => s.sku)).toEqual(inIdOrder('FEAT-1', 'FEAT-3'));
      const byId = await gw.get(STOCK, { key: a.key, tenant: a.tenant, query: { location_id: locations[0]!, product_id: `${products[3]!.id},${products[1]!.id}` } });
      expect((byId.body.data.stock as JsonBody[]).map((s) => s.sku)).toEqual(inIdOrder('FEAT-2', 'FEAT-4'));
      const many = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
      expectError(await gw.get(STOCK, { key: a.key, tenant: a.tenant, query: { product_id: many } }), 'VALIDATION_ERROR', 'product_id');
      expectError(await gw.get(STOCK, { key: a.key, tenant: a.tenant, query: { sku: many } }), 'VALIDATION_ERROR', 'sku');
    });
  });

  describe('stock counts', () => {
    it('201: the differences as one approved adjustment in detail form, with ledger rows; 409 names every stale line; nothing changes', async () => {
      const res = await count({
        location_id: locations[0],
        stock_source: 'good',
        items: [
          { sku: 'FEAT-3', counted: 17, expected: 20 },
          { product_id: String(products[3]!.id), counted: '22.5', expected: 20 },
          { sku: 'FEAT-6', counted: 0, expected: null },
        ],
      });
      expect(res.status, res.text).toBe(201);
      const adj = res.body.data.adjustment;
      expect(adj).toMatchObject({ status: 'approved', reason: 'stock count', type: 'decrease', stock_source: 'good', item_count: 2, approved_by: { id: partner.id } });
      // Lines keep the count's order.
      expect((adj.items as JsonBody[]).map((i) => [i.sku, i.type, i.quantity, i.current_stock])).toEqual([
        ['FEAT-3', 'decrease', 3, 17],
        ['FEAT-4', 'increase', 2.5, 22.5],
      ]);
      const moves = await allMovements(gw, a, { product_id: products[2]!.id });
      expect(moves[0]).toMatchObject({ cause_type: 'adjustment', document_number: adj.adjustment_number, quantity_change: -3, quantity_before: 20, quantity_after: 17 });

      const stale = await count({ location_id: locations[0], stock_source: 'good', items: [{ sku: 'FEAT-3', counted: 1, expected: 20 }, { sku: 'FEAT-1', counted: 1, expected: 20 }, { sku: 'FEAT-4', counted: 1, expected: 20 }] });
      expectError(stale, 'STALE_QUANTITY', 'items[0].expected');
      expect(stale.body.error.issues).toEqual([
        { field: 'items[0].expected', issue: 'is 20 but the current quantity is 17' },
        { field: 'items[2].expected', issue: 'is 20 but the current quantity is 22.5' },
      ]);
      expect(await stockAt(gw, a, locations[0]!, products[0]!.id)).toEqual({ good: 20, damaged: 0, reserved: 0, available: 20 });
      expectError(await count({ location_id: locations[0], stock_source: 'good', items: [{ sku: 'FEAT-1', counted: 20, expected: 20 }] }), 'VALIDATION_ERROR', 'items');
      expectError(await count({ location_id: locations[0], stock_source: 'good', items: [{ counted: 1, expected: null }] }), 'VALIDATION_ERROR', 'items[0].product_id');
    });

    it('an Idempotency-Key replays the count instead of counting twice', async () => {
      const body = { location_id: locations[1], stock_source: 'damaged', items: [{ sku: 'FEAT-2', counted: 3, expected: 0 }] };
      const headers = { 'Idempotency-Key': `count-once-${dialect}` };
      const first = await count(body, headers);
      const again = await count(body, headers);
      expect(first.status, first.text).toBe(201);
      expect(again.status).toBe(201);
      expect(again.body.data).toEqual(first.body.data);
      expect((await stockAt(gw, a, locations[1]!, products[1]!.id)).damaged).toBe(3);
    });

    it('two counts from the same read sent at once: exactly one 201, one 409, and the stock is the winner\'s count', async () => {
      for (const [round, product] of [products[0]!, products[1]!].entries()) {
        const [x, y] = await Promise.all(
          [11 + round, 13 + round].map((counted) => count({ location_id: locations[0], stock_source: 'good', items: [{ product_id: product.id, counted, expected: 20 }] })),
        );
        const statuses = [x!.status, y!.status].sort();
        expect(statuses, `${x!.text} | ${y!.text}`).toEqual([201, 409]);
        const winner = x!.status === 201 ? x! : y!;
        expectError(x!.status === 409 ? x! : y!, 'STALE_QUANTITY', 'items[0].expected');
        expect((await stockAt(gw, a, locations[0]!, product.id)).good).toBe(winner.body.data.adjustment.items[0].current_stock);
      }
    });
  });

  it('webhook test: a signed webhook.test reaches the endpoint at once; the answer is the delivery and its attempt; another partner\'s endpoint is 404', async () => {
    receiver = await startWebhookReceiver(`features-${dialect}`);
    const created = await gw.post(WEBHOOKS, { url: receiver.url, event_types: ['adjustment.status_changed'] }, { key: partner.key });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.webhook.id as string;
    const res = await gw.post(fill(WEBHOOK_TEST, id), undefined, { key: partner.key, template: WEBHOOK_TEST });
    expect(res.status, res.text).toBe(200);
    const delivery = res.body.data.delivery;
    expect(delivery).toMatchObject({ event_type: 'webhook.test', endpoint_id: id, status: 'succeeded', attempts: 1, last_status_code: 200 });
    expect(delivery.attempt_log).toEqual([expect.objectContaining({ attempt: 1, status_code: 200, succeeded: true, error: null })]);
    expect(receiver.arrivals).toHaveLength(1);
    const arrival = receiver.arrivals[0]!;
    expect(arrival.id).toBe(delivery.event_id);
    expect(JSON.parse(arrival.body)).toMatchObject({ event_id: delivery.event_id, type: 'webhook.test', tenant_id: null, resource: { type: 'webhook', id } });
    expect(arrival.signature).toMatch(/^v1=[0-9a-f]{64}$/);
    // As /openapi.json's `webhooks` section publishes it: the WebhookTestEvent payload and the signature headers.
    expectWebhookContract(await liveContract(stack.gateway.url), { body: arrival.body, headers: { 'x-webhook-id': arrival.id, 'x-webhook-timestamp': arrival.timestamp, 'x-webhook-signature': arrival.signature } });
    expectError(await gw.post(fill(WEBHOOK_TEST, id), undefined, { key: outsider.key, template: WEBHOOK_TEST }), 'NOT_FOUND');
    expect(receiver.arrivals).toHaveLength(1);
  });
});
