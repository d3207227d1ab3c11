// Inbound shipments end to end (spec: Inbound; docs/stock-rules.md#inbound-shipments): shipments created through the
// internal API, then listed (envelope B, Laravel-style rows), read (envelope A) and received by the
// partner through the gateway, with the stock that receipts add and every refusal. Both shapes
// agree on the same shipment, and concurrent receipts never receive more than expected.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { GatewayResponse, JsonBody } from './harness/gateway-response.js';
import {
  type LocationView,
  type ProductView,
  type ShipmentView,
  type WarehouseTenant,
  createFullProduct,
  createProduct,
  createShipment,
  createWarehouseTenant,
} from './harness/inbound-fixtures.js';
import { allMovements, stockAt } from './harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';

const LIST = '/api/partner/v1/inbound';
const DETAIL = '/api/partner/v1/inbound/{id}';
const RECEIVE = '/api/partner/v1/inbound/{id}/receive';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const MICROS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

const dialects = await e2eDialects();

/** The product as the inbound list embeds it: every field, prices and dimensions with two places. */
function embeddedProduct(p: ProductView) {
  return {
    product_id: p.id,
    category_id: 7,
    name: p.name,
    sku: p.sku,
    barcode: p.barcode,
    description: p.description,
    brand: 'Kopi Nusantara',
    product_type: 'physical',
    published_price: '19.90',
    cost_price: '12.50',
    weight: '1.25',
    width: '10.00',
    height: '5.50',
    length: '20.00',
    status: 'published',
    is_bundle: false,
    is_managed_by_fulfillment: true,
    advance_qc: true,
    production_batch: false,
    cold_storage: true,
    fulfillment_manage_by: null,
    outbound_expired: 30,
    inbound_expired: 60,
    outer_barcode: null,
    created_by: p.createdBy,
    updated_by: p.updatedBy,
    deleted_by: null,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    deleted_at: null,
  };
}

/** The location as the inbound list embeds it: the tenant-locations fields plus is_return, updated_by, deleted_by, deleted_at, updated_at. */
function embeddedLocation(l: LocationView) {
  return {
    location_id: l.id,
    name: l.name,
    code: l.code,
    type: 'warehouse',
    address: l.address,
    city: 'Bandung',
    state: 'Jawa Barat',
    zip: l.zip,
    subdistrict: 'Cicendo',
    country: 'Indonesia',
    pic_name: l.picName,
    phone: l.phone,
    latitude: l.latitude,
    longitude: l.longitude,
    is_default: l.isDefault,
    is_pickup: l.isPickup,
    status: 'active',
    origin_code: l.originCode,
    created_by: l.createdBy,
    created_at: l.createdAt,
    is_return: l.isReturn,
    updated_by: l.updatedBy,
    deleted_by: null,
    deleted_at: null,
    updated_at: l.updatedAt,
  };
}

describe.each(dialects)('[%s] inbound shipments through the gateway', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let alpha: OnboardedPartner;
  let bravo: OnboardedPartner;
  /** alpha's tenants: receipts and shapes, filters, pagination. */
  let main: WarehouseTenant;
  let filters: WarehouseTenant;
  let pager: WarehouseTenant;

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    alpha = await onboardPartner(stack.internal, gw, { label: 'Inbound', tenants: 0 });
    bravo = await onboardPartner(stack.internal, gw, { label: 'Other', tenants: 1 });
    main = await createWarehouseTenant(stack.internal, gw, alpha, 'Main');
    filters = await createWarehouseTenant(stack.internal, gw, alpha, 'Filter');
    pager = await createWarehouseTenant(stack.internal, gw, alpha, 'Pager', 1);
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  const as = (tenant: string) => ({ key: alpha.key, tenant });
  const list = (tenant: string, query: Record<string, string | number> = {}) => gw.get(LIST, { ...as(tenant), query });
  const detail = (tenant: string, id: number | string) => gw.get(`${LIST}/${id}`, { ...as(tenant), template: DETAIL });
  const receive = (tenant: string, id: number | string, items: unknown[]) => gw.post(`${LIST}/${id}/receive`, { items }, { ...as(tenant), template: RECEIVE });
  const stock = (tenant: WarehouseTenant, locationIndex: number, productId: number) => stockAt(gw, as(tenant.id), tenant.locations[locationIndex]!.id, productId);
  const item = (shipment: ShipmentView, line: number) => String(shipment.lines[line]!.id);
  const ok200 = (res: GatewayResponse) => {
    expect(res.status, res.text).toBe(200);
    return res.body;
  };
  /** The detail's status and each line's good and damaged received quantities. */
  const progress = async (tenant: string, id: number) => {
    const body = ok200(await detail(tenant, id));
    return { status: body.data.inbound.status as string, lines: (body.data.inbound.items as JsonBody[]).map((i) => [i.good_received_quantity, i.damaged_received_quantity]) };
  };

  describe('shapes', () => {
    let shipment: ShipmentView;
    let products: ProductView[];
    let location: LocationView;

    beforeAll(async () => {
      location = main.locations[1]!;
      products = [await createFullProduct(stack.internal, main.id, 'Shape1'), await createFullProduct(stack.internal, main.id, 'Shape2')];
      shipment = await createShipment(
        stack.internal,
        main.id,
        location.id,
        [
          [products[0]!.id, 12, { unit: 'box', unitPrice: '7.25', notes: 'fragile' }],
          [products[1]!.id, '2.5'],
        ],
        { code: `PO-SHAPE-${dialect}`, inboundDate: '2026-03-04T05:06:07.891Z', notes: 'two pallets', sourceId: 77, sourceCode: 'SRC-77' },
      );
    });

    it('GET /inbound is envelope B and its entry carries every field of the list shape', async () => {
      const res = await list(main.id, { location_id: location.id, per_page: 100 });
      const body = ok200(res);
      expect(Object.keys(body).sort()).toEqual(['data', 'errors', 'message', 'request_id', 'status']);
      expect(body).toMatchObject({ status: 200, message: 'Ok', errors: null });
      expect(body.request_id).toMatch(UUID_V4);
      expect(Object.keys(body.data).sort()).toEqual(['inbounds', 'pagination']);
      const entry = (body.data.inbounds as JsonBody[]).find((e) => e.inbound_id === shipment.id);
      expect(entry, 'the shipment is listed').toBeDefined();

      const lines = [
        { line: shipment.lines[0]!, product: products[0]!, expected: 12, notes: 'fragile' },
        { line: shipment.lines[1]!, product: products[1]!, expected: 2.5, notes: '' },
      ].map(({ line, product, expected, notes }) => ({
        inbound_detail_id: line.id,
        inbound_id: shipment.id,
        product_id: product.id,
        expected_quantity: expected,
        notes,
        created_by: shipment.createdBy,
        updated_by: shipment.createdBy,
        deleted_by: null,
        received_by: null,
        deleted_at: null,
        created_at: shipment.createdAt,
        updated_at: shipment.createdAt,
        product: embeddedProduct(product),
      }));
      expect(entry).toEqual({
        inbound_id: shipment.id,
        code: `PO-SHAPE-${dialect}`,
        inbound_date: '2026-03-04T05:06:07.891000Z',
        source_type: 'purchase',
        source_id: 77,
        source_code: 'SRC-77',
        location_id: location.id,
        status: 'pending',
        received_at: null,
        cancelled_at: null,
        notes: 'two pallets',
        created_by: shipment.createdBy,
        updated_by: shipment.createdBy,
        created_at: shipment.createdAt,
        updated_at: shipment.updatedAt,
        details: lines,
        details_count: 2,
        location: embeddedLocation(location),
        inbound_details: lines,
      });
      expect(entry.inbound_details, 'details and inbound_details are identical').toEqual(entry.details);
      expect(entry.inbound_date, 'inbound_date carries microseconds').toMatch(MICROS);
      for (const stamp of [entry.created_at, entry.updated_at, entry.location.created_at, entry.location.updated_at, entry.details[0].product.created_at]) expect(stamp).toMatch(MILLIS);
      expect(entry.location.latitude, 'latitude is a decimal string').toMatch(/^-?\d+\.\d+$/);
      expect(Number(entry.location.latitude)).toBe(-6.9175);
      expect(Number(entry.location.longitude)).toBe(107.6191);
      expect(entry.location.is_return, 'the second warehouse is a return location').toBe(true);
    });

    it('GET /inbound/{id} is envelope A with the detail shape', async () => {
      const body = ok200(await detail(main.id, shipment.id));
      expect(Object.keys(body).sort()).toEqual(['data', 'errors', 'request_id', 'status']);
      expect(body).toMatchObject({ status: 'ok', errors: null });
      expect(body.request_id).toMatch(UUID_V4);
      expect(body.data).toEqual({
        inbound: {
          id: String(shipment.id),
          reference_number: `PO-SHAPE-${dialect}`,
          status: 'pending',
          location: { id: String(location.id), code: location.code, name: location.name, address: location.address },
          items: [
            {
              id: item(shipment, 0),
              product_id: products[0]!.id,
              sku: products[0]!.sku,
              name: products[0]!.name,
              quantity: 12,
              unit: 'box',
              unit_price: 7.25,
              expected_quantity: 12,
              good_received_quantity: 0,
              damaged_received_quantity: 0,
              grid_id: 'RCV-Main-2',
              received_at: null,
              received_by: null,
            },
            {
              id: item(shipment, 1),
              product_id: products[1]!.id,
              sku: products[1]!.sku,
              name: products[1]!.name,
              quantity: 2.5,
              unit: 'pcs',
              unit_price: 12.5,
              expected_quantity: 2.5,
              good_received_quantity: 0,
              damaged_received_quantity: 0,
              grid_id: 'RCV-Main-2',
              received_at: null,
              received_by: null,
            },
          ],
          notes: 'two pallets',
          created_at: shipment.createdAt,
          updated_at: shipment.updatedAt,
        },
      });
    });

    it('both shapes agree on the same shipment (docs/envelopes-and-pagination.md)', async () => {
      const entry = (ok200(await list(main.id, { location_id: location.id, per_page: 100 })).data.inbounds as JsonBody[]).find((e) => e.inbound_id === shipment.id);
      const one = ok200(await detail(main.id, entry.inbound_id)).data.inbound;
      expect(entry.inbound_id).toBe(Number(one.id));
      expect(entry.code).toBe(one.reference_number);
      expect(entry.status).toBe(one.status);
      expect(entry.location_id).toBe(Number(one.location.id));
      expect(entry.location.location_id).toBe(Number(one.location.id));
      expect([entry.location.code, entry.location.name, entry.location.address]).toEqual([one.location.code, one.location.name, one.location.address]);
      expect(entry.inbound_details.map((d: JsonBody) => d.inbound_detail_id)).toEqual(one.items.map((i: JsonBody) => Number(i.id)));
      expect(entry.inbound_details.map((d: JsonBody) => [d.product.sku, d.product.name, d.expected_quantity])).toEqual(one.items.map((i: JsonBody) => [i.sku, i.name, i.expected_quantity]));
      expect([entry.notes, entry.created_at, entry.updated_at]).toEqual([one.notes, one.created_at, one.updated_at]);
      // The detail's items[].id is the item_id receive takes.
      const res = await receive(main.id, one.id, [{ item_id: one.items[1].id, received_quantity: 0.5 }]);
      expect(ok200(res).data.inbound.items.map((i: JsonBody) => i.id)).toEqual([one.items[1].id]);
    });
  });

  describe('filters and pagination of the list', () => {
    it('status and location_id filter exactly, newest first', async () => {
      const [f1, f2] = filters.locations.map((l) => l.id) as [number, number];
      const product = await createProduct(stack.internal, filters.id, 'Filter');
      const make = (location: number) => createShipment(stack.internal, filters.id, location, [[product.id, 2]]);
      const pending1 = await make(f1);
      const pending2 = await make(f2);
      const partial = await make(f1);
      const received = await make(f2);
      const cancelled = await make(f1);
      ok200(await receive(filters.id, partial.id, [{ item_id: item(partial, 0), received_quantity: 1 }]));
      ok200(await receive(filters.id, received.id, [{ item_id: item(received, 0), received_quantity: 2 }]));
      await stack.internal.inbound.cancel.mutate({ tenantId: filters.id, id: cancelled.id });

      const ids = async (query: Record<string, string | number>) => {
        const body = ok200(await list(filters.id, query));
        const entries = body.data.inbounds as JsonBody[];
        expect(body.data.pagination.total, JSON.stringify(query)).toBe(entries.length);
        return entries.map((e) => [e.inbound_id, e.status, e.location_id]);
      };
      const row = (s: ShipmentView, status: string, location: number) => [s.id, status, location];
      expect(await ids({})).toEqual([row(cancelled, 'cancelled', f1), row(received, 'received', f2), row(partial, 'partial', f1), row(pending2, 'pending', f2), row(pending1, 'pending', f1)]);
      expect(await ids({ status: 'pending' })).toEqual([row(pending2, 'pending', f2), row(pending1, 'pending', f1)]);
      expect(await ids({ status: 'partial' })).toEqual([row(partial, 'partial', f1)]);
      expect(await ids({ status: 'received' })).toEqual([row(received, 'received', f2)]);
      expect(await ids({ status: 'cancelled' })).toEqual([row(cancelled, 'cancelled', f1)]);
      expect(await ids({ location_id: f1 })).toEqual([row(cancelled, 'cancelled', f1), row(partial, 'partial', f1), row(pending1, 'pending', f1)]);
      expect(await ids({ location_id: f2 })).toEqual([row(received, 'received', f2), row(pending2, 'pending', f2)]);
      expect(await ids({ location_id: f2, status: 'pending' })).toEqual([row(pending2, 'pending', f2)]);
      expect(await ids({ location_id: f1, status: 'received' })).toEqual([]);

      const entries = ok200(await list(filters.id, { status: 'cancelled' })).data.inbounds as JsonBody[];
      expect(entries[0].cancelled_at).toMatch(MILLIS);
      expect(entries[0].received_at).toBeNull();
      const done = (ok200(await list(filters.id, { status: 'received' })).data.inbounds as JsonBody[])[0];
      expect(done.received_at).toMatch(MILLIS);
      expect(done.cancelled_at).toBeNull();

      expectError(await list(filters.id, { status: 'open' }), 'VALIDATION_ERROR', 'status');
      expectError(await list(filters.id, { location_id: 'abc' }), 'VALIDATION_ERROR', 'location_id');
      expectError(await list(filters.id, { location_id: 0 }), 'VALIDATION_ERROR', 'location_id');
    });

    it('pages: per_page default 20 and max 100, from/to, pages past the end empty with from/to null', async () => {
      const product = await createProduct(stack.internal, pager.id, 'Pager');
      const created: number[] = [];
      for (let i = 0; i < 25; i += 1) created.push((await createShipment(stack.internal, pager.id, pager.locations[0]!.id, [[product.id, 1]])).id);
      const newestFirst = [...created].reverse();
      const page = async (query: Record<string, number>) => {
        const data = ok200(await list(pager.id, query)).data;
        return { pagination: data.pagination as JsonBody, ids: (data.inbounds as JsonBody[]).map((e) => e.inbound_id as number) };
      };
      const p = (current_page: number, per_page: number, last_page: number, from: number | null, to: number | null) => ({ current_page, per_page, total: 25, last_page, from, to });

      const first = await page({});
      expect(first.pagination).toEqual(p(1, 20, 2, 1, 20));
      expect(first.ids).toEqual(newestFirst.slice(0, 20));
      const second = await page({ page: 2 });
      expect(second.pagination).toEqual(p(2, 20, 2, 21, 25));
      expect(second.ids).toEqual(newestFirst.slice(20));
      for (const past of [3, 40]) {
        const beyond = await page({ page: past });
        expect(beyond.pagination).toEqual(p(past, 20, 2, null, null));
        expect(beyond.ids).toEqual([]);
      }
      const hundred = await page({ per_page: 100 });
      expect(hundred.pagination).toEqual(p(1, 100, 1, 1, 25));
      expect(hundred.ids).toEqual(newestFirst);
      expect((await page({ per_page: 100, page: 2 })).pagination).toEqual(p(2, 100, 1, null, null));

      const walked: number[] = [];
      for (let n = 1; n <= 4; n += 1) {
        const { pagination, ids } = await page({ page: n, per_page: 7 });
        expect(pagination).toEqual(p(n, 7, 4, (n - 1) * 7 + 1, Math.min(n * 7, 25)));
        walked.push(...ids);
      }
      expect(walked, 'per_page 7 walks every shipment once, in order').toEqual(newestFirst);

      for (const per_page of [101, 0, -1]) expectError(await list(pager.id, { per_page }), 'VALIDATION_ERROR', 'per_page');
      expectError(await list(pager.id, { per_page: 'ten' }), 'VALIDATION_ERROR', 'per_page');
      for (const bad of [0, 'x']) expectError(await list(pager.id, { page: bad }), 'VALIDATION_ERROR', 'page');
    });
  });

  describe('receiving', () => {
    it('partial then full receipt: cumulative quantities, grid_id / received_at / received_by defaults and given values, damaged stock', async () => {
      const location = main.locations[0]!;
      const [pa, pb] = [await createProduct(stack.internal, main.id, 'RecvA'), await createProduct(stack.internal, main.id, 'RecvB')];
      const shipment = await createShipment(stack.internal, main.id, location.id, [
        [pa.id, 10],
        [pb.id, 4],
      ]);
      const [a, b] = [item(shipment, 0), item(shipment, 1)];
      expect(await stock(main, 0, pa.id)).toEqual({ good: 0, damaged: 0, reserved: 0, available: 0 });

      // 1. Part of A, nothing optional given: grid = the location's receiving grid, now, the partner's name.
      const before = new Date(Date.now() - 1000).toISOString();
      const first = ok200(await receive(main.id, shipment.id, [{ item_id: a, received_quantity: 3 }]));
      const after = new Date(Date.now() + 1000).toISOString();
      expect(Object.keys(first).sort()).toEqual(['data', 'errors', 'request_id', 'status']);
      expect(first).toMatchObject({ status: 'ok', errors: null });
      expect(first.data.inbound).toEqual({
        id: String(shipment.id),
        status: 'partial',
        updated_at: expect.stringMatching(MILLIS),
        items: [{ id: a, product_id: pa.id, sku: pa.sku, received_quantity: 3, pending_quantity: 7, grid_id: 'RCV-Main-1', received_at: expect.stringMatching(MILLIS), received_by: alpha.name }],
      });
      const receivedAt = first.data.inbound.items[0].received_at as string;
      expect(receivedAt >= before && receivedAt <= after, `received_at ${receivedAt} defaults to now`).toBe(true);
      expect(await stock(main, 0, pa.id)).toEqual({ good: 3, damaged: 0, reserved: 0, available: 3 });
      expect(await progress(main.id, shipment.id)).toEqual({ status: 'partial', lines: [[3, 0], [0, 0]] });

      // 2. More of A, damaged, with grid, time and person given.
      const second = ok200(
        await receive(main.id, shipment.id, [{ item_id: a, received_quantity: 2.5, condition: 'damaged', grid_id: 'DMG-07', received_at: '2026-05-01T09:30:00Z', received_by: 'Sari' }]),
      );
      expect(second.data.inbound.status).toBe('partial');
      expect(second.data.inbound.items).toEqual([{ id: a, product_id: pa.id, sku: pa.sku, received_quantity: 5.5, pending_quantity: 4.5, grid_id: 'DMG-07', received_at: '2026-05-01T09:30:00.000Z', received_by: 'Sari' }]);
      expect(await stock(main, 0, pa.id), 'damaged goods go to the damaged bucket').toEqual({ good: 3, damaged: 2.5, reserved: 0, available: 3 });
      const mid = ok200(await detail(main.id, shipment.id)).data.inbound;
      expect(mid.items.map((i: JsonBody) => [i.id, i.good_received_quantity, i.damaged_received_quantity, i.grid_id, i.received_at, i.received_by])).toEqual([
        [a, 3, 2.5, 'DMG-07', '2026-05-01T09:30:00.000Z', 'Sari'],
        [b, 0, 0, 'RCV-Main-1', null, null],
      ]);
      const listedMid = (ok200(await list(main.id, { status: 'partial', location_id: location.id })).data.inbounds as JsonBody[]).find((e) => e.inbound_id === shipment.id);
      expect(listedMid).toMatchObject({ status: 'partial', received_at: null, updated_by: alpha.name });
      expect(listedMid.details.map((d: JsonBody) => d.received_by)).toEqual(['Sari', null]);

      // 3. The rest of A and all of B in one request: received.
      const third = ok200(
        await receive(main.id, shipment.id, [
          { item_id: b, received_quantity: 4, grid_id: 'A-01-03', received_by: 'Budi' },
          { item_id: a, received_quantity: '4.5', grid_id: 'A-02-01' },
        ]),
      );
      expect(third.data.inbound.status).toBe('received');
      expect(third.data.inbound.items).toEqual([
        { id: b, product_id: pb.id, sku: pb.sku, received_quantity: 4, pending_quantity: 0, grid_id: 'A-01-03', received_at: expect.stringMatching(MILLIS), received_by: 'Budi' },
        { id: a, product_id: pa.id, sku: pa.sku, received_quantity: 10, pending_quantity: 0, grid_id: 'A-02-01', received_at: expect.stringMatching(MILLIS), received_by: alpha.name },
      ]);
      expect(await stock(main, 0, pa.id)).toEqual({ good: 7.5, damaged: 2.5, reserved: 0, available: 7.5 });
      expect(await stock(main, 0, pb.id)).toEqual({ good: 4, damaged: 0, reserved: 0, available: 4 });
      expect(await progress(main.id, shipment.id)).toEqual({ status: 'received', lines: [[7.5, 2.5], [4, 0]] });
      // The ledger names the shipment as the cause of every receipt, oldest last.
      const moves = await allMovements(gw, as(main.id), { location_id: location.id, product_id: pa.id });
      expect(moves.map((m) => [m.bucket, m.quantity_change, m.quantity_before, m.quantity_after, m.cause_type, m.cause_id, m.document_number])).toEqual([
        ['good', 4.5, 3, 7.5, 'inbound', String(shipment.id), shipment.code],
        ['damaged', 2.5, 0, 2.5, 'inbound', String(shipment.id), shipment.code],
        ['good', 3, 0, 3, 'inbound', String(shipment.id), shipment.code],
      ]);
      const listed = (ok200(await list(main.id, { status: 'received', location_id: location.id })).data.inbounds as JsonBody[]).find((e) => e.inbound_id === shipment.id);
      expect(listed.received_at).toMatch(MILLIS);

      // 4. Nothing more can be received.
      const again = await receive(main.id, shipment.id, [{ item_id: a, received_quantity: 1 }]);
      expectError(again, 'INVALID_STATE');
      expect(await stock(main, 0, pa.id)).toEqual({ good: 7.5, damaged: 2.5, reserved: 0, available: 7.5 });
    });

    it('every refusal is 422 on the offending line and applies nothing', async () => {
      const [pa, pb, pc] = [await createProduct(stack.internal, main.id, 'RefA'), await createProduct(stack.internal, main.id, 'RefB'), await createProduct(stack.internal, main.id, 'RefC')];
      const location = main.locations[0]!.id;
      const shipment = await createShipment(stack.internal, main.id, location, [
        [pa.id, 5],
        [pb.id, 5],
      ]);
      const other = await createShipment(stack.internal, main.id, location, [[pc.id, 5]]);
      const [a, b] = [item(shipment, 0), item(shipment, 1)];
      const refusals: Array<[unknown[], string]> = [
        [[{ item_id: a, received_quantity: 2 }, { item_id: b, received_quantity: 6 }], 'items[1].received_quantity'],
        [[{ item_id: a, received_quantity: 1 }, { item_id: '999999999', received_quantity: 1 }], 'items[1].item_id'],
        [[{ item_id: item(other, 0), received_quantity: 1 }], 'items[0].item_id'],
        [[{ item_id: a, received_quantity: 1 }, { item_id: a, received_quantity: 1 }], 'items[1].item_id'],
        [[{ item_id: a, received_quantity: 1 }, { item_id: `0${a}`, received_quantity: 1 }], 'items[1].item_id'],
        [[{ item_id: a, received_quantity: 0 }], 'items[0].received_quantity'],
        [[{ item_id: a, received_quantity: -1 }], 'items[0].received_quantity'],
        [[{ item_id: a, received_quantity: 1.23456 }], 'items[0].received_quantity'],
        [[{ item_id: a, received_quantity: '1.23456' }], 'items[0].received_quantity'],
        [[{ item_id: a }], 'items[0].received_quantity'],
        [[{ item_id: Number(a), received_quantity: 1 }], 'items[0].item_id'],
        [[{ item_id: a, received_quantity: 1, condition: 'broken' }], 'items[0].condition'],
        [[{ item_id: a, received_quantity: 1, received_at: '2026-02-30T10:00:00Z' }], 'items[0].received_at'],
        [[], 'items'],
      ];
      for (const [items, field] of refusals) expectError(await receive(main.id, shipment.id, items), 'VALIDATION_ERROR', field);
      expect(await progress(main.id, shipment.id), 'no refusal applied anything').toEqual({ status: 'pending', lines: [[0, 0], [0, 0]] });
      for (const product of [pa, pb, pc]) expect(await stock(main, 0, product.id)).toEqual({ good: 0, damaged: 0, reserved: 0, available: 0 });

      // Cumulative: 4 of 5 received, then 2 more is over by one.
      ok200(await receive(main.id, shipment.id, [{ item_id: a, received_quantity: 4 }]));
      expectError(await receive(main.id, shipment.id, [{ item_id: b, received_quantity: 1 }, { item_id: a, received_quantity: 2 }]), 'VALIDATION_ERROR', 'items[1].received_quantity');
      expect(await progress(main.id, shipment.id)).toEqual({ status: 'partial', lines: [[4, 0], [0, 0]] });
      expect(await stock(main, 0, pa.id)).toEqual({ good: 4, damaged: 0, reserved: 0, available: 4 });
      expect(await stock(main, 0, pb.id)).toEqual({ good: 0, damaged: 0, reserved: 0, available: 0 });
    });

    it('receive on a cancelled shipment is INVALID_STATE', async () => {
      const product = await createProduct(stack.internal, main.id, 'Cancel');
      const shipment = await createShipment(stack.internal, main.id, main.locations[0]!.id, [[product.id, 3]]);
      await stack.internal.inbound.cancel.mutate({ tenantId: main.id, id: shipment.id });
      expectError(await receive(main.id, shipment.id, [{ item_id: item(shipment, 0), received_quantity: 1 }]), 'INVALID_STATE');
      expect(await progress(main.id, shipment.id)).toEqual({ status: 'cancelled', lines: [[0, 0]] });
      expect(await stock(main, 0, product.id)).toEqual({ good: 0, damaged: 0, reserved: 0, available: 0 });
    });

    it("another tenant's shipment is 404 exactly like an unknown one; a missing X-Tenant-Id is 400", async () => {
      const foreignProduct = await createProduct(stack.internal, bravo.tenants[0]!.id, 'Foreign');
      const foreign = await createShipment(stack.internal, bravo.tenants[0]!.id, bravo.tenants[0]!.locationIds[0]!, [[foreignProduct.id, 2]]);
      const siblingProduct = await createProduct(stack.internal, filters.id, 'Sibling');
      const sibling = await createShipment(stack.internal, filters.id, filters.locations[0]!.id, [[siblingProduct.id, 2]]);
      // bravo reads its own shipment; alpha (for its main tenant) cannot see it, nor its own other tenant's.
      const own = await gw.get(`${LIST}/${foreign.id}`, { key: bravo.key, tenant: bravo.tenants[0]!.id, template: DETAIL });
      expect(own.status, own.text).toBe(200);
      for (const [shipment, id] of [[foreign, foreign.id], [sibling, sibling.id]] as const) {
        expectError(await detail(main.id, id), 'NOT_FOUND');
        expectError(await receive(main.id, id, [{ item_id: item(shipment, 0), received_quantity: 1 }]), 'NOT_FOUND');
      }
      for (const id of ['999999999', 'abc', '0']) {
        expectError(await detail(main.id, id), 'NOT_FOUND');
        expectError(await receive(main.id, id, [{ item_id: '1', received_quantity: 1 }]), 'NOT_FOUND');
      }
      const foreignNow = ok200(await gw.get(`${LIST}/${foreign.id}`, { key: bravo.key, tenant: bravo.tenants[0]!.id, template: DETAIL })).data.inbound;
      expect(foreignNow.status).toBe('pending');
      expect(ok200(await detail(filters.id, sibling.id)).data.inbound.status).toBe('pending');

      expectError(await gw.get(LIST, { key: alpha.key }), 'INVALID_REQUEST', 'X-Tenant-Id');
      expectError(await gw.get(`${LIST}/${sibling.id}`, { key: alpha.key, template: DETAIL }), 'INVALID_REQUEST', 'X-Tenant-Id');
      expectError(await gw.post(`${LIST}/${sibling.id}/receive`, { items: [{ item_id: item(sibling, 0), received_quantity: 1 }] }, { key: alpha.key, template: RECEIVE }), 'INVALID_REQUEST', 'X-Tenant-Id');
      expect(ok200(await detail(filters.id, sibling.id)).data.inbound.status, 'the refused receipt changed nothing').toBe('pending');
    });

    it('20 concurrent receipts of the same remaining quantity: exactly one succeeds, the stock is exact', async () => {
      const product = await createProduct(stack.internal, main.id, 'Race');
      const shipment = await createShipment(stack.internal, main.id, main.locations[0]!.id, [[product.id, 10]]);
      const a = item(shipment, 0);
      ok200(await receive(main.id, shipment.id, [{ item_id: a, received_quantity: 4 }]));
      const results = await Promise.all(Array.from({ length: 20 }, () => receive(main.id, shipment.id, [{ item_id: a, received_quantity: 6 }])));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200), `statuses: ${statuses.join(',')}`).toHaveLength(1);
      expect(statuses.filter((s) => s === 422), `statuses: ${statuses.join(',')}`).toHaveLength(19);
      for (const res of results.filter((r) => r.status === 422)) {
        // Refused as over-receipt, or because the winner already made the shipment received.
        expect(['VALIDATION_ERROR', 'INVALID_STATE'], res.text).toContain(res.body.error.code);
        expectError(res, res.body.error.code);
      }
      const winner = results.find((r) => r.status === 200)!;
      expect(winner.body.data.inbound).toMatchObject({ status: 'received', items: [{ id: a, received_quantity: 10, pending_quantity: 0 }] });
      expect(await progress(main.id, shipment.id)).toEqual({ status: 'received', lines: [[10, 0]] });
      expect(await stock(main, 0, product.id)).toEqual({ good: 10, damaged: 0, reserved: 0, available: 10 });
    });

    it('20 concurrent receipts of 1 against 6 pending: exactly 6 succeed, each reporting the state its own receipt produced', async () => {
      const product = await createProduct(stack.internal, main.id, 'Trickle');
      const shipment = await createShipment(stack.internal, main.id, main.locations[0]!.id, [[product.id, 6]]);
      const a = item(shipment, 0);
      const results = await Promise.all(Array.from({ length: 20 }, () => receive(main.id, shipment.id, [{ item_id: a, received_quantity: 1 }])));
      const statuses = results.map((r) => r.status);
      expect(statuses.filter((s) => s === 200), `statuses: ${statuses.join(',')}`).toHaveLength(6);
      expect(statuses.filter((s) => s === 422), `statuses: ${statuses.join(',')}`).toHaveLength(14);
      expect(await progress(main.id, shipment.id)).toEqual({ status: 'received', lines: [[6, 0]] });
      expect(await stock(main, 0, product.id)).toEqual({ good: 6, damaged: 0, reserved: 0, available: 6 });
      // Each success reports the shipment as its own receipt left it (docs/stock-rules.md#inbound-shipments: cumulative
      // received_quantity, pending_quantity = expected - received), not as later receipts did.
      const reported = results
        .filter((r) => r.status === 200)
        .map((r) => [r.body.data.inbound.items[0].received_quantity, r.body.data.inbound.items[0].pending_quantity, r.body.data.inbound.status] as [number, number, string])
        .sort((x, y) => x[0] - y[0]);
      expect(reported, 'each success reports its own cumulative total').toEqual([
        [1, 5, 'partial'],
        [2, 4, 'partial'],
        [3, 3, 'partial'],
        [4, 2, 'partial'],
        [5, 1, 'partial'],
        [6, 0, 'received'],
      ]);
    });
  });
});
