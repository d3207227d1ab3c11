import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  adjustmentActionResponse,
  adjustmentCreated,
  adjustmentDetail,
  adjustmentDetailResponse,
  adjustmentListEntry,
  adjustmentListQuery,
  adjustmentListResponse,
  approveAdjustmentBody,
  createAdjustmentBody,
  createAdjustmentResponse,
  rejectAdjustmentBody,
} from './adjustment-schemas.js';
import { DATE_RANGE_ISSUE, LOT_NUMBER_ISSUE } from '@pits/domain';
import { parseWith } from './validation-issues.js';

function refusal(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const validBody = {
  location_id: 3,
  type: 'increase',
  stock_source: 'good',
  reason: 'Stock count correction',
  items: [
    { product_id: '1042', quantity: 10, unit_cost: 25000, notes: 'Found in back room' },
    { product_id: 1043, quantity: '0.5', unit_cost: '19.9900' },
  ],
};

describe('createAdjustmentBody: product_id or sku', () => {
  const line = { quantity: 1, unit_cost: 1 };
  it('accepts a line named by sku (trimmed) and keeps it as given', () => {
    const parsed = parseWith(createAdjustmentBody, { ...validBody, items: [{ ...line, sku: ' KOPI-250 ' }, { ...line, product_id: 7 }] });
    expect(parsed.ok && parsed.value.items.map((i) => [i.product_id, i.sku])).toEqual([[undefined, 'KOPI-250'], [7, undefined]]);
  });
  it.each([
    [{ ...line, product_id: 7, sku: 'KOPI-250' }, 'items[1].sku', 'must not be given together with product_id'],
    [{ ...line }, 'items[1].product_id', 'is required (or give sku instead)'],
    [{ ...line, sku: 'A' }, 'items[1].sku', 'is the same product as items[0].sku'],
    [{ ...line, sku: 'x'.repeat(101) }, 'items[1].sku', 'must be at most 100 characters'],
  ])('refuses %j on the line', (second, field, issue) => {
    expect(refusal(createAdjustmentBody, { ...validBody, items: [{ ...line, sku: 'A' }, second] }).details).toEqual({ field, issue });
  });
});

describe('createAdjustmentBody', () => {
  it('accepts the spec body and gives ids as numbers and decimals as exact strings', () => {
    expect(parseWith(createAdjustmentBody, validBody)).toEqual({
      ok: true,
      value: {
        location_id: 3,
        type: 'increase',
        stock_source: 'good',
        reason: 'Stock count correction',
        items: [
          { product_id: 1042, quantity: '10', unit_cost: '25000', notes: 'Found in back room' },
          { product_id: 1043, quantity: '0.5', unit_cost: '19.99' },
        ],
      },
    });
  });

  it('ignores fields it does not know', () => {
    const parsed = parseWith(createAdjustmentBody, { ...validBody, priority: 'high' });
    expect(parsed.ok && 'priority' in parsed.value).toBe(false);
  });

  it.each([
    ['location_id', { location_id: undefined }, 'is required'],
    ['location_id', { location_id: '3' }, 'must be a positive integer'],
    ['type', { type: 'up' }, 'must be one of: increase, decrease'],
    ['stock_source', { stock_source: 'lost' }, 'must be one of: good, damaged'],
    ['reason', { reason: '   ' }, 'must not be empty'],
    ['reason', { reason: 'x'.repeat(501) }, 'must be at most 500 characters'],
    ['items', { items: [] }, 'must have at least 1 item'],
    ['items', { items: 'all' }, 'must be an array'],
  ])('refuses a bad %s', (field, change, issue) => {
    expect(refusal(createAdjustmentBody, { ...validBody, ...change }).details).toEqual({ field, issue });
  });

  it('trims the reason', () => {
    const parsed = parseWith(createAdjustmentBody, { ...validBody, reason: '  recount  ' });
    expect(parsed.ok && parsed.value.reason).toBe('recount');
  });

  it.each([
    [{ product_id: 'abc' }, 'items[0].product_id', 'must be a positive integer or a digit string'],
    [{ quantity: 0 }, 'items[0].quantity', 'must be greater than 0'],
    [{ quantity: 1.23456 }, 'items[0].quantity', 'must have at most 4 decimal places'],
    [{ unit_cost: -1 }, 'items[0].unit_cost', 'must be at least 0'],
    [{ unit_cost: undefined }, 'items[0].unit_cost', 'is required'],
    [{ notes: 'n'.repeat(1001) }, 'items[0].notes', 'must be at most 1000 characters'],
  ])('refuses a bad line %j on its path', (change, field, issue) => {
    const body = { ...validBody, items: [{ ...validBody.items[0], ...change }] };
    expect(refusal(createAdjustmentBody, body).details).toEqual({ field, issue });
  });

  it('accepts a line total of exactly 15 significant digits and keeps both factors exact', () => {
    const body = { ...validBody, items: [{ product_id: 1, quantity: 99999999999.9999, unit_cost: 10000 }] };
    expect(parseWith(createAdjustmentBody, body)).toMatchObject({ ok: true, value: { items: [{ quantity: '99999999999.9999', unit_cost: '10000' }] } });
  });

  it('refuses a line whose total_cost would not be exact as a JSON number, on its quantity', () => {
    const body = {
      ...validBody,
      items: [validBody.items[0], { product_id: 7, quantity: '99999999999.9999', unit_cost: '99999999999.9999' }],
    };
    expect(refusal(createAdjustmentBody, body).details).toEqual({
      field: 'items[1].quantity',
      issue: 'quantity x unit_cost = 9999999999999980000000.00000001 has more than 15 significant digits, so it would not be exact as a JSON number',
    });
  });

  it('refuses a total_amount past 15 significant digits on items', () => {
    const line = { quantity: '99999999999.9999', unit_cost: '10000' };
    const body = { ...validBody, items: [{ product_id: 1, ...line }, { product_id: 2, ...line }] };
    expect(refusal(createAdjustmentBody, body).details).toEqual({
      field: 'items',
      issue: 'the lines add up to 1999999999999998, which has more than 15 significant digits, so it would not be exact as a JSON number',
    });
  });

  it('refuses NUL and unpaired surrogates in reason and notes, and strips prototype keys', () => {
    expect(refusal(createAdjustmentBody, { ...validBody, reason: 'count\u0000' }).details).toEqual({ field: 'reason', issue: 'must not contain the NUL character' });
    const notes = { ...validBody, items: [{ ...validBody.items[0], notes: 'back \ud800 room' }] };
    expect(refusal(createAdjustmentBody, notes).details).toEqual({ field: 'items[0].notes', issue: 'must not contain unpaired surrogates (invalid Unicode)' });
    const hostile: unknown = JSON.parse(`{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, ${JSON.stringify(validBody).slice(1)}`);
    const parsed = parseWith(createAdjustmentBody, hostile);
    expect(parsed.ok && Object.keys(parsed.value)).toEqual(['location_id', 'type', 'stock_source', 'reason', 'items']);
    expect(parsed.ok && Object.getPrototypeOf(parsed.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });

  it('refuses the same product twice, on the later line, whatever its form', () => {
    const body = {
      ...validBody,
      items: [
        { product_id: '1042', quantity: 1, unit_cost: 1 },
        { product_id: 7, quantity: 1, unit_cost: 1 },
        { product_id: 1042, quantity: 2, unit_cost: 1 },
      ],
    };
    expect(refusal(createAdjustmentBody, body).details).toEqual({
      field: 'items[2].product_id',
      issue: 'is the same product as items[0].product_id',
    });
  });

  it('lists every bad field at once', () => {
    const error = refusal(createAdjustmentBody, { type: 'up', items: [{ product_id: '1', quantity: -1, unit_cost: 1 }] });
    expect(error.issues?.map((i) => i.field)).toEqual(['location_id', 'type', 'stock_source', 'reason', 'items[0].quantity']);
  });

  it('answers more than 500 lines with PAYLOAD_TOO_LARGE', () => {
    const items = Array.from({ length: 501 }, (_, i) => ({ product_id: String(i + 1), quantity: 1, unit_cost: 1 }));
    expect(refusal(createAdjustmentBody, { ...validBody, items }).kind).toBe('PAYLOAD_TOO_LARGE');
    expect(parseWith(createAdjustmentBody, { ...validBody, items: items.slice(0, 500) }).ok).toBe(true);
  });
});

describe('adjustmentListQuery', () => {
  it('defaults to page 1 of 10 and coerces query text', () => {
    expect(parseWith(adjustmentListQuery, {})).toEqual({ ok: true, value: { page: 1, per_page: 10 } });
    expect(parseWith(adjustmentListQuery, { page: '2', per_page: '100', status: 'pending', location_id: '3', type: 'decrease' })).toEqual({
      ok: true,
      value: { page: 2, per_page: 100, status: 'pending', location_id: 3, type: 'decrease' },
    });
  });

  it.each([
    [{ per_page: '101' }, 'per_page', 'must be at most 100'],
    [{ page: '0' }, 'page', 'must be at least 1'],
    [{ page: '1.5' }, 'page', 'must be an integer'],
    [{ status: 'done' }, 'status', 'must be one of: pending, approved, rejected'],
    [{ location_id: 'main' }, 'location_id', 'must be an integer'],
    [{ type: 'both' }, 'type', 'must be one of: increase, decrease'],
  ])('refuses %j', (query, field, issue) => {
    expect(refusal(adjustmentListQuery, query).details).toEqual({ field, issue });
  });
});

describe('approve and reject bodies', () => {
  it('approve takes {} or nothing, and ignores unknown keys', () => {
    for (const body of [undefined, {}, { note: 'x' }]) expect(parseWith(approveAdjustmentBody, body)).toEqual({ ok: true, value: {} });
  });

  it('reject needs a reason of 1 to 500 characters', () => {
    expect(parseWith(rejectAdjustmentBody, { reason: ' Wrong count ' })).toEqual({ ok: true, value: { reason: 'Wrong count' } });
    expect(refusal(rejectAdjustmentBody, {}).details).toEqual({ field: 'reason', issue: 'is required' });
    expect(refusal(rejectAdjustmentBody, { reason: '' }).details).toEqual({ field: 'reason', issue: 'must not be empty' });
    expect(refusal(rejectAdjustmentBody, { reason: 'r'.repeat(501) }).details.field).toBe('reason');
  });
});

// ---------------------------------------------------------------------------------------------
// Responses

const actor = { id: 7, name: 'Acme Integrations', email: 'ops@acme.test' };
const item = {
  id: 1,
  product_id: '1042',
  product_name: 'Blue Mug',
  sku: 'MUG-BLUE',
  type: 'increase',
  quantity: 10,
  unit_cost: 25000,
  total_cost: 250000,
  notes: '',
  lot_number: null,
  expiry_date: null,
};
const created = {
  id: 'ADJ-20260131-000001',
  adjustment_number: 'ADJ-20260131-000001',
  location: { id: 3, code: 'WH-JKT', name: 'Jakarta Warehouse', address: 'Jl. Sudirman 1' },
  type: 'increase',
  stock_source: 'good',
  reason: 'Stock count correction',
  status: 'pending',
  total_amount: 250000,
  item_count: 1,
  items: [item],
  created_by: actor,
  created_at: '2026-01-31T08:15:30.123Z',
  updated_at: '2026-01-31T08:15:30.123Z',
  approved_at: null,
  approved_by: null,
  rejected_at: null,
  rejected_by: null,
  rejection_reason: null,
};
const detail = { ...created, items: [{ ...item, current_stock: 40 }] };
const listEntry = {
  id: created.id,
  adjustment_number: created.adjustment_number,
  location: { id: 3, code: 'WH-JKT', name: 'Jakarta Warehouse' },
  type: 'increase',
  reason: 'Stock count correction',
  status: 'pending',
  total_amount: 250000,
  item_count: 1,
  created_at: created.created_at,
  updated_at: created.updated_at,
};
const envelope = (data: unknown) => ({ status: 'ok', data, errors: null, request_id: '3f2c1e9a-7b4d-4c3e-9a1b-2d3e4f5a6b7c' });

describe('adjustment resources', () => {
  it('accepts each form as the spec describes it', () => {
    expect(adjustmentCreated.safeParse(created).success).toBe(true);
    expect(adjustmentDetail.safeParse(detail).success).toBe(true);
    expect(adjustmentListEntry.safeParse(listEntry).success).toBe(true);
  });

  it('accepts a decided adjustment', () => {
    const rejected = { ...detail, status: 'rejected', rejected_at: '2026-02-01T00:00:00.000Z', rejected_by: actor, rejection_reason: 'No' };
    expect(adjustmentDetail.safeParse(rejected).success).toBe(true);
  });

  it('shows current_stock in detail items only', () => {
    expect(adjustmentDetail.safeParse(created).success).toBe(false);
    expect(adjustmentCreated.safeParse(detail).success).toBe(false);
  });

  it.each(['items', 'stock_source', 'created_by', 'approved_at'])('refuses a list entry carrying %s', (key) => {
    expect(adjustmentListEntry.safeParse({ ...listEntry, [key]: detail[key as keyof typeof detail] }).success).toBe(false);
  });

  it('refuses a list entry whose location has an address', () => {
    expect(adjustmentListEntry.safeParse({ ...listEntry, location: created.location }).success).toBe(false);
  });

  it.each(['rejection_reason', 'item_count', 'approved_by', 'stock_source'])('refuses a detail without %s', (key) => {
    const copy = Object.fromEntries(Object.entries(detail).filter(([name]) => name !== key));
    expect(adjustmentDetail.safeParse(copy).success).toBe(false);
  });

  it('refuses a detail whose location has no address', () => {
    expect(adjustmentDetail.safeParse({ ...detail, location: listEntry.location }).success).toBe(false);
  });

  it('wants the ADJ-YYYYMMDD-NNNNNN number and a millisecond timestamp', () => {
    expect(adjustmentDetail.safeParse({ ...detail, id: '42' }).success).toBe(false);
    expect(adjustmentDetail.safeParse({ ...detail, created_at: '2026-01-31T08:15:30Z' }).success).toBe(false);
  });
});

describe('adjustment lines and their lots', () => {
  const lotLine = { ...item, product_id: '1043', sku: 'SAMBAL-200', lot_number: 'SB-2611/A', expiry_date: '2027-04-28' };

  it('show the lot of a lot-tracked product, null for any other, in create and detail', () => {
    expect(adjustmentCreated.safeParse({ ...created, items: [item, lotLine] }).success).toBe(true);
    expect(adjustmentDetail.safeParse({ ...detail, items: [{ ...lotLine, current_stock: 12 }] }).success).toBe(true);
    expect(adjustmentCreated.safeParse({ ...created, items: [{ ...lotLine, expiry_date: null }] }).success).toBe(true);
  });

  it.each([
    ['without lot_number', { lot_number: undefined }],
    ['without expiry_date', { expiry_date: undefined }],
    ['with a lot number the rule refuses', { lot_number: 'SB 2611' }],
    ['with an expiry date that is not a day', { expiry_date: '2027-02-29' }],
  ])('refuse a line %s', (_case, change) => {
    expect(adjustmentCreated.safeParse({ ...created, items: [{ ...lotLine, ...change }] }).success).toBe(false);
  });
});

describe('createAdjustmentBody: lots', () => {
  const line = { product_id: 7, quantity: 1, unit_cost: 1 };

  it('takes a lot number and the dates of a new lot on a line, as given', () => {
    const parsed = parseWith(createAdjustmentBody, { ...validBody, items: [{ ...line, lot_number: 'SB-2611/A.1', expiry_date: '2027-04-28', production_date: '2026-10-28' }] });
    expect(parsed.ok && parsed.value.items[0]).toMatchObject({ lot_number: 'SB-2611/A.1', expiry_date: '2027-04-28', production_date: '2026-10-28' });
  });

  it('leaves every lot field optional: the server decides by the product', () => {
    const parsed = parseWith(createAdjustmentBody, { ...validBody, items: [line] });
    expect(parsed.ok && Object.keys(parsed.value.items[0]!)).not.toContain('lot_number');
  });

  it.each([
    [{ lot_number: 'SB 1' }, 'items[0].lot_number', LOT_NUMBER_ISSUE],
    [{ lot_number: '' }, 'items[0].lot_number', LOT_NUMBER_ISSUE],
    [{ lot_number: 7 }, 'items[0].lot_number', LOT_NUMBER_ISSUE],
    [{ lot_number: null }, 'items[0].lot_number', LOT_NUMBER_ISSUE],
    [{ lot_number: 'L'.repeat(65) }, 'items[0].lot_number', LOT_NUMBER_ISSUE],
    [{ lot_number: 'LOT\u0000' }, 'items[0].lot_number', LOT_NUMBER_ISSUE],
    [{ expiry_date: '2026-02-29' }, 'items[0].expiry_date', 'must be a real calendar date in YYYY-MM-DD form'],
    [{ expiry_date: '28-04-2027' }, 'items[0].expiry_date', 'must be a real calendar date in YYYY-MM-DD form'],
    [{ production_date: '1899-12-31' }, 'items[0].production_date', DATE_RANGE_ISSUE],
    [{ expiry_date: '2026-01-31', production_date: '2026-02-01' }, 'items[0].production_date', 'must not be after the expiry date, 2026-01-31'],
  ])('refuses %j on the line field', (change, field, issue) => {
    expect(refusal(createAdjustmentBody, { ...validBody, items: [{ ...line, lot_number: 'B1', ...change }] }).details).toEqual({ field, issue });
  });

  it('keeps one line per product, so one lot per product and adjustment', () => {
    const lots = [{ ...line, lot_number: 'B1' }, { ...line, lot_number: 'B2' }];
    expect(refusal(createAdjustmentBody, { ...validBody, items: lots }).details).toEqual({ field: 'items[1].product_id', issue: 'is the same product as items[0].product_id' });
  });
});

describe('adjustment responses', () => {
  it('wraps each in envelope A', () => {
    expect(createAdjustmentResponse.safeParse(envelope({ adjustment: created })).success).toBe(true);
    expect(adjustmentDetailResponse.safeParse(envelope({ adjustment: detail })).success).toBe(true);
    expect(adjustmentActionResponse.safeParse(envelope(null)).success).toBe(true);
    expect(adjustmentActionResponse.safeParse(envelope({})).success).toBe(false);
  });

  it('lists adjustments with the simple pagination object', () => {
    const pagination = { current_page: 1, per_page: 10, total: 1, last_page: 1 };
    expect(adjustmentListResponse.safeParse(envelope({ adjustments: [listEntry], pagination })).success).toBe(true);
    expect(adjustmentListResponse.safeParse(envelope({ adjustments: [detail], pagination })).success).toBe(false);
    expect(
      adjustmentListResponse.safeParse(envelope({ adjustments: [], pagination: { ...pagination, from: null, to: null } })).success,
    ).toBe(false);
  });
});
