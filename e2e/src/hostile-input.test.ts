// Input that is never accepted (docs/input-rules.md), against the real processes on every dialect: NUL
// and lone surrogates in every text field of every partner body, every query value and every path
// id; dates at years 0, 1899, 1900, 9999 and 10000; bodies 200,000 levels deep with and without an
// Idempotency-Key; totals at and past the exactness bound; prototype keys. Every refusal is below
// 500, in the error envelope on the right field, and stores nothing. Then the same, smaller,
// through the internal API's typed client.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { GatewayResponse, JsonBody } from './harness/gateway-response.js';
import { createShipment } from './harness/inbound-fixtures.js';
import { type CatalogueProduct, type TenantSession, createProducts, recordOpening, stockAt } from './harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { liveContract } from './harness/openapi-contract.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';

const NUL_ISSUE = 'must not contain the NUL character';
const SURROGATE_ISSUE = 'must not contain unpaired surrogates (invalid Unicode)';
const NOT_UTF8_ISSUE = 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)';
const DATE_RANGE_ISSUE = 'must be a date from 1900-01-01 to 9999-12-31';

/** What goes into a JSON body: JSON.stringify writes a lone surrogate as the escape `\ud800`, so it arrives unpaired. */
const HOSTILE_TEXT = [
  { what: 'NUL', text: '\u0000', issue: NUL_ISSUE },
  { what: 'a lone surrogate', text: '\ud800', issue: SURROGATE_ISSUE },
] as const;

/** What goes into a URL: `%00`, and `%ED%A0%80`, U+D800 in generalised UTF-8 (the only way a lone surrogate travels in a URL). */
const HOSTILE_URL = [
  { what: 'NUL', raw: '%00', issue: NUL_ISSUE },
  { what: 'a lone surrogate', raw: '%ED%A0%80', issue: NOT_UTF8_ISSUE },
] as const;

type Path = (string | number)[];

const fieldOf = (path: Path) => path.reduce<string>((out, part) => (typeof part === 'number' ? `${out}[${part}]` : out === '' ? part : `${out}.${part}`), '');

/** A copy of `body` with `suffix` appended to the string at `path`. */
function appended(body: JsonBody, path: Path, suffix: string): JsonBody {
  const copy = structuredClone(body) as JsonBody;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key];
  const last = path.at(-1)!;
  target[last] = `${String(target[last])}${suffix}`;
  return copy;
}

const nestedArrays = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

const dialects = await e2eDialects();

describe.each(dialects)('[%s] input that is never accepted', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  let session: TenantSession;
  let locations: number[];
  let products: CatalogueProduct[];
  let shipment: { id: number; itemId: string };
  let pendingAdjustment: string;
  let pendingTransfer: string;

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    partner = await onboardPartner(stack.internal, gw, { label: 'Hostile', tenants: 1, locations: 2 });
    const tenant = partner.tenants[0]!;
    session = { key: partner.key, tenant: tenant.id };
    locations = tenant.locationIds;
    // The second product has the largest cost price the internal API takes (15 significant digits); the fourth is free.
    products = await createProducts(stack.internal, tenant.id, 4, 'HOSTILE', (i) => ['1.50', '9999999999999.99', '2.00', '0.00'][i]!);
    await recordOpening(stack.internal, tenant.id, locations[0]!, products[0]!.id, { good: '100' }, 'COUNT-1');
    const created = await createShipment(stack.internal, tenant.id, locations[0]!, [[products[0]!.id, 10]]);
    shipment = { id: created.id, itemId: String(created.lines[0]!.id) };
    pendingAdjustment = (await write('POST', '/api/partner/v1/adjustments', adjustmentBody(), 201)).body.data.adjustment.id;
    pendingTransfer = (await write('POST', '/api/partner/v1/transfers', transferBody(), 201)).body.data.transfer.id;
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  const auth = () => ({ key: session.key, tenant: session.tenant });

  async function write(method: string, path: string, json: JsonBody, expected?: number, template?: string): Promise<GatewayResponse> {
    const res = await gw.request(method, path, { ...auth(), json, ...(template ? { template } : {}) });
    if (expected !== undefined) expect(res.status, res.text).toBe(expected);
    return res;
  }

  function adjustmentBody(): JsonBody {
    return {
      location_id: locations[0],
      type: 'increase',
      stock_source: 'good',
      reason: 'recount',
      items: [{ product_id: String(products[0]!.id), quantity: 1, unit_cost: 2, notes: 'shelf' }],
    };
  }

  function transferBody(): JsonBody {
    return {
      from_location_id: locations[0],
      to_location_id: locations[1],
      transfer_date: '2026-02-01',
      expected_arrival_date: '2026-02-03',
      reference_number: 'PO-1',
      notes: 'weekly',
      items: [{ product_id: String(products[0]!.id), quantity: 1, notes: 'fragile' }],
    };
  }

  /** Everything a refused request could have written, read back through the gateway. */
  async function stored() {
    const get = async (path: string, query: Record<string, string | number> = {}) => {
      const res = await gw.get(path, { ...auth(), query });
      expect(res.status, res.text).toBe(200);
      return res.body.data;
    };
    const adjustments = await get('/api/engine/v1/adjustments', { per_page: 100 });
    const transfers = await get('/api/engine/v1/transfers', { per_page: 100 });
    const inbound = await gw.request('GET', `/api/partner/v1/inbound/${shipment.id}`, { ...auth(), template: '/api/partner/v1/inbound/{id}' });
    const tenants = await get('/api/partner/v1/tenants');
    const webhooks = await get('/api/partner/v1/webhooks');
    return {
      adjustments: (adjustments.adjustments as JsonBody[]).map((a) => [a.id, a.status, a.reason, a.total_amount]),
      transfers: (transfers.transfers as JsonBody[]).map((t) => [t.id, t.status, t.notes, t.transfer_date]),
      inbound: [inbound.body.data.inbound.status, inbound.body.data.inbound.items],
      installations: (tenants.installations as JsonBody[]).map((i) => [i.tenant_id, i.uninstall_at, i.uninstall_reason]),
      webhooks: webhooks.webhooks,
      stock: await Promise.all([0, 1].flatMap((l) => products.map((p) => stockAt(gw, session, locations[l]!, p.id)))),
    };
  }

  describe('NUL and lone surrogates in every text field of every partner body', () => {
    /** Each write with a valid body and the paths of its string fields; `free` marks free text, whose issue names the character. */
    const bodies = () => [
      {
        method: 'POST',
        path: '/api/partner/v1/adjustments',
        body: adjustmentBody(),
        fields: [{ path: ['reason'], free: true }, { path: ['items', 0, 'notes'], free: true }, { path: ['type'] }, { path: ['stock_source'] }, { path: ['items', 0, 'product_id'] }],
      },
      { method: 'PATCH', path: `/api/partner/v1/adjustments/${pendingAdjustment}/reject`, template: '/api/partner/v1/adjustments/{id}/reject', body: { reason: 'duplicate' }, fields: [{ path: ['reason'], free: true }] },
      {
        method: 'POST',
        path: '/api/partner/v1/transfers',
        body: transferBody(),
        fields: [
          { path: ['reference_number'], free: true },
          { path: ['notes'], free: true },
          { path: ['items', 0, 'notes'], free: true },
          { path: ['transfer_date'] },
          { path: ['expected_arrival_date'] },
          { path: ['items', 0, 'product_id'] },
        ],
      },
      { method: 'PATCH', path: `/api/partner/v1/transfers/${pendingTransfer}/reject`, template: '/api/partner/v1/transfers/{id}/reject', body: { reason: 'not needed' }, fields: [{ path: ['reason'], free: true }] },
      {
        method: 'POST',
        path: `/api/partner/v1/inbound/${shipment.id}/receive`,
        template: '/api/partner/v1/inbound/{id}/receive',
        body: { items: [{ item_id: shipment.itemId, received_quantity: '1', received_by: 'Budi', grid_id: 'RCV-1', received_at: '2026-01-31T08:00:00Z', condition: 'good' }] },
        fields: [
          { path: ['items', 0, 'received_by'], free: true },
          { path: ['items', 0, 'grid_id'], free: true },
          { path: ['items', 0, 'item_id'] },
          { path: ['items', 0, 'received_at'] },
          { path: ['items', 0, 'condition'] },
          { path: ['items', 0, 'received_quantity'] },
        ],
      },
      { method: 'POST', path: '/api/partner/v1/tenants/authorize', body: { tenant_id: session.tenant, days_connected: 3, installation_type: 'custom' }, fields: [{ path: ['tenant_id'] }, { path: ['installation_type'] }] },
      { method: 'POST', path: '/api/partner/v1/tenants/deauthorize', body: { tenant_id: session.tenant, uninstall_reason: 'closing' }, fields: [{ path: ['uninstall_reason'], free: true }, { path: ['tenant_id'] }] },
      {
        method: 'POST',
        path: '/api/partner/v1/webhooks',
        body: { url: 'https://hooks.example.com/pits', event_types: ['inbound.status_changed'], description: 'inbound' },
        fields: [{ path: ['description'], free: true }, { path: ['url'] }, { path: ['event_types', 0] }],
      },
    ];

    it('is 422 VALIDATION_ERROR on that field, and nothing is stored', async () => {
      const before = await stored();
      let cases = 0;
      for (const { method, path, template, body, fields } of bodies()) {
        for (const field of fields) {
          for (const { text, issue } of HOSTILE_TEXT) {
            const res = await write(method, path, appended(body, field.path, text), undefined, template);
            expectError(res, 'VALIDATION_ERROR', fieldOf(field.path));
            if ('free' in field) expect(res.body.error.details.issue, `${method} ${path} ${fieldOf(field.path)}`).toBe(issue);
            cases += 1;
          }
        }
      }
      expect(cases).toBeGreaterThanOrEqual(52);
      expect(await stored()).toEqual(before);
    });
  });

  describe('NUL and lone surrogates in every query value', () => {
    const queries = () => [
      { path: '/api/engine/v1/adjustments', params: { status: 'pending', type: 'increase', location_id: String(locations[0]), page: '1', per_page: '10' } },
      { path: '/api/engine/v1/transfers', params: { status: 'pending', from_location_id: String(locations[0]), to_location_id: String(locations[1]), transfer_date_from: '2026-01-01', transfer_date_to: '2026-12-31', page: '1' } },
      { path: '/api/partner/v1/inbound', params: { status: 'pending', location_id: String(locations[0]), per_page: '20' } },
      { path: '/api/partner/v1/tenants', params: { page: '1', per_page: '10' } },
      { path: '/api/partner/v1/tenants/locations', params: { page: '1', per_page: '10' } },
      { path: '/api/partner/v1/tenants/available-logistics', params: { page: '1', per_page: '10' } },
      { path: '/api/partner/v1/areas', params: { search_by: 'city', search_value: 'Jakarta', page: '1' }, free: ['search_value'] },
      { path: '/api/partner/v1/areas/detail', params: { subdistrict_code: '31.74.05.1001' } },
      { path: '/api/partner/v1/stock', params: { location_id: String(locations[0]), product_id: String(products[0]!.id), sku: products[0]!.sku, per_page: '20' }, free: ['sku'] },
      { path: '/api/partner/v1/stock/movements', params: { location_id: String(locations[0]), from: '2026-01-01', to: '2026-12-31T00:00:00Z', limit: '20', cursor: 'abc' }, free: ['cursor'] },
      { path: '/api/partner/v1/webhooks/deliveries', params: { status: 'failed', endpoint_id: '1', limit: '20' } },
    ];

    it('is 422 VALIDATION_ERROR on that parameter, never a 5xx', async () => {
      const before = await stored();
      let cases = 0;
      for (const { path, params, free = [] } of queries()) {
        for (const name of Object.keys(params)) {
          for (const { raw, issue } of HOSTILE_URL) {
            const query = Object.entries(params)
              .map(([k, v]) => `${k}=${encodeURIComponent(v)}${k === name ? raw : ''}`)
              .join('&');
            const res = await gw.request('GET', `${path}?${query}`, { ...auth(), template: path });
            expectError(res, 'VALIDATION_ERROR', name);
            // %ED%A0%80 is refused before any parameter is read; a NUL by the parameter's own rule.
            if (raw !== '%00' || free.includes(name)) expect(res.body.error.details.issue, `${path} ${name}`).toBe(issue);
            cases += 1;
          }
        }
      }
      expect(cases).toBeGreaterThanOrEqual(72);
      expect(await stored()).toEqual(before);
    });
  });

  describe('NUL and lone surrogates in every path id', () => {
    it('is 422 VALIDATION_ERROR on id for every route with one, and nothing is stored', async () => {
      const before = await stored();
      const { document } = await liveContract(stack.gateway.url);
      const ids: Record<string, string> = {
        '/api/engine/v1/adjustments/{id}': pendingAdjustment,
        '/api/engine/v1/transfers/{id}': pendingTransfer,
        '/api/partner/v1/inbound/{id}': String(shipment.id),
      };
      let cases = 0;
      for (const [template, methods] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
        if (!template.includes('{id}')) continue;
        const id = Object.entries(ids).find(([prefix]) => template.startsWith(prefix.replace('/{id}', '/')))?.[1] ?? '1';
        for (const method of Object.keys(methods).map((m) => m.toUpperCase())) {
          for (const { raw, issue } of HOSTILE_URL) {
            const path = template.replace('{id}', `${encodeURIComponent(id)}${raw}`);
            const res = await gw.request(method, path, { ...auth(), template, ...(method === 'GET' || method === 'DELETE' ? {} : { json: { reason: 'hostile' } }) });
            expectError(res, 'VALIDATION_ERROR', 'id');
            expect(res.body.error.details.issue).toBe(issue);
            cases += 1;
          }
        }
      }
      expect(cases).toBeGreaterThanOrEqual(30);
      expect(await stored()).toEqual(before);
    });
  });

  describe('dates at years 0, 1899, 1900, 9999 and 10000', () => {
    const refusedDates = ['0000-01-01', '1899-12-31', '10000-01-01'];
    const refusedTimes = ['0000-01-01T00:00:00Z', '1899-12-31T23:59:59.999Z', '1900-01-01T00:30:00+01:00', '10000-01-01T00:00:00Z', '9999-12-31T23:00:00-05:00'];

    it('refuses years 0, 1899 and 10000 in every date and timestamp, on that field, storing nothing', async () => {
      const before = await stored();
      for (const date of refusedDates) {
        const early = await write('POST', '/api/partner/v1/transfers', { ...transferBody(), transfer_date: date, expected_arrival_date: undefined });
        expectError(early, 'VALIDATION_ERROR', 'transfer_date');
        expect(early.body.error.details.issue).toBe(DATE_RANGE_ISSUE);
        const late = await write('POST', '/api/partner/v1/transfers', { ...transferBody(), transfer_date: '1900-01-01', expected_arrival_date: date });
        expectError(late, 'VALIDATION_ERROR', 'expected_arrival_date');
        for (const name of ['transfer_date_from', 'transfer_date_to']) {
          expectError(await gw.get('/api/engine/v1/transfers', { ...auth(), query: { [name]: date } }), 'VALIDATION_ERROR', name);
        }
        for (const name of ['from', 'to']) {
          expectError(await gw.get('/api/partner/v1/stock/movements', { ...auth(), query: { [name]: date } }), 'VALIDATION_ERROR', name);
        }
      }
      for (const time of refusedTimes) {
        const receipt = { items: [{ item_id: shipment.itemId, received_quantity: 1, received_at: time }] };
        const res = await write('POST', `/api/partner/v1/inbound/${shipment.id}/receive`, receipt, undefined, '/api/partner/v1/inbound/{id}/receive');
        expectError(res, 'VALIDATION_ERROR', 'items[0].received_at');
        for (const name of ['from', 'to']) {
          expectError(await gw.get('/api/partner/v1/stock/movements', { ...auth(), query: { [name]: time } }), 'VALIDATION_ERROR', name);
        }
      }
      expect(await stored()).toEqual(before);
    });

    it('accepts 1900-01-01 and 9999-12-31 and stores them as sent, on every dialect', async () => {
      const created = await write('POST', '/api/partner/v1/transfers', { ...transferBody(), transfer_date: '1900-01-01', expected_arrival_date: '9999-12-31' }, 201);
      const id = created.body.data.transfer.id as string;
      expect(created.body.data.transfer).toMatchObject({ transfer_date: '1900-01-01', expected_arrival_date: '9999-12-31' });
      const detail = await gw.request('GET', `/api/engine/v1/transfers/${id}`, { ...auth(), template: '/api/engine/v1/transfers/{id}' });
      expect(detail.body.data.transfer).toMatchObject({ transfer_date: '1900-01-01', expected_arrival_date: '9999-12-31' });
      const listed = await gw.get('/api/engine/v1/transfers', { ...auth(), query: { transfer_date_from: '1900-01-01', transfer_date_to: '1900-01-01' } });
      expect(listed.status, listed.text).toBe(200);
      expect((listed.body.data.transfers as JsonBody[]).map((t) => t.id)).toEqual([id]);
      // The whole range holds every movement there is (the opening count among them).
      for (const query of [{ from: '1900-01-01', to: '9999-12-31' }, { from: '1900-01-01T00:00:00Z', to: '9999-12-31T23:59:59.999Z' }]) {
        const movements = await gw.get('/api/partner/v1/stock/movements', { ...auth(), query: { ...query, product_id: products[0]!.id } });
        expect(movements.status, movements.text).toBe(200);
        expect((movements.body.data.movements as JsonBody[]).map((m) => m.cause_type)).toContain('opening');
      }
      for (const received of ['1900-01-01T00:00:00.000Z', '9999-12-31T23:59:59.999Z']) {
        const receipt = { items: [{ item_id: shipment.itemId, received_quantity: 1, received_at: received }] };
        const res = await write('POST', `/api/partner/v1/inbound/${shipment.id}/receive`, receipt, 200, '/api/partner/v1/inbound/{id}/receive');
        expect(res.body.data.inbound.items[0]).toMatchObject({ id: shipment.itemId, received_at: received });
      }
    });
  });

  describe('bodies nested 200,000 levels deep', () => {
    it.each([
      ['without', undefined],
      ['with', 'hostile-deep-1'],
    ])('are 400 INVALID_REQUEST %s an Idempotency-Key, and the key stays unused', async (_, key) => {
      const before = await stored();
      const headers: Record<string, string> = key === undefined ? {} : { 'Idempotency-Key': key };
      const deep = `{"location_id":${locations[0]},"type":"increase","stock_source":"good","reason":"deep","items":[{"notes":${nestedArrays(200_000)}}]}`;
      for (const [method, path, template] of [
        ['POST', '/api/partner/v1/adjustments', undefined],
        ['POST', '/api/partner/v1/transfers', undefined],
        ['PATCH', `/api/partner/v1/adjustments/${pendingAdjustment}/reject`, '/api/partner/v1/adjustments/{id}/reject'],
        ['POST', `/api/partner/v1/inbound/${shipment.id}/receive`, '/api/partner/v1/inbound/{id}/receive'],
      ] as const) {
        const res = await gw.request(method, path, { ...auth(), rawBody: deep, headers, ...(template ? { template } : {}) });
        expectError(res, 'INVALID_REQUEST', '');
      }
      // 33 levels is one too many; 32 is parsed (and refused by the schema, not the depth rule).
      const nested = (levels: number) => `{"reason":"x","items":${nestedArrays(levels - 1)}}`;
      expectError(await gw.request('POST', '/api/partner/v1/adjustments', { ...auth(), rawBody: nested(33), headers }), 'INVALID_REQUEST', '');
      expect(await stored()).toEqual(before);
      if (key !== undefined) {
        // The refused requests never claimed the key: its first real use creates.
        const created = await gw.request('POST', '/api/partner/v1/adjustments', { ...auth(), json: adjustmentBody(), headers });
        expect(created.status, created.text).toBe(201);
      }
    });
  });

  describe('totals at and past the exactness bound', () => {
    it('creates an adjustment whose total is 15 significant digits, and it round-trips exactly', async () => {
      const body = { ...adjustmentBody(), items: [{ product_id: products[0]!.id, quantity: '99999999999.9999', unit_cost: '10000' }] };
      const created = await write('POST', '/api/partner/v1/adjustments', body, 201);
      // The JSON text itself carries the exact decimals (no 999999999999999.1 or 1e15 rounding).
      expect(created.text).toContain('"quantity":99999999999.9999');
      expect(created.text).toContain('"total_cost":999999999999999');
      expect(created.text).toMatch(/"total_amount":999999999999999[,}]/);
      const id = created.body.data.adjustment.id as string;
      const detail = await gw.request('GET', `/api/engine/v1/adjustments/${id}`, { ...auth(), template: '/api/engine/v1/adjustments/{id}' });
      expect(detail.body.data.adjustment).toMatchObject({ total_amount: 999999999999999, items: [{ quantity: 99999999999.9999, unit_cost: 10000, total_cost: 999999999999999 }] });
    });

    it('creates a transfer valued at 15 significant digits at the product\'s cost price, exactly', async () => {
      const body = { ...transferBody(), items: [{ product_id: products[1]!.id, quantity: '100' }] };
      const created = await write('POST', '/api/partner/v1/transfers', body, 201);
      expect(created.text).toContain('"unit_price":9999999999999.99');
      expect(created.text).toContain('"total_value":999999999999999');
    });

    it('refuses a line past the bound on its quantity and a document past it on items, storing nothing', async () => {
      const before = await stored();
      const line = (product: CatalogueProduct, quantity: string, unit_cost: string) => ({ product_id: product.id, quantity, unit_cost });
      const adjustments: [JsonBody[], string][] = [
        [[line(products[0]!, '99999999999.9999', '99999999999.9999')], 'items[0].quantity'],
        [[line(products[0]!, '1', '2'), line(products[1]!, '99999999999.9999', '10000.0001')], 'items[1].quantity'],
        [[line(products[0]!, '99999999999.9999', '10000'), line(products[1]!, '99999999999.9999', '10000')], 'items'],
        [[line(products[0]!, '1', '9999999999999.9999')], 'items[0].unit_cost'],
      ];
      for (const [items, field] of adjustments) {
        const res = await write('POST', '/api/partner/v1/adjustments', { ...adjustmentBody(), items });
        expectError(res, 'VALIDATION_ERROR', field);
      }
      const transfers: [JsonBody[], string][] = [
        [[{ product_id: products[1]!.id, quantity: '100.0001' }], 'items[0].quantity'],
        [[{ product_id: products[0]!.id, quantity: '1' }, { product_id: products[1]!.id, quantity: '99999999999.9999' }], 'items[1].quantity'],
        [[{ product_id: products[1]!.id, quantity: '100' }, { product_id: products[2]!.id, quantity: '1' }], 'items'],
        // Each line and the value are exact; the quantities add up to 100000000000.0001, 16 digits.
        [[{ product_id: products[3]!.id, quantity: '99999999999.9999' }, { product_id: products[2]!.id, quantity: '0.0002' }], 'items'],
      ];
      for (const [items, field] of transfers) {
        const res = await write('POST', '/api/partner/v1/transfers', { ...transferBody(), items });
        expectError(res, 'VALIDATION_ERROR', field);
        expect(res.body.error.details.issue).toMatch(/significant digits/);
      }
      expect(await stored()).toEqual(before);
    });

    it('publishes the bounds in /openapi.json', async () => {
      const { document } = await liveContract(stack.gateway.url);
      const line = document.components.schemas.AdjustmentLineInput.properties;
      expect(line.quantity.anyOf).toContainEqual({ type: 'number', maximum: 100000000000, exclusiveMinimum: 0 });
      expect(line.unit_cost.anyOf).toContainEqual({ type: 'number', maximum: 10000000000000, minimum: 0 });
      expect(line.quantity.description).toMatch(/15 significant digits/);
    });
  });

  describe('prototype keys', () => {
    it('in a body or a query string are plain unknown keys: ignored, never a 5xx, never on Object.prototype', async () => {
      const body = JSON.stringify(adjustmentBody()).replace(
        /^\{/,
        '{"__proto__":{"status":"approved","is_admin":true},"constructor":{"prototype":{"status":"approved"}},"prototype":{"x":1},',
      );
      const created = await gw.request('POST', '/api/partner/v1/adjustments', { ...auth(), rawBody: body });
      expect(created.status, created.text).toBe(201);
      expect(created.body.data.adjustment).toMatchObject({ status: 'pending', reason: 'recount' });
      const authorize = await gw.request('POST', '/api/partner/v1/tenants/authorize', {
        ...auth(),
        rawBody: `{"__proto__":{"installation_type":"marketplace"},"tenant_id":"${session.tenant}","days_connected":3,"installation_type":"custom"}`,
      });
      expect(authorize.status, authorize.text).toBe(200);
      expect(authorize.body.data.installation.installation_type).toBe('custom');
      const listed = await gw.request('GET', '/api/engine/v1/adjustments?__proto__[status]=approved&constructor=x&prototype=y&status=pending', { ...auth(), template: '/api/engine/v1/adjustments' });
      expect(listed.status, listed.text).toBe(200);
      expect((listed.body.data.adjustments as JsonBody[]).every((a) => a.status === 'pending')).toBe(true);
      expect(({} as Record<string, unknown>)['status']).toBeUndefined();
    });
  });

  describe('the internal API', () => {
    /** Counts of everything the refused calls could have created. */
    async function internalCounts() {
      const tenantId = session.tenant;
      return {
        tenants: (await stack.internal.tenants.list.query({ perPage: 100 })).pagination.total,
        partners: (await stack.internal.partners.list.query()).length,
        locations: (await stack.internal.locations.list.query({ tenantId })).pagination.total,
        products: (await stack.internal.products.list.query({ tenantId })).pagination.total,
      };
    }

    async function refusalOf(call: Promise<unknown>): Promise<Record<string, unknown>> {
      try {
        await call;
      } catch (error) {
        return (error as { data: Record<string, unknown> }).data;
      }
      throw new Error('expected a refusal');
    }

    it('refuses NUL and lone surrogates in the text fields of tenants, partners, locations and products with BAD_REQUEST on the field, storing nothing', async () => {
      const before = await internalCounts();
      const tenantId = session.tenant;
      const location = { tenantId, code: 'WH-X', name: 'Hostile Warehouse', type: 'warehouse', address: 'Jl. Merdeka 1', city: 'Jakarta', state: 'DKI', zip: '10110', subdistrict: 'Gambir', country: 'Indonesia', picName: 'Budi', phone: '+62 21 555', receivingGrid: 'RCV-X' };
      const product = { tenantId, sku: 'SKU-X', name: 'Hostile', barcode: '899', description: 'A product', brand: 'Kopi', productType: 'physical', status: 'published' };
      const calls: [string, (bad: string) => Promise<unknown>][] = [
        ...(['name', 'tenantType'] as const).map((f): [string, (bad: string) => Promise<unknown>] => [f, (bad) => stack.internal.tenants.create.mutate({ name: 'Hostile Store', tenantType: 'live', [f]: `${f}${bad}` })]),
        ['name', (bad) => stack.internal.partners.create.mutate({ name: `Hostile${bad}`, email: 'dev@hostile.example', tier: 'small' })],
        ...(Object.keys(location).filter((f) => f !== 'tenantId') as (keyof typeof location)[]).map(
          (f): [string, (bad: string) => Promise<unknown>] => [f, (bad) => stack.internal.locations.create.mutate({ ...location, [f]: `${location[f]}${bad}` })],
        ),
        ...(Object.keys(product).filter((f) => f !== 'tenantId') as (keyof typeof product)[]).map(
          (f): [string, (bad: string) => Promise<unknown>] => [f, (bad) => stack.internal.products.create.mutate({ ...product, [f]: `${product[f]}${bad}` })],
        ),
      ];
      for (const [field, call] of calls) {
        for (const { text, issue } of HOSTILE_TEXT) {
          const data = await refusalOf(call(text));
          expect(data, `${field} ${JSON.stringify(text)}`).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field, issues: [{ field, issue }] });
        }
      }
      expect(calls.length).toBeGreaterThanOrEqual(20);
      expect(await internalCounts()).toEqual(before);
    });

    it('refuses a body 200,000 levels deep as BAD_REQUEST kind INVALID_REQUEST, storing nothing', async () => {
      const before = await internalCounts();
      const res = await fetch(`${stack.internalApi.url}/trpc/tenants.create?batch=1`, {
        method: 'POST',
        headers: { authorization: `Bearer ${stack.internalToken}`, 'content-type': 'application/json' },
        body: `{"0":{"name":${nestedArrays(200_000)}}}`,
      });
      expect(res.status).toBe(400);
      const [answer] = (await res.json()) as [{ error: { data: Record<string, unknown> } }];
      expect(answer.error.data).toMatchObject({ code: 'BAD_REQUEST', kind: 'INVALID_REQUEST', field: '' });
      expect(await internalCounts()).toEqual(before);
    });
  });
});
