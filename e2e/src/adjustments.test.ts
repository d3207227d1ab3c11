// Adjustments end to end (spec: Adjustments; docs/stock-rules.md#adjustments): create in the detail form with
// exact totals, every validation rule on its field, list form against detail form, approve and
// reject (PATCH and POST) with their stock effects, INVALID_STATE and INSUFFICIENT_STOCK, the
// damaged bucket, filters, order and pagination, and 404 across tenants and partners.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { scaled, times, unscaled } from './harness/exact-decimal.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { GatewayResponse, JsonBody } from './harness/gateway-response.js';
import {
  type CatalogueLocation,
  type CatalogueProduct,
  type TenantSession,
  allMovements,
  createProducts,
  recordOpening,
  stockAt,
  tenantLocations,
} from './harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { type OnboardedPartner, type OnboardedTenant, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';

const CREATE = '/api/partner/v1/adjustments';
const LIST = '/api/engine/v1/adjustments';
const DETAIL = '/api/engine/v1/adjustments/{id}';
const ACTION = { approve: '/api/partner/v1/adjustments/{id}/approve', reject: '/api/partner/v1/adjustments/{id}/reject' } as const;
const TRANSFERS = '/api/partner/v1/transfers';

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const ADJ_NUMBER = /^ADJ-\d{8}-\d{6}$/;
const LIST_ENTRY_KEYS = ['adjustment_number', 'created_at', 'id', 'item_count', 'location', 'reason', 'status', 'total_amount', 'type', 'updated_at'];
const EMPTY_STOCK = { good: 0, damaged: 0, reserved: 0, available: 0 };

/** A copy of `value` without `key`. */
const omit = (value: object, key: string): Record<string, unknown> => Object.fromEntries(Object.entries(value).filter(([k]) => k !== key));
const fill = (template: string, id: string) => template.replace('{id}', encodeURIComponent(id));

const dialects = await e2eDialects();

describe.each(dialects)('[%s] adjustments', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  let outsider: OnboardedPartner;
  /** Main tenant, another tenant of the same partner, one without adjustments, and one for the lists. */
  let a: TenantSession;
  let b: TenantSession;
  let c: TenantSession;
  let d: TenantSession;
  let locationsA: CatalogueLocation[];
  let locationsD: CatalogueLocation[];
  /** 500 products of tenant A; tests use disjoint slices of the first 40 for their stock. */
  let productsA: CatalogueProduct[];
  let productB: CatalogueProduct;
  let productD: CatalogueProduct;
  let actor: { id: number; name: string; email: string };

  const create = (s: TenantSession, body: unknown, headers?: Record<string, string>) => gw.post(CREATE, body, { key: s.key, tenant: s.tenant, ...(headers ? { headers } : {}) });
  const detail = (s: TenantSession, id: string) => gw.get(fill(DETAIL, id), { key: s.key, tenant: s.tenant, template: DETAIL });
  const act = (s: TenantSession, action: keyof typeof ACTION, id: string, method: 'PATCH' | 'POST' = 'PATCH', json: unknown = {}) =>
    gw.request(method, fill(ACTION[action], id), { key: s.key, tenant: s.tenant, json, template: ACTION[action] });
  const list = (s: TenantSession, query: Record<string, string | number> = {}) => gw.get(LIST, { key: s.key, tenant: s.tenant, query });

  const created = (res: GatewayResponse): JsonBody => {
    expect(res.status, res.text).toBe(201);
    return res.body.data.adjustment;
  };
  const line = (product: CatalogueProduct, quantity: number | string = 1, unitCost: number | string = 1, notes?: string) => ({
    product_id: String(product.id),
    quantity,
    unit_cost: unitCost,
    ...(notes !== undefined ? { notes } : {}),
  });
  /** A pending adjustment at A's first location. */
  const adjustment = async (type: 'increase' | 'decrease', items: unknown[], stockSource: 'good' | 'damaged' = 'good'): Promise<JsonBody> =>
    created(await create(a, { location_id: locationsA[0]!.id, type, stock_source: stockSource, reason: `${type} for the test`, items }));
  const expectDecided = (res: GatewayResponse) => {
    expect(res.status, res.text).toBe(200);
    expect(res.body).toStrictEqual({ status: 'ok', data: null, errors: null, request_id: res.headers['x-request-id'] });
  };
  const statusOf = async (s: TenantSession, id: string): Promise<string> => {
    const res = await detail(s, id);
    expect(res.status, res.text).toBe(200);
    return res.body.data.adjustment.status;
  };
  const totalListed = async (s: TenantSession): Promise<number> => (await list(s, { per_page: 1 })).body.data.pagination.total;

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    partner = await onboardPartner(stack.internal, gw, { label: 'Adjuster', tier: 'large', tenants: 4, locations: 2 });
    outsider = await onboardPartner(stack.internal, gw, { label: 'Outsider', tier: 'large', tenants: 1, locations: 1 });
    const [ta, tb, tc, td] = partner.tenants as [OnboardedTenant, OnboardedTenant, OnboardedTenant, OnboardedTenant];
    const session = (t: OnboardedTenant): TenantSession => ({ key: partner.key, tenant: t.id });
    [a, b, c, d] = [session(ta), session(tb), session(tc), session(td)];
    actor = { id: partner.id, name: partner.name, email: partner.email };
    const byIdA = await tenantLocations(stack.internal, a.tenant);
    locationsA = ta.locationIds.map((id) => byIdA.get(id)!);
    const byIdD = await tenantLocations(stack.internal, d.tenant);
    locationsD = td.locationIds.map((id) => byIdD.get(id)!);
    productsA = await createProducts(stack.internal, a.tenant, 500, 'ADJ-A');
    productB = (await createProducts(stack.internal, b.tenant, 1, 'ADJ-B'))[0]!;
    productD = (await createProducts(stack.internal, d.tenant, 1, 'ADJ-D'))[0]!;
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  it('create (201): the detail form with every field, no current_stock; id = adjustment_number = ADJ-YYYYMMDD-NNNNNN', async () => {
    const [p0, p1] = productsA;
    const location = locationsA[0]!;
    const before = Date.now();
    const res = await create(a, {
      location_id: location.id,
      type: 'increase',
      stock_source: 'good',
      reason: 'Cycle count correction',
      items: [line(p0!, 3, 0.1, 'shelf A3'), { product_id: p1!.id, quantity: 2, unit_cost: 19.99 }],
    });
    expect(res.status, res.text).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'errors', 'request_id', 'status']);
    expect(res.body).toMatchObject({ status: 'ok', errors: null });
    expect(Object.keys(res.body.data)).toEqual(['adjustment']);
    const adj = res.body.data.adjustment;
    expect(adj).toStrictEqual({
      id: adj.adjustment_number,
      adjustment_number: expect.stringMatching(ADJ_NUMBER),
      location: { id: location.id, code: location.code, name: location.name, address: location.address },
      type: 'increase',
      stock_source: 'good',
      reason: 'Cycle count correction',
      status: 'pending',
      total_amount: 40.28,
      item_count: 2,
      items: [
        { id: expect.any(Number), product_id: String(p0!.id), product_name: p0!.name, sku: p0!.sku, type: 'increase', quantity: 3, unit_cost: 0.1, total_cost: 0.3, notes: 'shelf A3', lot_number: null, expiry_date: null },
        { id: expect.any(Number), product_id: String(p1!.id), product_name: p1!.name, sku: p1!.sku, type: 'increase', quantity: 2, unit_cost: 19.99, total_cost: 39.98, notes: '', lot_number: null, expiry_date: null },
      ],
      created_by: actor,
      created_at: expect.stringMatching(ISO_MS),
      updated_at: expect.stringMatching(ISO_MS),
      approved_at: null,
      approved_by: null,
      rejected_at: null,
      rejected_by: null,
      rejection_reason: null,
    });
    expect(adj.adjustment_number.slice(4, 12), 'the number carries the UTC creation date').toBe(adj.created_at.slice(0, 10).replaceAll('-', ''));
    expect(Date.parse(adj.created_at)).toBeGreaterThanOrEqual(before - 5000);
    expect(Date.parse(adj.created_at)).toBeLessThanOrEqual(Date.now() + 5000);
    expect(adj.items[0].id).not.toBe(adj.items[1].id);

    // The detail form is the same adjustment with the live current_stock on each item.
    const shown = await detail(a, adj.id);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data.adjustment).toStrictEqual({ ...adj, items: adj.items.map((i: JsonBody) => ({ ...i, current_stock: 0 })) });

    // Numbers keep counting within the tenant, never repeating.
    const next = created(await create(a, { location_id: location.id, type: 'decrease', stock_source: 'damaged', reason: 'next', items: [line(p0!)] }));
    expect(next.id).toMatch(ADJ_NUMBER);
    expect(Number(next.id.slice(-6))).toBeGreaterThan(Number(adj.id.slice(-6)));
  });

  it('totals are exact decimals: 3 x 0.1 = 0.3, 2 x 19.99 = 39.98, ten lines of 0.1 = 1, 0.0001 x 0.0001; numeric strings accepted', async () => {
    const p = productsA;
    const cases: Array<[unknown[], number, number[]]> = [
      [[line(p[2]!, 3, 0.1)], 0.3, [0.3]],
      [[line(p[3]!, 2, 19.99)], 39.98, [39.98]],
      [[line(p[2]!, '3', '0.1'), line(p[3]!, '2.0000', '19.9900')], 40.28, [0.3, 39.98]],
      [p.slice(20, 30).map((x) => line(x, 1, 0.1)), 1, Array(10).fill(0.1)],
      [[line(p[2]!, '0.0001', '0.0001')], 0.00000001, [0.00000001]],
      [[line(p[2]!, 1.5, 0), line(p[3]!, 12345.6789, 1.0001)], 12346.91346789, [0, 12346.91346789]],
    ];
    for (const [items, totalAmount, lineTotals] of cases) {
      const adj = await adjustment('increase', items);
      expect(adj.total_amount, JSON.stringify(items)).toBe(totalAmount);
      expect(adj.item_count).toBe(items.length);
      expect(adj.items.map((i: JsonBody) => i.total_cost)).toEqual(lineTotals);
    }
  });

  it('a 500-line adjustment: every total_cost and total_amount equal an independent BigInt sum; 501 lines is 413', async () => {
    // Deterministic quantities and costs with up to 4 places; each product has up to 8 places and
    // the total at most 15 significant digits, so the JSON number prints exactly.
    const quantities = productsA.map((_, i) => `${1 + ((i * 37) % 90)}.${String((i * 7919) % 10000).padStart(4, '0')}`);
    const costs = productsA.map((_, i) => `${(i * 131) % 100}.${String((i * 104729) % 10000).padStart(4, '0')}`);
    const exactLines = quantities.map((q, i) => times(q, costs[i]!));
    const exactTotal = unscaled(exactLines.reduce((s, x) => s + x, 0n));
    const floatTotal = quantities.reduce((s, q, i) => s + Number(q) * Number(costs[i]), 0);
    expect(floatTotal, 'binary floating point would get this total wrong').not.toBe(Number(exactTotal));

    const before = await totalListed(a);
    const items = productsA.map((p, i) => ({ product_id: p.id, quantity: Number(quantities[i]), unit_cost: Number(costs[i]) }));
    expect(items).toHaveLength(500);
    const adj = await adjustment('increase', items);
    expect(adj.item_count).toBe(500);
    expect(adj.items).toHaveLength(500);
    expect(adj.items.map((i: JsonBody) => i.product_id)).toEqual(productsA.map((p) => String(p.id)));
    adj.items.forEach((item: JsonBody, i: number) => {
      expect(scaled(item.quantity, 4), `items[${i}].quantity`).toBe(scaled(quantities[i]!, 4));
      expect(scaled(item.unit_cost, 4), `items[${i}].unit_cost`).toBe(scaled(costs[i]!, 4));
      expect(String(item.total_cost), `items[${i}].total_cost`).toBe(unscaled(exactLines[i]!));
    });
    expect(String(adj.total_amount), 'total_amount, exactly').toBe(exactTotal);

    const shown = await detail(a, adj.id);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data.adjustment.total_amount).toBe(adj.total_amount);
    expect(shown.body.data.adjustment.items).toHaveLength(500);

    const tooMany = [...items, { product_id: productsA[0]!.id, quantity: 1, unit_cost: 1 }];
    expectError(await create(a, { location_id: locationsA[0]!.id, type: 'increase', stock_source: 'good', reason: 'too many', items: tooMany }), 'PAYLOAD_TOO_LARGE', 'items');
    expect(await totalListed(a), 'only the 500-line adjustment was created').toBe(before + 1);
  });

  it('create validation (docs/stock-rules.md#adjustments): each rule is 422 VALIDATION_ERROR on its field, and nothing is created', async () => {
    const location = locationsA[0]!;
    const [p30, p31] = [productsA[30]!, productsA[31]!];
    const valid = () => ({ location_id: location.id, type: 'increase', stock_source: 'good', reason: 'count', items: [line(p30, 1, 1)] as Record<string, unknown>[] });
    const without = (key: string) => omit(valid(), key);
    const withLine = (change: Record<string, unknown>, drop = '') => ({ ...valid(), items: [omit({ ...line(p30, 1, 1), ...change }, drop)] });
    const cases: Array<[string, unknown, string]> = [
      ['an unknown location', { ...valid(), location_id: 99_999_999 }, 'location_id'],
      ["another tenant's location", { ...valid(), location_id: partner.tenants[1]!.locationIds[0] }, 'location_id'],
      ["another partner's location", { ...valid(), location_id: outsider.tenants[0]!.locationIds[0] }, 'location_id'],
      ['location_id as a string', { ...valid(), location_id: String(location.id) }, 'location_id'],
      ['location_id 0', { ...valid(), location_id: 0 }, 'location_id'],
      ['location_id missing', without('location_id'), 'location_id'],
      ["another tenant's product on line 1", { ...valid(), items: [line(p30), line(productB)] }, 'items[1].product_id'],
      ['an unknown product', withLine({ product_id: '99999999' }), 'items[0].product_id'],
      ['a product id that is not digits', withLine({ product_id: 'SKU-1' }), 'items[0].product_id'],
      ['product_id missing', withLine({}, 'product_id'), 'items[0].product_id'],
      ['the same product twice (string, then integer)', { ...valid(), items: [line(p30), { product_id: p30.id, quantity: 2, unit_cost: 1 }] }, 'items[1].product_id'],
      ['the same product twice after another line', { ...valid(), items: [line(p30), line(p31), line(p30)] }, 'items[2].product_id'],
      ['quantity 0', withLine({ quantity: 0 }), 'items[0].quantity'],
      ['quantity negative', withLine({ quantity: -1 }), 'items[0].quantity'],
      ['quantity with 5 decimal places', withLine({ quantity: 1.00001 }), 'items[0].quantity'],
      ['quantity as a string with 5 decimal places', withLine({ quantity: '0.00001' }), 'items[0].quantity'],
      ['quantity not a number', withLine({ quantity: 'ten' }), 'items[0].quantity'],
      ['quantity missing', withLine({}, 'quantity'), 'items[0].quantity'],
      ['unit_cost negative', withLine({ unit_cost: -0.01 }), 'items[0].unit_cost'],
      ['unit_cost with 5 decimal places', withLine({ unit_cost: 19.99001 }), 'items[0].unit_cost'],
      ['unit_cost missing', withLine({}, 'unit_cost'), 'items[0].unit_cost'],
      ['reason empty', { ...valid(), reason: '' }, 'reason'],
      ['reason only spaces', { ...valid(), reason: '   ' }, 'reason'],
      ['reason of 501 characters', { ...valid(), reason: 'r'.repeat(501) }, 'reason'],
      ['reason not a string', { ...valid(), reason: 5 }, 'reason'],
      ['reason missing', without('reason'), 'reason'],
      ['type outside the enum', { ...valid(), type: 'sideways' }, 'type'],
      ['type missing', without('type'), 'type'],
      ['stock_source outside the enum', { ...valid(), stock_source: 'broken' }, 'stock_source'],
      ['stock_source missing', without('stock_source'), 'stock_source'],
      ['items missing', without('items'), 'items'],
      ['items empty', { ...valid(), items: [] }, 'items'],
      ['items not an array', { ...valid(), items: { product_id: p30.id } }, 'items'],
    ];
    const before = await totalListed(a);
    for (const [label, body, field] of cases) {
      const res = await create(a, body);
      expect(res.status, `${label}: ${res.text}`).toBe(422);
      expectError(res, 'VALIDATION_ERROR', field);
    }
    const empty = await create(a, {});
    expectError(empty, 'VALIDATION_ERROR');
    expect(empty.body.error.issues.map((i: { field: string }) => i.field).sort()).toEqual(['items', 'location_id', 'reason', 'stock_source', 'type']);
    expect(await totalListed(a), 'no refused request created anything').toBe(before);

    // The edges that are allowed: unit_cost 0, quantity with 4 places, a reason of 500 characters.
    const edge = created(await create(a, { ...valid(), reason: 'e'.repeat(500), items: [line(p30, '0.0001', 0)] }));
    expect(edge).toMatchObject({ reason: 'e'.repeat(500), total_amount: 0, items: [{ quantity: 0.0001, unit_cost: 0, total_cost: 0 }] });
    expect(await totalListed(a)).toBe(before + 1);
  });

  it('the largest quantity and unit_cost the validation accepts (1e11 x 1e13) are created (201) with their exact total, on every dialect', async () => {
    // Found by this suite: PostgreSQL answers 500 INTERNAL_ERROR here (the money columns are
    // numeric(28, 8), at most 20 integer digits) while SQLite answers 201.
    const p = productsA[40]!;
    const res = await create(a, { location_id: locationsA[0]!.id, type: 'increase', stock_source: 'good', reason: 'upper bounds', items: [line(p, '100000000000', '10000000000000')] });
    expect(res.status, `a body the validation accepts must not fail: ${res.text}`).toBe(201);
    expect(res.body.data.adjustment).toMatchObject({ total_amount: 1e24, items: [{ quantity: 1e11, unit_cost: 1e13, total_cost: 1e24 }] });
  });

  it('list form carries exactly the list-entry fields; detail form has items with live current_stock and the address', async () => {
    const [p10, p11] = [productsA[10]!, productsA[11]!];
    const location = locationsA[1]!;
    await recordOpening(stack.internal, a.tenant, location.id, p10.id, { good: '7' }, 'COUNT-LIST');
    const adj = created(
      await create(a, { location_id: location.id, type: 'decrease', stock_source: 'good', reason: 'Breakage', items: [line(p10, 2, 1.25, 'dropped'), line(p11, 1, 3)] }),
    );
    const listed = await list(a, { per_page: 100 });
    expect(listed.status, listed.text).toBe(200);
    for (const entry of listed.body.data.adjustments) expect(Object.keys(entry).sort()).toEqual(LIST_ENTRY_KEYS);
    const entry = listed.body.data.adjustments.find((e: JsonBody) => e.id === adj.id);
    expect(entry).toStrictEqual({
      id: adj.id,
      adjustment_number: adj.id,
      location: { id: location.id, code: location.code, name: location.name },
      type: 'decrease',
      reason: 'Breakage',
      status: 'pending',
      total_amount: 5.5,
      item_count: 2,
      created_at: adj.created_at,
      updated_at: adj.updated_at,
    });

    const shown = await detail(a, adj.id);
    expect(shown.status, shown.text).toBe(200);
    expect(Object.keys(shown.body.data)).toEqual(['adjustment']);
    expect(shown.body.data.adjustment).toStrictEqual({ ...adj, items: [{ ...adj.items[0], current_stock: 7 }, { ...adj.items[1], current_stock: 0 }] });
    expect(shown.body.data.adjustment.location.address).toBe(location.address);

    // current_stock is read at request time.
    await recordOpening(stack.internal, a.tenant, location.id, p10.id, { good: '3.5' }, 'COUNT-LIST-2');
    await recordOpening(stack.internal, a.tenant, location.id, p11.id, { damaged: '4' }, 'COUNT-LIST-3');
    const again = await detail(a, adj.id);
    expect(again.body.data.adjustment.items.map((i: JsonBody) => i.current_stock)).toEqual([10.5, 0]);
  });

  it('approve (PATCH, and POST) applies the stock change once; approving or rejecting a decided adjustment is INVALID_STATE', async () => {
    const p4 = productsA[4]!;
    const location = locationsA[0]!;
    expect(await stockAt(gw, a, location.id, p4.id)).toEqual(EMPTY_STOCK);
    const adj = await adjustment('increase', [line(p4, 10, 2.5)]);
    expect(await stockAt(gw, a, location.id, p4.id), 'nothing moves before approval').toEqual(EMPTY_STOCK);

    expectDecided(await act(a, 'approve', adj.id, 'PATCH', {}));
    expect(await stockAt(gw, a, location.id, p4.id)).toEqual({ good: 10, damaged: 0, reserved: 0, available: 10 });
    const shown = (await detail(a, adj.id)).body.data.adjustment;
    expect(shown).toStrictEqual({
      ...adj,
      status: 'approved',
      approved_at: expect.stringMatching(ISO_MS),
      approved_by: actor,
      updated_at: expect.stringMatching(ISO_MS),
      items: [{ ...adj.items[0], current_stock: 10 }],
    });
    expect(Date.parse(shown.approved_at)).toBeGreaterThanOrEqual(Date.parse(adj.created_at));
    expect(Date.parse(shown.updated_at)).toBeGreaterThanOrEqual(Date.parse(adj.updated_at));

    expectError(await act(a, 'approve', adj.id, 'PATCH'), 'INVALID_STATE');
    expectError(await act(a, 'approve', adj.id, 'POST'), 'INVALID_STATE');
    expectError(await act(a, 'reject', adj.id, 'PATCH', { reason: 'too late' }), 'INVALID_STATE');
    expectError(await act(a, 'reject', adj.id, 'POST', { reason: 'too late' }), 'INVALID_STATE');
    expect((await detail(a, adj.id)).body.data.adjustment).toStrictEqual(shown);
    expect(await stockAt(gw, a, location.id, p4.id), 'applied exactly once').toEqual({ good: 10, damaged: 0, reserved: 0, available: 10 });

    // POST (the spec's example request) approves as well.
    const more = await adjustment('increase', [line(p4, '0.5', 1)]);
    expectDecided(await act(a, 'approve', more.id, 'POST'));
    expect(await stockAt(gw, a, location.id, p4.id)).toEqual({ good: 10.5, damaged: 0, reserved: 0, available: 10.5 });

    const moves = await allMovements(gw, a, { product_id: p4.id, location_id: location.id });
    expect(moves.map((m) => [m.cause_type, m.cause_id, m.document_number, m.bucket, m.quantity_change, m.quantity_before, m.quantity_after])).toEqual([
      ['adjustment', more.id, more.id, 'good', 0.5, 10, 10.5],
      ['adjustment', adj.id, adj.id, 'good', 10, 0, 10],
    ]);
  });

  it('reject (PATCH, and POST) needs a reason of 1 to 500 characters, records it, and has no stock effect', async () => {
    const p5 = productsA[5]!;
    const location = locationsA[0]!;
    const adj = await adjustment('increase', [line(p5, 4, 1)]);
    const refusals: Array<[unknown, string]> = [
      [{}, 'reason'],
      [{ reason: '' }, 'reason'],
      [{ reason: '  ' }, 'reason'],
      [{ reason: 'x'.repeat(501) }, 'reason'],
      [{ reason: 42 }, 'reason'],
    ];
    for (const [body, field] of refusals) {
      expectError(await act(a, 'reject', adj.id, 'PATCH', body), 'VALIDATION_ERROR', field);
      expectError(await act(a, 'reject', adj.id, 'POST', body), 'VALIDATION_ERROR', field);
    }
    expect(await statusOf(a, adj.id), 'still pending after refused rejections').toBe('pending');

    expectDecided(await act(a, 'reject', adj.id, 'POST', { reason: 'Counted twice' }));
    const shown = (await detail(a, adj.id)).body.data.adjustment;
    expect(shown).toStrictEqual({
      ...adj,
      status: 'rejected',
      rejected_at: expect.stringMatching(ISO_MS),
      rejected_by: actor,
      rejection_reason: 'Counted twice',
      updated_at: expect.stringMatching(ISO_MS),
      items: [{ ...adj.items[0], current_stock: 0 }],
    });
    expect(await stockAt(gw, a, location.id, p5.id)).toEqual(EMPTY_STOCK);
    expectError(await act(a, 'approve', adj.id, 'PATCH'), 'INVALID_STATE');
    expectError(await act(a, 'approve', adj.id, 'POST'), 'INVALID_STATE');
    expectError(await act(a, 'reject', adj.id, 'PATCH', { reason: 'again' }), 'INVALID_STATE');
    expect((await detail(a, adj.id)).body.data.adjustment).toStrictEqual(shown);
    expect(await stockAt(gw, a, location.id, p5.id)).toEqual(EMPTY_STOCK);
    expect(await allMovements(gw, a, { product_id: p5.id })).toEqual([]);

    const other = await adjustment('decrease', [line(p5, 1, 1)]);
    expectDecided(await act(a, 'reject', other.id, 'PATCH', { reason: 'y'.repeat(500) }));
    expect((await detail(a, other.id)).body.data.adjustment).toMatchObject({ status: 'rejected', rejection_reason: 'y'.repeat(500), approved_at: null, approved_by: null });
  });

  it('a decrease beyond the stock is INSUFFICIENT_STOCK: nothing applied, still pending; down to exactly zero is allowed', async () => {
    const [p6, p7, p12] = [productsA[6]!, productsA[7]!, productsA[12]!];
    const location = locationsA[0]!;
    await recordOpening(stack.internal, a.tenant, location.id, p6.id, { good: '10' }, 'COUNT-DEC-6');
    await recordOpening(stack.internal, a.tenant, location.id, p7.id, { good: '5', damaged: '9' }, 'COUNT-DEC-7');
    const movesBefore = await allMovements(gw, a, { location_id: location.id });

    const second = await adjustment('decrease', [line(p6, 4, 1), line(p7, '5.0001', 1)]);
    const refused = await act(a, 'approve', second.id);
    expectError(refused, 'INSUFFICIENT_STOCK', 'items[1].quantity');
    const first = await adjustment('decrease', [line(p6, '10.5', 1)]);
    expectError(await act(a, 'approve', first.id, 'POST'), 'INSUFFICIENT_STOCK', 'items[0].quantity');
    const never = await adjustment('decrease', [line(p12, 1, 1)]);
    expectError(await act(a, 'approve', never.id), 'INSUFFICIENT_STOCK', 'items[0].quantity');

    for (const id of [second.id, first.id, never.id]) {
      const shown = (await detail(a, id)).body.data.adjustment;
      expect(shown).toMatchObject({ status: 'pending', approved_at: null, approved_by: null });
    }
    expect(await stockAt(gw, a, location.id, p6.id), 'the line that fitted was not applied either').toEqual({ good: 10, damaged: 0, reserved: 0, available: 10 });
    expect(await stockAt(gw, a, location.id, p7.id)).toEqual({ good: 5, damaged: 9, reserved: 0, available: 5 });
    expect(await stockAt(gw, a, location.id, p12.id)).toEqual(EMPTY_STOCK);
    expect(await allMovements(gw, a, { location_id: location.id }), 'no ledger rows for refused approvals').toEqual(movesBefore);

    const exact = await adjustment('decrease', [line(p6, 10, 1), line(p7, 5, 1)]);
    expectDecided(await act(a, 'approve', exact.id));
    expect(await stockAt(gw, a, location.id, p6.id)).toEqual(EMPTY_STOCK);
    expect(await stockAt(gw, a, location.id, p7.id)).toEqual({ good: 0, damaged: 9, reserved: 0, available: 0 });
    expectError(await act(a, 'approve', second.id), 'INSUFFICIENT_STOCK', 'items[0].quantity');
    expect(await statusOf(a, second.id)).toBe('pending');
  });

  it('the damaged bucket: increase and decrease move damaged stock only; current_stock reads that bucket', async () => {
    const p8 = productsA[8]!;
    const location = locationsA[0]!;
    await recordOpening(stack.internal, a.tenant, location.id, p8.id, { good: '10' }, 'COUNT-DMG');
    const up = await adjustment('increase', [line(p8, 3, 1)], 'damaged');
    expect(up.stock_source).toBe('damaged');
    expect((await detail(a, up.id)).body.data.adjustment.items[0].current_stock, 'damaged is 0 although good is 10').toBe(0);
    expectDecided(await act(a, 'approve', up.id));
    expect(await stockAt(gw, a, location.id, p8.id)).toEqual({ good: 10, damaged: 3, reserved: 0, available: 10 });
    expect((await detail(a, up.id)).body.data.adjustment.items[0].current_stock).toBe(3);

    const tooMuch = await adjustment('decrease', [line(p8, 4, 1)], 'damaged');
    expectError(await act(a, 'approve', tooMuch.id), 'INSUFFICIENT_STOCK', 'items[0].quantity');
    expect(await statusOf(a, tooMuch.id)).toBe('pending');
    const down = await adjustment('decrease', [line(p8, '1.5', 1)], 'damaged');
    expectDecided(await act(a, 'approve', down.id, 'POST'));
    expect(await stockAt(gw, a, location.id, p8.id)).toEqual({ good: 10, damaged: 1.5, reserved: 0, available: 10 });
    expect((await detail(a, tooMuch.id)).body.data.adjustment.items[0].current_stock).toBe(1.5);
    const moves = await allMovements(gw, a, { product_id: p8.id });
    expect(moves.map((m) => [m.bucket, m.quantity_change, m.quantity_after, m.cause_type, m.document_number])).toEqual([
      ['damaged', -1.5, 1.5, 'adjustment', down.id],
      ['damaged', 3, 3, 'adjustment', up.id],
      ['good', 10, 10, 'opening', null],
    ]);
  });

  it('a decrease of good stock may not go below what an approved transfer reserved', async () => {
    const p9 = productsA[9]!;
    const [source, destination] = [locationsA[0]!, locationsA[1]!];
    await recordOpening(stack.internal, a.tenant, source.id, p9.id, { good: '10' }, 'COUNT-RES');
    const transfer = await gw.post(
      TRANSFERS,
      { from_location_id: source.id, to_location_id: destination.id, transfer_date: '2026-03-02', items: [{ product_id: String(p9.id), quantity: 4 }] },
      { key: a.key, tenant: a.tenant },
    );
    expect(transfer.status, transfer.text).toBe(201);
    const approved = await gw.request('PATCH', `${TRANSFERS}/${transfer.body.data.transfer.id}/approve`, {
      key: a.key,
      tenant: a.tenant,
      json: {},
      template: `${TRANSFERS}/{id}/approve`,
    });
    expect(approved.status, approved.text).toBe(200);
    expect(await stockAt(gw, a, source.id, p9.id)).toEqual({ good: 10, damaged: 0, reserved: 4, available: 6 });

    const tooMuch = await adjustment('decrease', [line(p9, 7, 1)]);
    expectError(await act(a, 'approve', tooMuch.id), 'INSUFFICIENT_STOCK', 'items[0].quantity');
    expect(await stockAt(gw, a, source.id, p9.id)).toEqual({ good: 10, damaged: 0, reserved: 4, available: 6 });
    const fits = await adjustment('decrease', [line(p9, 6, 1)]);
    expectDecided(await act(a, 'approve', fits.id));
    expect(await stockAt(gw, a, source.id, p9.id)).toEqual({ good: 4, damaged: 0, reserved: 4, available: 0 });
  });

  describe('list: filters, order and pagination (25 adjustments of one tenant)', () => {
    interface Planned {
      id: string;
      location: number;
      type: 'increase' | 'decrease';
      status: 'pending' | 'approved' | 'rejected';
    }
    /** In creation order; the list shows them newest first. */
    const planned: Planned[] = [];
    const newestFirst = (filter: (p: Planned) => boolean = () => true) => planned.filter(filter).map((p) => p.id).reverse();
    const ids = (res: GatewayResponse): string[] => {
      expect(res.status, res.text).toBe(200);
      return res.body.data.adjustments.map((e: JsonBody) => e.id);
    };

    beforeAll(async () => {
      for (let i = 0; i < 25; i += 1) {
        const location = locationsD[i % 2]!.id;
        const type = i % 3 === 0 ? 'decrease' : 'increase';
        const adj = created(await create(d, { location_id: location, type, stock_source: 'good', reason: `Count ${i}`, items: [line(productD, i + 1, 1)] }));
        const status = i % 4 === 2 ? 'rejected' : i % 4 === 1 && type === 'increase' ? 'approved' : 'pending';
        planned.push({ id: adj.id, location, type, status });
      }
      // Decisions change updated_at, never the order (created_at desc, then id desc).
      for (const p of planned) {
        if (p.status === 'approved') expectDecided(await act(d, 'approve', p.id));
        if (p.status === 'rejected') expectDecided(await act(d, 'reject', p.id, 'PATCH', { reason: 'not needed' }));
      }
    });

    it('filters status, location_id and type (alone and together), newest first', async () => {
      const [d1, d2] = [locationsD[0]!.id, locationsD[1]!.id];
      const cases: Array<[Record<string, string | number>, (p: Planned) => boolean]> = [
        [{}, () => true],
        [{ status: 'pending' }, (p) => p.status === 'pending'],
        [{ status: 'approved' }, (p) => p.status === 'approved'],
        [{ status: 'rejected' }, (p) => p.status === 'rejected'],
        [{ location_id: d2 }, (p) => p.location === d2],
        [{ type: 'decrease' }, (p) => p.type === 'decrease'],
        [{ type: 'increase' }, (p) => p.type === 'increase'],
        [{ status: 'pending', location_id: d1, type: 'increase' }, (p) => p.status === 'pending' && p.location === d1 && p.type === 'increase'],
        [{ status: 'approved', type: 'decrease' }, () => false],
      ];
      for (const [query, filter] of cases) {
        const expected = newestFirst(filter);
        const res = await list(d, { ...query, per_page: 100 });
        expect(ids(res), JSON.stringify(query)).toEqual(expected);
        expect(res.body.data.pagination).toStrictEqual({ current_page: 1, per_page: 100, total: expected.length, last_page: 1 });
        for (const entry of res.body.data.adjustments) {
          const plan = planned.find((p) => p.id === entry.id)!;
          expect(entry).toMatchObject({ status: plan.status, type: plan.type, location: { id: plan.location } });
        }
      }
      for (const [query, field] of [
        [{ status: 'done' }, 'status'],
        [{ type: 'up' }, 'type'],
        [{ location_id: 'abc' }, 'location_id'],
        [{ location_id: 0 }, 'location_id'],
      ] as Array<[Record<string, string | number>, string]>) {
        expectError(await list(d, query), 'VALIDATION_ERROR', field);
      }
    });

    it('pages of 10 cover all 25 once, in order; last_page 3; a page past the end is empty with correct totals', async () => {
      const all = newestFirst();
      const walked: string[] = [];
      for (let page = 1; page <= 3; page += 1) {
        const res = await list(d, { page, per_page: 10 });
        expect(res.body.data.pagination).toStrictEqual({ current_page: page, per_page: 10, total: 25, last_page: 3 });
        expect(ids(res)).toHaveLength(page < 3 ? 10 : 5);
        walked.push(...ids(res));
      }
      expect(new Set(walked).size, 'no adjustment twice').toBe(25);
      expect(walked, 'every adjustment, newest first').toEqual(all);
      for (const page of [4, 99]) {
        const past = await list(d, { page, per_page: 10 });
        expect(past.body.data).toStrictEqual({ adjustments: [], pagination: { current_page: page, per_page: 10, total: 25, last_page: 3 } });
      }
      const defaults = await list(d);
      expect(defaults.body.data.pagination).toStrictEqual({ current_page: 1, per_page: 10, total: 25, last_page: 3 });
      expect(ids(defaults)).toEqual(all.slice(0, 10));

      const bySeven: string[] = [];
      for (let page = 1; page <= 4; page += 1) bySeven.push(...ids(await list(d, { page, per_page: 7 })));
      expect(bySeven).toEqual(all);
      expect(ids(await list(d, { per_page: 100 }))).toEqual(all);

      const pending = newestFirst((p) => p.status === 'pending');
      const pendingWalk: string[] = [];
      const pages = Math.ceil(pending.length / 3);
      for (let page = 1; page <= pages; page += 1) {
        const res = await list(d, { status: 'pending', page, per_page: 3 });
        expect(res.body.data.pagination).toStrictEqual({ current_page: page, per_page: 3, total: pending.length, last_page: pages });
        pendingWalk.push(...ids(res));
      }
      expect(pendingWalk).toEqual(pending);

      const empty = await list(c);
      expect(empty.body.data).toStrictEqual({ adjustments: [], pagination: { current_page: 1, per_page: 10, total: 0, last_page: 1 } });
    });

    it('page and per_page out of range are 422 on that parameter', async () => {
      const cases: Array<[Record<string, string | number>, string]> = [
        [{ per_page: 0 }, 'per_page'],
        [{ per_page: 101 }, 'per_page'],
        [{ per_page: 'ten' }, 'per_page'],
        [{ per_page: '2.5' }, 'per_page'],
        [{ page: 0 }, 'page'],
        [{ page: -1 }, 'page'],
        [{ page: 'x' }, 'page'],
      ];
      for (const [query, field] of cases) expectError(await list(d, query), 'VALIDATION_ERROR', field);
      expect((await list(d, { per_page: 100, page: 1 })).status).toBe(200);
      expect((await list(d, { per_page: 1 })).body.data.pagination).toStrictEqual({ current_page: 1, per_page: 1, total: 25, last_page: 25 });
    });
  });

  it("another tenant's or another partner's adjustment is 404 on detail, approve and reject, and stays pending", async () => {
    const theirs = created(
      await create(b, { location_id: partner.tenants[1]!.locationIds[0], type: 'increase', stock_source: 'good', reason: 'in B', items: [line(productB, 2, 1)] }),
    );
    const strangers: TenantSession[] = [c, { key: outsider.key, tenant: outsider.tenants[0]!.id }];
    for (const s of strangers) {
      expectError(await detail(s, theirs.id), 'NOT_FOUND');
      expectError(await act(s, 'approve', theirs.id, 'PATCH'), 'NOT_FOUND');
      expectError(await act(s, 'approve', theirs.id, 'POST'), 'NOT_FOUND');
      expectError(await act(s, 'reject', theirs.id, 'PATCH', { reason: 'not mine' }), 'NOT_FOUND');
      expectError(await act(s, 'reject', theirs.id, 'POST', { reason: 'not mine' }), 'NOT_FOUND');
    }
    expectError(await detail({ key: outsider.key, tenant: b.tenant }, theirs.id), 'FORBIDDEN', 'X-Tenant-Id');
    for (const unknown of ['ADJ-20000101-999999', 'nope']) {
      expectError(await detail(a, unknown), 'NOT_FOUND');
      expectError(await act(a, 'approve', unknown), 'NOT_FOUND');
      expectError(await act(a, 'reject', unknown, 'PATCH', { reason: 'x' }), 'NOT_FOUND');
    }
    const shown = await detail(b, theirs.id);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body.data.adjustment).toMatchObject({ status: 'pending', approved_at: null, rejected_at: null });
    expect(await stockAt(gw, b, partner.tenants[1]!.locationIds[0]!, productB.id)).toEqual(EMPTY_STOCK);
  });
});
