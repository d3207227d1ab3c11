// Concurrency (docs/stock-rules.md#one-transaction-per-decision, docs/idempotency.md): under many simultaneous requests a record is decided exactly
// once, stock never goes below zero, the ledger sums to the balance, and one Idempotency-Key
// creates one adjustment. Real processes, real HTTP, on both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { scaled, unscaled } from './harness/exact-decimal.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { GatewayResponse, JsonBody } from './harness/gateway-response.js';
import { type CatalogueProduct, type TenantSession, allMovements, createProducts, recordOpening, stockAt } from './harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';

const ADJUSTMENTS = '/api/partner/v1/adjustments';
const ADJUSTMENT_LIST = '/api/engine/v1/adjustments';
const TRANSFERS = '/api/partner/v1/transfers';
const adjustmentAction = (action: 'approve' | 'reject') => `${ADJUSTMENTS}/{id}/${action}`;

const dialects = await e2eDialects();

describe.each(dialects)('[%s] inventory races', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  let s: TenantSession;
  let location: number;
  let destination: number;
  let products: CatalogueProduct[];

  const createAdjustment = async (type: 'increase' | 'decrease', product: CatalogueProduct, quantity: number | string): Promise<string> => {
    const res = await gw.post(ADJUSTMENTS, { location_id: location, type, stock_source: 'good', reason: `race ${type}`, items: [{ product_id: String(product.id), quantity, unit_cost: 1 }] }, { key: s.key, tenant: s.tenant });
    expect(res.status, res.text).toBe(201);
    return res.body.data.adjustment.id;
  };
  const decide = (action: 'approve' | 'reject', id: string, method: 'PATCH' | 'POST') =>
    gw.request(method, adjustmentAction(action).replace('{id}', id), { key: s.key, tenant: s.tenant, json: action === 'reject' ? { reason: 'race' } : {}, template: adjustmentAction(action) });
  const statusOf = async (id: string): Promise<string> => {
    const res = await gw.get(`/api/engine/v1/adjustments/${id}`, { key: s.key, tenant: s.tenant, template: '/api/engine/v1/adjustments/{id}' });
    expect(res.status, res.text).toBe(200);
    return res.body.data.adjustment.status;
  };
  const byStatus = (responses: GatewayResponse[]) => {
    const counts = new Map<number, number>();
    for (const r of responses) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    return Object.fromEntries(counts);
  };
  /** Every ledger row of the product, oldest first, checked as a chain: each starts where the last ended, none below zero. */
  const expectChain = async (product: CatalogueProduct, bucket: string): Promise<JsonBody[]> => {
    const rows = (await allMovements(gw, s, { product_id: product.id, location_id: location })).filter((r) => r.bucket === bucket).reverse();
    let balance = 0n;
    for (const r of rows) {
      expect(scaled(r.quantity_before), `movement ${r.id} starts where the previous one ended`).toBe(balance);
      balance += scaled(r.quantity_change);
      expect(scaled(r.quantity_after), `movement ${r.id}: before + change = after`).toBe(balance);
      expect(balance >= 0n, `movement ${r.id} never below zero`).toBe(true);
    }
    return rows;
  };

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    partner = await onboardPartner(stack.internal, gw, { label: 'Racer', tier: 'large', tenants: 1, locations: 2 });
    s = { key: partner.key, tenant: partner.tenants[0]!.id };
    [location, destination] = partner.tenants[0]!.locationIds as [number, number];
    products = await createProducts(stack.internal, s.tenant, 8, 'RACE');
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  it('50 concurrent approves of one adjustment: exactly one 200, 49 INVALID_STATE, the stock changes once', async () => {
    const product = products[0]!;
    const id = await createAdjustment('increase', product, 5);
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => decide('approve', id, i % 2 === 0 ? 'PATCH' : 'POST')));
    expect(byStatus(responses)).toEqual({ 200: 1, 422: 49 });
    for (const r of responses) if (r.status !== 200) expectError(r, 'INVALID_STATE');
    expect(await statusOf(id)).toBe('approved');
    expect(await stockAt(gw, s, location, product.id)).toEqual({ good: 5, damaged: 0, reserved: 0, available: 5 });
    const rows = await expectChain(product, 'good');
    expect(rows.map((r) => [r.cause_id, r.quantity_change])).toEqual([[id, 5]]);
  });

  it('25 approves racing 25 rejects of one adjustment: exactly one decision wins', async () => {
    const product = products[3]!;
    const id = await createAdjustment('increase', product, 2);
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => decide(i % 2 === 0 ? 'approve' : 'reject', id, i % 4 < 2 ? 'PATCH' : 'POST')));
    expect(byStatus(responses)).toEqual({ 200: 1, 422: 49 });
    for (const r of responses) if (r.status !== 200) expectError(r, 'INVALID_STATE');
    const winner = responses.find((r) => r.status === 200)!;
    const approved = winner.path.endsWith('/approve');
    expect(await statusOf(id)).toBe(approved ? 'approved' : 'rejected');
    expect((await stockAt(gw, s, location, product.id)).good).toBe(approved ? 2 : 0);
  });

  it('20 concurrent approvals of decreases that together exceed the stock: floor(stock / quantity) approved, never below zero, the ledger sums to the balance', async () => {
    const product = products[1]!;
    const [opening, quantity] = ['10', '0.7'];
    await recordOpening(stack.internal, s.tenant, location, product.id, { good: opening }, 'RACE-COUNT');
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) ids.push(await createAdjustment('decrease', product, quantity));
    const fits = Number(scaled(opening, 4) / scaled(quantity, 4));
    expect(fits).toBe(14);

    const responses = await Promise.all(ids.map((id, i) => decide('approve', id, i % 2 === 0 ? 'PATCH' : 'POST')));
    expect(byStatus(responses)).toEqual({ 200: fits, 422: 20 - fits });
    for (const r of responses) if (r.status !== 200) expectError(r, 'INSUFFICIENT_STOCK', 'items[0].quantity');

    const left = unscaled(scaled(opening) - BigInt(fits) * scaled(quantity));
    expect(left).toBe('0.2');
    expect(await stockAt(gw, s, location, product.id)).toEqual({ good: Number(left), damaged: 0, reserved: 0, available: Number(left) });
    const statuses = await Promise.all(ids.map(statusOf));
    ids.forEach((id, i) => expect(statuses[i], id).toBe(responses[i]!.status === 200 ? 'approved' : 'pending'));
    const rows = await expectChain(product, 'good');
    expect(rows).toHaveLength(1 + fits);
    expect(unscaled(rows.reduce((sum, r) => sum + scaled(r.quantity_change), 0n)), 'the ledger sums to the balance').toBe(left);
    expect(new Set(rows.slice(1).map((r) => r.cause_id))).toEqual(new Set(ids.filter((_, i) => responses[i]!.status === 200)));
    const approvedList = await gw.get(ADJUSTMENT_LIST, { key: s.key, tenant: s.tenant, query: { status: 'approved', type: 'decrease', per_page: 100 } });
    expect(approvedList.body.data.pagination.total).toBe(fits);
  });

  it('12 concurrent transfer approvals reserving more than is available: floor(available / quantity) reserved, available never below zero', async () => {
    const product = products[4]!;
    await recordOpening(stack.internal, s.tenant, location, product.id, { good: '10' }, 'RACE-TRF');
    const ids: string[] = [];
    for (let i = 0; i < 12; i += 1) {
      const res = await gw.post(TRANSFERS, { from_location_id: location, to_location_id: destination, transfer_date: '2026-03-05', items: [{ product_id: product.id, quantity: 3 }] }, { key: s.key, tenant: s.tenant });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.data.transfer.id);
    }
    const template = `${TRANSFERS}/{id}/approve`;
    const responses = await Promise.all(ids.map((id, i) => gw.request(i % 2 === 0 ? 'PATCH' : 'POST', template.replace('{id}', id), { key: s.key, tenant: s.tenant, json: {}, template })));
    expect(byStatus(responses)).toEqual({ 200: 3, 422: 9 });
    for (const r of responses) if (r.status !== 200) expectError(r, 'INSUFFICIENT_STOCK', 'items[0].quantity');
    expect(await stockAt(gw, s, location, product.id)).toEqual({ good: 10, damaged: 0, reserved: 9, available: 1 });
    await expectChain(product, 'reserved');
  });

  it('20 concurrent approvals locking the same two stock rows in opposite line orders: all succeed, no deadlock, every line applied', async () => {
    const [x, y] = [products[5]!, products[6]!];
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const lines = (i % 2 === 0 ? [x, y] : [y, x]).map((p) => ({ product_id: p.id, quantity: '1.25', unit_cost: 1 }));
      const res = await gw.post(ADJUSTMENTS, { location_id: location, type: 'increase', stock_source: 'good', reason: 'crossing', items: lines }, { key: s.key, tenant: s.tenant });
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.data.adjustment.id);
    }
    const responses = await Promise.all(ids.map((id) => decide('approve', id, 'PATCH')));
    expect(byStatus(responses)).toEqual({ 200: 20 });
    for (const p of [x, y]) {
      expect(await stockAt(gw, s, location, p.id)).toEqual({ good: 25, damaged: 0, reserved: 0, available: 25 });
      expect(await expectChain(p, 'good')).toHaveLength(20);
    }
  });

  it('20 concurrent ships, then 20 concurrent receives of one transfer: each happens once, the stock moves once', async () => {
    const product = products[7]!;
    await recordOpening(stack.internal, s.tenant, location, product.id, { good: '8' }, 'RACE-SHIP');
    const created = await gw.post(TRANSFERS, { from_location_id: location, to_location_id: destination, transfer_date: '2026-03-06', items: [{ product_id: product.id, quantity: '2.5' }] }, { key: s.key, tenant: s.tenant });
    expect(created.status, created.text).toBe(201);
    const id = created.body.data.transfer.id as string;
    const act = (action: string, method: string) => {
      const template = `${TRANSFERS}/{id}/${action}`;
      return gw.request(method, template.replace('{id}', id), { key: s.key, tenant: s.tenant, json: {}, template });
    };
    expect((await act('approve', 'PATCH')).status).toBe(200);
    for (const action of ['ship', 'receive']) {
      const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => act(action, i % 2 === 0 ? 'PATCH' : 'POST')));
      expect(byStatus(responses), action).toEqual({ 200: 1, 422: 19 });
      for (const r of responses) if (r.status !== 200) expectError(r, 'INVALID_STATE');
    }
    expect(await stockAt(gw, s, location, product.id)).toEqual({ good: 5.5, damaged: 0, reserved: 0, available: 5.5 });
    expect(await stockAt(gw, s, destination, product.id)).toEqual({ good: 2.5, damaged: 0, reserved: 0, available: 2.5 });
    await expectChain(product, 'good');
    await expectChain(product, 'reserved');
  });

  it('30 concurrent adjustment creates and 30 transfer creates without a key: all 201, no number twice', async () => {
    const product = products[2]!;
    const adjustmentBody = { location_id: location, type: 'increase', stock_source: 'good', reason: 'numbering', items: [{ product_id: product.id, quantity: 1, unit_cost: 1 }] };
    const transferBody = { from_location_id: location, to_location_id: destination, transfer_date: '2026-03-07', items: [{ product_id: product.id, quantity: 1 }] };
    const [adjustments, transfers] = await Promise.all([
      Promise.all(Array.from({ length: 30 }, () => gw.post(ADJUSTMENTS, adjustmentBody, { key: s.key, tenant: s.tenant }))),
      Promise.all(Array.from({ length: 30 }, () => gw.post(TRANSFERS, transferBody, { key: s.key, tenant: s.tenant }))),
    ]);
    expect(byStatus(adjustments)).toEqual({ 201: 30 });
    expect(byStatus(transfers)).toEqual({ 201: 30 });
    expect(new Set(adjustments.map((r) => r.body.data.adjustment.id)).size).toBe(30);
    expect(new Set(transfers.map((r) => r.body.data.transfer.id)).size).toBe(30);
  });

  it('50 concurrent creates with one Idempotency-Key and body: the same response for all, one adjustment', async () => {
    const product = products[2]!;
    const before = (await gw.get(ADJUSTMENT_LIST, { key: s.key, tenant: s.tenant, query: { per_page: 1 } })).body.data.pagination.total;
    const key = `race-${Date.now()}-${Math.random().toString(36).slice(2)}`;
    const body = { location_id: location, type: 'increase', stock_source: 'good', reason: 'once only', items: [{ product_id: String(product.id), quantity: 2, unit_cost: 19.99 }] };
    const responses = await Promise.all(Array.from({ length: 50 }, () => gw.post(ADJUSTMENTS, body, { key: s.key, tenant: s.tenant, headers: { 'idempotency-key': key } })));
    expect(byStatus(responses)).toEqual({ 201: 50 });
    const first = responses[0]!.body;
    for (const r of responses) expect({ ...r.body, request_id: null }, 'the same body, apart from request_id').toStrictEqual({ ...first, request_id: null });
    expect(new Set(responses.map((r) => r.body.request_id)).size, 'a fresh request_id each').toBe(50);
    expect(first.data.adjustment).toMatchObject({ status: 'pending', total_amount: 39.98, item_count: 1 });
    expect(responses.filter((r) => r.headers['idempotent-replayed'] !== 'true'), 'the work was done once').toHaveLength(1);
    const after = await gw.get(ADJUSTMENT_LIST, { key: s.key, tenant: s.tenant, query: { per_page: 100 } });
    expect(after.body.data.pagination.total, 'exactly one adjustment exists').toBe(before + 1);
    expect(after.body.data.adjustments.filter((e: JsonBody) => e.reason === 'once only').map((e: JsonBody) => e.id)).toEqual([first.data.adjustment.id]);
  });
});
