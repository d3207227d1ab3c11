import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  inboundDetail,
  inboundDetailResponse,
  inboundListEntry,
  inboundListQuery,
  inboundListResponse,
  inboundLocation,
  inboundProduct,
  receiveInboundBody,
  receiveInboundResponse,
  tenantLocation,
} from './inbound-schemas.js';
import { DATE_RANGE_ISSUE, LOT_NUMBER_ISSUE } from '@pits/domain';
import { parseWith } from './validation-issues.js';

function refusal(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

describe('inboundListQuery', () => {
  it('defaults to page 1 of 20 and reads location_id from text', () => {
    expect(parseWith(inboundListQuery, {})).toEqual({ ok: true, value: { page: 1, per_page: 20 } });
    expect(parseWith(inboundListQuery, { location_id: '7', status: 'partial', per_page: '100' })).toEqual({
      ok: true,
      value: { page: 1, per_page: 100, location_id: 7, status: 'partial' },
    });
  });

  it.each([
    [{ status: 'done' }, 'status', 'must be one of: pending, partial, received, cancelled'],
    [{ location_id: 'WH-1' }, 'location_id', 'must be an integer'],
    [{ location_id: '0' }, 'location_id', 'must be at least 1'],
    [{ per_page: '101' }, 'per_page', 'must be at most 100'],
  ])('refuses %j', (query, field, issue) => {
    expect(refusal(inboundListQuery, query).details).toEqual({ field, issue });
  });
});

describe('receiveInboundBody', () => {
  it('accepts the spec body and defaults condition to good', () => {
    const body = {
      items: [
        { item_id: '9001', received_quantity: 5, received_at: '2026-01-31T15:15:30+07:00', received_by: 'Budi' },
        { item_id: '9002', received_quantity: '1.25', condition: 'damaged', grid_id: 'A-01-03' },
      ],
    };
    expect(parseWith(receiveInboundBody, body)).toEqual({
      ok: true,
      value: {
        items: [
          { ...body.items[0], received_quantity: '5', condition: 'good' },
          { ...body.items[1], received_quantity: '1.25' },
        ],
      },
    });
  });

  it.each([
    [{ item_id: 9001 }, 'items[0].item_id', 'must be a string of digits'],
    [{ item_id: 'item-1' }, 'items[0].item_id', 'must be a string of digits'],
    [{ item_id: undefined }, 'items[0].item_id', 'is required (or give sku instead)'],
    [{ sku: 'SKU-1' }, 'items[0].sku', 'must not be given together with item_id'],
    [{ item_id: undefined, sku: '' }, 'items[0].sku', 'must not be empty'],
    [{ received_quantity: 0 }, 'items[0].received_quantity', 'must be greater than 0'],
    [{ received_quantity: '0.00001' }, 'items[0].received_quantity', 'must have at most 4 decimal places'],
    [{ received_at: '2026-01-31 08:00' }, 'items[0].received_at', 'must be an ISO 8601 timestamp with Z or an offset'],
    [{ received_by: 'b'.repeat(201) }, 'items[0].received_by', 'must be at most 200 characters'],
    [{ condition: 'broken' }, 'items[0].condition', 'must be one of: good, damaged'],
    [{ grid_id: 'g'.repeat(101) }, 'items[0].grid_id', 'must be at most 100 characters'],
    [{ grid_id: 'RCV\u0000' }, 'items[0].grid_id', 'must not contain the NUL character'],
    [{ received_by: 'Budi \ud800' }, 'items[0].received_by', 'must not contain unpaired surrogates (invalid Unicode)'],
    [{ item_id: '9001\u0000' }, 'items[0].item_id', 'must not contain the NUL character'],
    [{ received_at: '0000-01-01T00:00:00Z' }, 'items[0].received_at', 'must be a time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z'],
    [{ received_at: '10000-01-01T00:00:00Z' }, 'items[0].received_at', 'must be a date from 1900-01-01 to 9999-12-31'],
  ])('refuses a line with %j', (change, field, issue) => {
    const body = { items: [{ item_id: '9001', received_quantity: 5, ...change }] };
    expect(refusal(receiveInboundBody, body).details).toEqual({ field, issue });
  });

  it('refuses no lines, and the same item twice on the later line', () => {
    expect(refusal(receiveInboundBody, { items: [] }).details).toEqual({ field: 'items', issue: 'must have at least 1 item' });
    const items = [
      { item_id: '7', received_quantity: 1 },
      { item_id: '8', received_quantity: 1 },
      { item_id: '007', received_quantity: 1 },
    ];
    expect(refusal(receiveInboundBody, { items }).details).toEqual({
      field: 'items[2].item_id',
      issue: 'is the same item as items[0].item_id',
    });
  });

  it('answers more than 500 lines with PAYLOAD_TOO_LARGE', () => {
    const items = Array.from({ length: 501 }, (_, i) => ({ item_id: String(i + 1), received_quantity: 1 }));
    expect(refusal(receiveInboundBody, { items }).kind).toBe('PAYLOAD_TOO_LARGE');
  });
});

// ---------------------------------------------------------------------------------------------
// Responses

const ts = '2026-01-20T03:00:00.000Z';
const product = {
  product_id: 1042,
  category_id: 12,
  name: 'Blue Mug',
  sku: 'MUG-BLUE',
  barcode: '8991234567890',
  description: 'A blue mug',
  brand: null,
  product_type: 'physical',
  published_price: '35000.00',
  cost_price: '25000.00',
  weight: '0.35',
  width: '9.00',
  height: '10.50',
  length: '9.00',
  status: 'published',
  is_bundle: false,
  is_managed_by_fulfillment: true,
  advance_qc: false,
  production_batch: false,
  cold_storage: false,
  fulfillment_manage_by: null,
  outbound_expired: 0,
  inbound_expired: 0,
  outer_barcode: null,
  created_by: 'system',
  updated_by: 'system',
  deleted_by: null,
  created_at: ts,
  updated_at: ts,
  deleted_at: null,
};
const baseLocation = {
  location_id: 7,
  name: 'Jakarta Warehouse',
  code: 'WH-JKT',
  type: 'warehouse',
  address: 'Jl. Sudirman 1',
  city: 'Jakarta Selatan',
  state: 'DKI Jakarta',
  zip: '12190',
  subdistrict: 'Senayan',
  country: 'Indonesia',
  pic_name: 'Budi',
  phone: '+62 21 555 0101',
  latitude: '-6.2146',
  longitude: '106.8451',
  is_default: true,
  is_pickup: false,
  status: 'active',
  origin_code: null,
  created_by: 'system',
  created_at: ts,
};
const embeddedLocation = { ...baseLocation, is_return: false, updated_by: 'system', deleted_by: null, deleted_at: null, updated_at: ts };
const detailLine = {
  inbound_detail_id: 9001,
  inbound_id: 501,
  product_id: 1042,
  expected_quantity: 10,
  notes: '',
  created_by: 'system',
  updated_by: null,
  deleted_by: null,
  received_by: null,
  deleted_at: null,
  created_at: ts,
  updated_at: ts,
  product,
};
const listEntry = {
  inbound_id: 501,
  code: 'INB-0501',
  inbound_date: '2026-01-20T03:00:00.000000Z',
  source_type: 'purchase',
  source_id: 88,
  source_code: 'PO-88',
  location_id: 7,
  status: 'pending',
  received_at: null,
  cancelled_at: null,
  notes: '',
  created_by: 'system',
  updated_by: 'system',
  created_at: ts,
  updated_at: ts,
  details: [detailLine],
  details_count: 1,
  location: embeddedLocation,
  inbound_details: [detailLine],
};

describe('inbound list resources', () => {
  it('accepts the product with two-decimal strings', () => {
    expect(inboundProduct.safeParse(product).success).toBe(true);
  });

  it.each([
    ['a price with one decimal', { cost_price: '25000.0' }],
    ['a price as a number', { published_price: 35000 }],
    ['a weight with three decimals', { weight: '0.350' }],
    ['an extra field', { stock: 4 }],
  ])('refuses a product with %s', (_case, change) => {
    expect(inboundProduct.safeParse({ ...product, ...change }).success).toBe(false);
  });

  it('tells the inbound embedding of a location from the tenant form', () => {
    expect(inboundLocation.safeParse(embeddedLocation).success).toBe(true);
    expect(tenantLocation.safeParse(baseLocation).success).toBe(true);
    expect(tenantLocation.safeParse(embeddedLocation).success).toBe(false);
    expect(inboundLocation.safeParse(baseLocation).success).toBe(false);
    expect(tenantLocation.safeParse({ ...baseLocation, latitude: -6.2146 }).success).toBe(false);
  });

  it('accepts a list entry whose inbound_date has microseconds, and only that', () => {
    expect(inboundListEntry.safeParse(listEntry).success).toBe(true);
    expect(inboundListEntry.safeParse({ ...listEntry, inbound_date: ts }).success).toBe(false);
    expect(inboundListEntry.safeParse({ ...listEntry, status: 'open' }).success).toBe(false);
  });

  it('wraps the list in envelope B with the range pagination', () => {
    const body = {
      status: 200,
      message: 'Ok',
      data: { inbounds: [listEntry], pagination: { current_page: 1, per_page: 20, total: 1, last_page: 1, from: 1, to: 1 } },
      errors: null,
      request_id: '3f2c1e9a-7b4d-4c3e-9a1b-2d3e4f5a6b7c',
    };
    expect(inboundListResponse.safeParse(body).success).toBe(true);
    expect(inboundListResponse.safeParse({ ...body, status: 'ok' }).success).toBe(false);
    const simple = { current_page: 1, per_page: 20, total: 1, last_page: 1 };
    expect(inboundListResponse.safeParse({ ...body, data: { ...body.data, pagination: simple } }).success).toBe(false);
  });
});

const item = {
  id: '9001',
  product_id: 1042,
  sku: 'MUG-BLUE',
  name: 'Blue Mug',
  quantity: 10,
  unit: 'pcs',
  unit_price: 25000,
  expected_quantity: 10,
  good_received_quantity: 0,
  damaged_received_quantity: 0,
  grid_id: 'RCV-01',
  received_at: null,
  received_by: null,
};
const detail = {
  id: '501',
  reference_number: 'INB-0501',
  status: 'pending',
  location: { id: '7', code: 'WH-JKT', name: 'Jakarta Warehouse', address: 'Jl. Sudirman 1' },
  items: [item],
  notes: '',
  created_at: ts,
  updated_at: ts,
};
const envelope = (data: unknown) => ({ status: 'ok', data, errors: null, request_id: 'req-1' });

describe('inbound detail and receive', () => {
  it('accepts the detail shape, pending lines with null receipt fields', () => {
    expect(inboundDetail.safeParse(detail).success).toBe(true);
    const received = { ...item, good_received_quantity: 10, received_at: ts, received_by: 'Budi' };
    expect(inboundDetailResponse.safeParse(envelope({ inbound: { ...detail, status: 'received', items: [received] } })).success).toBe(true);
  });

  it('carries ids as digit strings in the detail', () => {
    expect(inboundDetail.safeParse({ ...detail, id: 501 }).success).toBe(false);
    expect(inboundDetail.safeParse({ ...detail, location: { ...detail.location, id: 7 } }).success).toBe(false);
  });

  it('refuses a detail in the list shape', () => {
    expect(inboundDetail.safeParse(listEntry).success).toBe(false);
  });

  it('accepts the receive response and refuses one without pending_quantity', () => {
    const line = { id: '9001', product_id: 1042, sku: 'MUG-BLUE', received_quantity: 10, pending_quantity: 0, grid_id: 'RCV-01', received_at: ts, received_by: 'Budi' };
    const inbound = { id: '501', status: 'received', updated_at: ts, items: [line] };
    expect(receiveInboundResponse.safeParse(envelope({ inbound })).success).toBe(true);
    const { pending_quantity: _p, ...short } = line;
    expect(receiveInboundResponse.safeParse(envelope({ inbound: { ...inbound, items: [short] } })).success).toBe(false);
  });
});

describe('receiveInboundBody: lots', () => {
  it('takes the lot of a received line and the dates of a new lot', () => {
    const items = [{ item_id: '9001', received_quantity: 24, lot_number: 'SB-261028-A', expiry_date: '2027-04-28', production_date: '2026-10-28' }];
    expect(parseWith(receiveInboundBody, { items })).toEqual({
      ok: true,
      value: { items: [{ item_id: '9001', received_quantity: '24', condition: 'good', lot_number: 'SB-261028-A', expiry_date: '2027-04-28', production_date: '2026-10-28' }] },
    });
  });

  it('keeps one line per item, so one lot per item and receipt', () => {
    const lots = [
      { item_id: '9001', received_quantity: 12, lot_number: 'A' },
      { item_id: '09001', received_quantity: 12, lot_number: 'B' },
    ];
    expect(refusal(receiveInboundBody, { items: lots }).details).toEqual({ field: 'items[1].item_id', issue: 'is the same item as items[0].item_id' });
  });

  it.each([
    [{ lot_number: 'SB_261028 A' }, 'items[0].lot_number', LOT_NUMBER_ISSUE],
    [{ lot_number: 'x'.repeat(65) }, 'items[0].lot_number', LOT_NUMBER_ISSUE],
    [{ expiry_date: '2027-4-28' }, 'items[0].expiry_date', 'must be a real calendar date in YYYY-MM-DD form'],
    [{ expiry_date: '0999-04-28' }, 'items[0].expiry_date', DATE_RANGE_ISSUE],
    [{ production_date: '2026-13-01' }, 'items[0].production_date', 'must be a real calendar date in YYYY-MM-DD form'],
    [{ expiry_date: '2027-04-28', production_date: '2027-04-29' }, 'items[0].production_date', 'must not be after the expiry date, 2027-04-28'],
  ])('refuses %j on the line field', (change, field, issue) => {
    expect(refusal(receiveInboundBody, { items: [{ item_id: '9001', received_quantity: 1, lot_number: 'A', ...change }] }).details).toEqual({ field, issue });
  });
});
