import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  approveTransferResponse,
  createTransferBody,
  createTransferResponse,
  receiveTransferResponse,
  rejectTransferBody,
  rejectTransferResponse,
  shipTransferResponse,
  transferActionBody,
  transferCreated,
  transferCreatedExample,
  transferDetail,
  transferDetailExample,
  transferDetailResponse,
  transferListEntry,
  transferListQuery,
  transferListResponse,
} from './transfer-schemas.js';
import { LOT_NUMBER_ISSUE } from '@pits/domain';
import { lotAllocationsExample } from './lot-schemas.js';
import { parseWith } from './validation-issues.js';

function refusal(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const validBody = {
  from_location_id: 3,
  to_location_id: 4,
  transfer_date: '2026-02-01',
  expected_arrival_date: '2026-02-03',
  reference_number: 'PO-7781',
  notes: 'Weekly restock',
  items: [
    { product_id: '1042', quantity: 12, notes: 'fragile' },
    { product_id: 1043, quantity: '2.5' },
  ],
};

describe('createTransferBody', () => {
  it('accepts the spec body', () => {
    expect(parseWith(createTransferBody, validBody)).toEqual({
      ok: true,
      value: {
        ...validBody,
        items: [
          { product_id: 1042, quantity: '12', notes: 'fragile' },
          { product_id: 1043, quantity: '2.5' },
        ],
      },
    });
  });

  it('needs only the locations, the date and the items', () => {
    const { expected_arrival_date, reference_number, notes, ...minimal } = validBody;
    expect(parseWith(createTransferBody, minimal).ok).toBe(true);
  });

  it('accepts arrival on the transfer date', () => {
    expect(parseWith(createTransferBody, { ...validBody, expected_arrival_date: '2026-02-01' }).ok).toBe(true);
  });

  it.each([
    [{ to_location_id: 3 }, 'to_location_id', 'must differ from from_location_id'],
    [{ expected_arrival_date: '2026-01-31' }, 'expected_arrival_date', 'must not be before transfer_date'],
    [{ transfer_date: '2025-09-31' }, 'transfer_date', 'must be a real calendar date in YYYY-MM-DD form'],
    [{ transfer_date: undefined }, 'transfer_date', 'is required'],
    [{ expected_arrival_date: '03/02/2026' }, 'expected_arrival_date', 'must be a real calendar date in YYYY-MM-DD form'],
    [{ from_location_id: 0 }, 'from_location_id', 'must be a positive integer'],
    [{ reference_number: 'r'.repeat(101) }, 'reference_number', 'must be at most 100 characters'],
    [{ notes: 'n'.repeat(1001) }, 'notes', 'must be at most 1000 characters'],
    [{ items: [] }, 'items', 'must have at least 1 item'],
    [{ items: [{ product_id: '1042', quantity: 0 }] }, 'items[0].quantity', 'must be greater than 0'],
    [{ items: [{ product_id: '1042' }] }, 'items[0].quantity', 'is required'],
  ])('refuses %j', (change, field, issue) => {
    expect(refusal(createTransferBody, { ...validBody, ...change }).details).toEqual({ field, issue });
  });

  it('refuses the same product twice on the later line', () => {
    const items = [
      { product_id: 1042, quantity: 1 },
      { product_id: '1042', quantity: 2 },
    ];
    expect(refusal(createTransferBody, { ...validBody, items }).details).toEqual({
      field: 'items[1].product_id',
      issue: 'is the same product as items[0].product_id',
    });
  });

  it('answers more than 500 lines with PAYLOAD_TOO_LARGE', () => {
    const items = Array.from({ length: 501 }, (_, i) => ({ product_id: i + 1, quantity: 1 }));
    expect(refusal(createTransferBody, { ...validBody, items }).kind).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('dates in years 1900 to 9999', () => {
  const range = 'must be a date from 1900-01-01 to 9999-12-31';
  it.each([
    ['0000-01-01', range],
    ['1899-12-31', range],
    ['10000-01-01', range],
  ])('refuses transfer_date, expected_arrival_date and the list filters at %s', (date, issue) => {
    expect(refusal(createTransferBody, { ...validBody, transfer_date: date, expected_arrival_date: undefined }).details).toEqual({ field: 'transfer_date', issue });
    expect(refusal(createTransferBody, { ...validBody, transfer_date: '1900-01-01', expected_arrival_date: date }).details).toEqual({ field: 'expected_arrival_date', issue });
    expect(refusal(transferListQuery, { transfer_date_from: date }).details).toEqual({ field: 'transfer_date_from', issue });
    expect(refusal(transferListQuery, { transfer_date_to: date }).details).toEqual({ field: 'transfer_date_to', issue });
  });

  it('accepts 1900-01-01 and 9999-12-31', () => {
    expect(parseWith(createTransferBody, { ...validBody, transfer_date: '1900-01-01', expected_arrival_date: '9999-12-31' }).ok).toBe(true);
    expect(parseWith(transferListQuery, { transfer_date_from: '1900-01-01', transfer_date_to: '9999-12-31' }).ok).toBe(true);
  });

  it('refuses NUL and unpaired surrogates in every text field', () => {
    for (const field of ['reference_number', 'notes'] as const) {
      expect(refusal(createTransferBody, { ...validBody, [field]: 'PO\u0000' }).details).toEqual({ field, issue: 'must not contain the NUL character' });
      expect(refusal(createTransferBody, { ...validBody, [field]: '\udc00' }).details).toEqual({ field, issue: 'must not contain unpaired surrogates (invalid Unicode)' });
    }
    const line = { ...validBody, items: [{ ...validBody.items[0], notes: '\ud800' }] };
    expect(refusal(createTransferBody, line).details.field).toBe('items[0].notes');
    expect(refusal(rejectTransferBody, { reason: 'no\u0000' }).details).toEqual({ field: 'reason', issue: 'must not contain the NUL character' });
  });
});

describe('transferListQuery', () => {
  it('takes all seven parameters from query text', () => {
    const query = {
      page: '2',
      per_page: '25',
      status: 'in_transit',
      from_location_id: '3',
      to_location_id: '4',
      transfer_date_from: '2026-01-01',
      transfer_date_to: '2026-01-31',
    };
    expect(parseWith(transferListQuery, query)).toEqual({
      ok: true,
      value: { ...query, page: 2, per_page: 25, from_location_id: 3, to_location_id: 4 },
    });
    expect(parseWith(transferListQuery, {})).toEqual({ ok: true, value: { page: 1, per_page: 10 } });
  });

  it.each([
    [{ status: 'shipped' }, 'status', 'must be one of: pending, approved, rejected, in_transit, completed'],
    [{ per_page: '200' }, 'per_page', 'must be at most 100'],
    [{ to_location_id: '-4' }, 'to_location_id', 'must be at least 1'],
    [{ transfer_date_from: '2026-02-30' }, 'transfer_date_from', 'must be a real calendar date in YYYY-MM-DD form'],
    [
      { transfer_date_from: '2026-02-01', transfer_date_to: '2026-01-31' },
      'transfer_date_to',
      'must not be before transfer_date_from',
    ],
  ])('refuses %j', (query, field, issue) => {
    expect(refusal(transferListQuery, query).details).toEqual({ field, issue });
  });

  it('accepts a one-day range', () => {
    expect(parseWith(transferListQuery, { transfer_date_from: '2026-01-31', transfer_date_to: '2026-01-31' }).ok).toBe(true);
  });
});

describe('action bodies', () => {
  it('reject needs a reason; approve, ship and receive take {} or nothing', () => {
    expect(refusal(rejectTransferBody, { reason: ' ' }).details).toEqual({ field: 'reason', issue: 'must not be empty' });
    expect(parseWith(rejectTransferBody, { reason: 'Wrong route' }).ok).toBe(true);
    expect(parseWith(transferActionBody, undefined)).toEqual({ ok: true, value: {} });
    expect(parseWith(transferActionBody, { anything: 1 })).toEqual({ ok: true, value: {} });
  });
});

// ---------------------------------------------------------------------------------------------
// Responses

const actor = { id: 7, name: 'Acme Integrations', email: 'ops@acme.test' };
const location = (id: number) => ({
  id,
  code: `WH-${id}`,
  name: `Warehouse ${id}`,
  address: 'Jl. Sudirman 1',
  contact_person: 'Budi',
  phone: '+62 21 555 0101',
});
const detail = {
  id: 'TRF-20260201-000003',
  transfer_number: 'TRF-20260201-000003',
  from_location: location(3),
  to_location: location(4),
  transfer_date: '2026-02-01',
  expected_arrival_date: '2026-02-03',
  actual_arrival_date: null,
  reference_number: 'PO-7781',
  status: 'pending',
  notes: '',
  total_items: 1,
  total_quantity: 12,
  total_value: 300000,
  items: [
    {
      id: 1,
      product_id: '1042',
      product_name: 'Blue Mug',
      sku: 'MUG-BLUE',
      quantity: 12,
      available_stock: 40,
      unit_price: 25000,
      total_value: 300000,
      notes: '',
      allocations: [],
    },
  ],
  created_by: actor,
  created_at: '2026-02-01T01:00:00.000Z',
  updated_at: '2026-02-01T01:00:00.000Z',
  approved_at: null,
  approved_by: null,
  rejected_at: null,
  rejected_by: null,
  shipped_at: null,
  shipped_by: null,
  received_at: null,
  received_by: null,
  rejection_reason: null,
};
const { items: _items, total_value: _totalValue, ...head } = detail;
const listEntry = {
  ...head,
  from_location: { id: 3, code: 'WH-3', name: 'Warehouse 3' },
  to_location: { id: 4, code: 'WH-4', name: 'Warehouse 4' },
};
const envelope = (data: unknown) => ({ status: 'ok', data, errors: null, request_id: 'req-1' });

describe('transfer resources', () => {
  it('accepts the full and the list forms', () => {
    expect(transferDetail.safeParse(detail).success).toBe(true);
    expect(transferListEntry.safeParse(listEntry).success).toBe(true);
  });

  it('accepts a completed transfer with every actor set', () => {
    const at = '2026-02-03T09:00:00.000Z';
    const completed = {
      ...detail,
      status: 'completed',
      actual_arrival_date: '2026-02-03',
      ...{ approved_at: at, approved_by: actor, shipped_at: at, shipped_by: actor, received_at: at, received_by: actor },
    };
    expect(transferDetail.safeParse(completed).success).toBe(true);
  });

  it.each([
    ['items', { items: detail.items }],
    ['total_value', { total_value: 1 }],
    ['a location with address', { from_location: location(3) }],
  ])('refuses a list entry with %s', (_case, change) => {
    expect(transferListEntry.safeParse({ ...listEntry, ...change }).success).toBe(false);
  });

  it('refuses a full form whose locations lack contact_person or phone', () => {
    const { contact_person: _c, ...noContact } = location(3);
    expect(transferDetail.safeParse({ ...detail, from_location: noContact }).success).toBe(false);
  });

  it('keeps expected_arrival_date nullable and reference_number a string', () => {
    expect(transferDetail.safeParse({ ...detail, expected_arrival_date: null }).success).toBe(true);
    expect(transferDetail.safeParse({ ...detail, reference_number: null }).success).toBe(false);
    expect(transferDetail.safeParse({ ...detail, status: 'shipped' }).success).toBe(false);
  });
});

describe('transfer responses', () => {
  it('wraps create, detail and list in envelope A; create\'s locations carry no contact_person or phone', () => {
    const plain = (id: number) => ({ id, code: `WH-${id}`, name: `Warehouse ${id}`, address: location(id).address });
    const created = { ...detail, from_location: plain(3), to_location: plain(4) };
    expect(createTransferResponse.safeParse(envelope({ transfer: created })).success).toBe(true);
    expect(createTransferResponse.safeParse(envelope({ transfer: detail })).success).toBe(false);
    expect(transferDetailResponse.safeParse(envelope({ transfer: created })).success).toBe(false);
    expect(transferDetailResponse.safeParse(envelope({ transfer: detail })).success).toBe(true);
    const pagination = { current_page: 1, per_page: 10, total: 1, last_page: 1 };
    expect(transferListResponse.safeParse(envelope({ transfers: [listEntry], pagination })).success).toBe(true);
    expect(transferListResponse.safeParse(envelope({ transfers: [detail], pagination })).success).toBe(false);
  });

  const at = '2026-02-02T10:00:00.000Z';
  const ids = { id: detail.id, transfer_number: detail.transfer_number };

  it('approve returns the short approved form', () => {
    const transfer = { ...ids, status: 'approved', approved_at: at, approved_by: actor };
    expect(approveTransferResponse.safeParse(envelope({ transfer })).success).toBe(true);
    expect(approveTransferResponse.safeParse(envelope({ transfer: { ...transfer, status: 'pending' } })).success).toBe(false);
    expect(approveTransferResponse.safeParse(envelope({ transfer: detail })).success).toBe(false);
  });

  it('reject returns the short rejected form with the reason', () => {
    const transfer = { ...ids, status: 'rejected', rejected_at: at, rejected_by: actor, rejection_reason: 'Wrong route' };
    expect(rejectTransferResponse.safeParse(envelope({ transfer })).success).toBe(true);
    const { rejection_reason: _r, ...withoutReason } = transfer;
    expect(rejectTransferResponse.safeParse(envelope({ transfer: withoutReason })).success).toBe(false);
  });

  it('ship and receive return their short forms', () => {
    const shipped = { ...ids, status: 'in_transit', shipped_at: at, shipped_by: actor };
    const received = { ...ids, status: 'completed', received_at: at, received_by: actor };
    expect(shipTransferResponse.safeParse(envelope({ transfer: shipped })).success).toBe(true);
    expect(receiveTransferResponse.safeParse(envelope({ transfer: received })).success).toBe(true);
    expect(receiveTransferResponse.safeParse(envelope({ transfer: shipped })).success).toBe(false);
  });
});

describe('transfers and lots', () => {
  it('pins a create line to a lot when it names one; refuses a lot number the rule refuses', () => {
    const items = [{ product_id: '1042', quantity: 12, lot_number: 'MUG/2026.A' }, { product_id: 1043, quantity: '2.5' }];
    const parsed = parseWith(createTransferBody, { ...validBody, items });
    expect(parsed.ok && parsed.value.items.map((i) => i.lot_number)).toEqual(['MUG/2026.A', undefined]);
    expect(refusal(createTransferBody, { ...validBody, items: [{ product_id: '1042', quantity: 1, lot_number: 'mug 2026' }] }).details).toEqual({ field: 'items[0].lot_number', issue: LOT_NUMBER_ISSUE });
  });

  it('keeps no product twice on a transfer, lots or not', () => {
    const twice = [{ product_id: '1042', quantity: 1, lot_number: 'A' }, { product_id: '1042', quantity: 1, lot_number: 'B' }];
    expect(refusal(createTransferBody, { ...validBody, items: twice }).details).toEqual({ field: 'items[1].product_id', issue: 'is the same product as items[0].product_id' });
  });

  it('shows the lots each line moves, [] for a product without lots', () => {
    const line = detail.items[0]!;
    expect(transferDetail.safeParse({ ...detail, items: [{ ...line, allocations: lotAllocationsExample }] }).success).toBe(true);
    expect(transferDetail.safeParse({ ...detail, items: [{ ...line, allocations: undefined }] }).success).toBe(false);
    expect(transferDetail.safeParse({ ...detail, items: [{ ...line, allocations: [{ lot_number: 'A', expiry_date: '2027-02-29', quantity: 1 }] }] }).success).toBe(false);
    expect(transferDetail.parse(transferDetailExample)).toEqual(transferDetailExample);
    expect(transferCreated.parse(transferCreatedExample)).toEqual(transferCreatedExample);
  });
});
