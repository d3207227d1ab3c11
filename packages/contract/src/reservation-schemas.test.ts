import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  consumeReservationBody,
  createReservationBody,
  extendReservationBody,
  releaseReservationBody,
  reservation,
  reservationConsumedExample,
  reservationExample,
  reservationListQuery,
  reservationListResponse,
  reservationLotItemExample,
  reservationResponse,
} from './reservation-schemas.js';
import { LOT_NUMBER_ISSUE } from '@pits/domain';
import { lotAllocationsExample } from './lot-schemas.js';
import { parseWith } from './validation-issues.js';

function refusal(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const validBody = {
  location_id: 1,
  reference: 'ORD-1001',
  expires_in: 1800,
  items: [
    { product_id: '1042', quantity: 2 },
    { sku: 'TEH-MELATI-100', quantity: '0.5' },
  ],
};

describe('createReservationBody', () => {
  it('accepts lines by product_id or sku, quantities as canonical decimal strings', () => {
    expect(parseWith(createReservationBody, validBody)).toEqual({
      ok: true,
      value: { ...validBody, items: [{ product_id: 1042, quantity: '2' }, { sku: 'TEH-MELATI-100', quantity: '0.5' }] },
    });
  });

  it('holds for 900 seconds when expires_in is left out, and trims the reference', () => {
    const { expires_in, ...rest } = validBody;
    const parsed = parseWith(createReservationBody, { ...rest, reference: ' ORD-1001 ' });
    expect(parsed.ok && parsed.value).toMatchObject({ expires_in: 900, reference: 'ORD-1001' });
  });

  it('accepts the bounds of expires_in: 60 and 604800 seconds', () => {
    for (const expiresIn of [60, 604_800]) expect(parseWith(createReservationBody, { ...validBody, expires_in: expiresIn }).ok).toBe(true);
  });

  it.each([
    [{ reference: undefined }, 'reference', 'is required'],
    [{ reference: '  ' }, 'reference', 'must not be empty'],
    [{ reference: 'r'.repeat(101) }, 'reference', 'must be at most 100 characters'],
    [{ reference: 'ORD\u0000' }, 'reference', 'must not contain the NUL character'],
    [{ expires_in: 59 }, 'expires_in', 'must be at least 60'],
    [{ expires_in: 604_801 }, 'expires_in', 'must be at most 604800'],
    [{ expires_in: 90.5 }, 'expires_in', 'must be an integer number of seconds'],
    [{ expires_in: '900' }, 'expires_in', 'must be an integer number of seconds'],
    [{ location_id: 0 }, 'location_id', 'must be a positive integer'],
    [{ items: [] }, 'items', 'must have at least 1 item'],
    [{ items: [{ product_id: 1, quantity: 0 }] }, 'items[0].quantity', 'must be greater than 0'],
    [{ items: [{ product_id: 1, quantity: 1.00001 }] }, 'items[0].quantity', 'must have at most 4 decimal places'],
    [{ items: [{ quantity: 1 }] }, 'items[0].product_id', 'is required (or give sku instead)'],
    [{ items: [{ product_id: 1, sku: 'A', quantity: 1 }] }, 'items[0].sku', 'must not be given together with product_id'],
  ])('refuses %j', (change, field, issue) => {
    expect(refusal(createReservationBody, { ...validBody, ...change }).details).toEqual({ field, issue });
  });

  it('refuses the same product twice on the later line', () => {
    const items = [
      { product_id: 1042, quantity: 1 },
      { product_id: '1042', quantity: 2 },
    ];
    expect(refusal(createReservationBody, { ...validBody, items }).details).toEqual({ field: 'items[1].product_id', issue: 'is the same product as items[0].product_id' });
  });

  it('answers more than 500 lines with PAYLOAD_TOO_LARGE', () => {
    const items = Array.from({ length: 501 }, (_, i) => ({ product_id: i + 1, quantity: 1 }));
    expect(refusal(createReservationBody, { ...validBody, items }).kind).toBe('PAYLOAD_TOO_LARGE');
  });
});

describe('reservationListQuery', () => {
  it('takes every filter from query text, and defaults to page 1 of 10', () => {
    const query = { page: '2', per_page: '25', status: 'expired', location_id: '3', reference: 'ORD-1001', product_id: '1042' };
    expect(parseWith(reservationListQuery, query)).toEqual({ ok: true, value: { ...query, page: 2, per_page: 25, location_id: 3, product_id: 1042 } });
    expect(parseWith(reservationListQuery, { sku: ' KOPI-250 ' })).toEqual({ ok: true, value: { page: 1, per_page: 10, sku: 'KOPI-250' } });
  });

  it.each([
    [{ status: 'pending' }, 'status', 'must be one of: active, consumed, released, expired'],
    [{ per_page: '101' }, 'per_page', 'must be at most 100'],
    [{ product_id: 'x' }, 'product_id', 'must be an integer'],
    [{ reference: 'r'.repeat(101) }, 'reference', 'must be at most 100 characters'],
  ])('refuses %j', (query, field, issue) => {
    expect(refusal(reservationListQuery, query).details).toEqual({ field, issue });
  });
});

describe('action bodies', () => {
  it('extend needs expires_in within 60 to 604800 seconds', () => {
    expect(parseWith(extendReservationBody, { expires_in: 3600 })).toEqual({ ok: true, value: { expires_in: 3600 } });
    expect(refusal(extendReservationBody, {}).details).toEqual({ field: 'expires_in', issue: 'is required' });
    expect(refusal(extendReservationBody, { expires_in: 59 }).details).toEqual({ field: 'expires_in', issue: 'must be at least 60' });
  });

  it('release takes an optional reason of at most 500 characters, or no body', () => {
    expect(parseWith(releaseReservationBody, undefined)).toEqual({ ok: true, value: {} });
    expect(parseWith(releaseReservationBody, { reason: ' customer cancelled ' })).toEqual({ ok: true, value: { reason: 'customer cancelled' } });
    expect(refusal(releaseReservationBody, { reason: 'r'.repeat(501) }).details).toEqual({ field: 'reason', issue: 'must be at most 500 characters' });
  });

  it('consume takes no items (all of it) or 1 to 500 lines, no product twice', () => {
    expect(parseWith(consumeReservationBody, undefined)).toEqual({ ok: true, value: {} });
    expect(parseWith(consumeReservationBody, { items: [{ sku: 'KOPI-250', quantity: 1 }] })).toEqual({ ok: true, value: { items: [{ sku: 'KOPI-250', quantity: '1' }] } });
    expect(refusal(consumeReservationBody, { items: [] }).details).toEqual({ field: 'items', issue: 'must have at least 1 item' });
    const twice = [
      { sku: 'KOPI-250', quantity: 1 },
      { sku: 'KOPI-250', quantity: 1 },
    ];
    expect(refusal(consumeReservationBody, { items: twice }).details).toEqual({ field: 'items[1].sku', issue: 'is the same product as items[0].sku' });
  });
});

// ---------------------------------------------------------------------------------------------
// Responses

const held = {
  id: 'RSV-20261122-000001',
  reservation_number: 'RSV-20261122-000001',
  reference: 'ORD-1001',
  location_id: 1,
  status: 'active',
  expires_at: '2026-11-22T09:45:12.481Z',
  created_at: '2026-11-22T09:30:12.481Z',
  updated_at: '2026-11-22T09:30:12.481Z',
  consumed_at: null,
  released_at: null,
  release_reason: null,
  created_by: { id: 7, name: 'Acme Integrations', email: 'ops@acme.test' },
  items: [{ product_id: '1042', sku: 'KOPI-250', product_name: 'Kopi 250 g', quantity: 2, consumed_quantity: 0, allocations: [] }],
};

describe('the reservation in responses', () => {
  it('parses the shape of docs/holds.md, in envelope A, alone and in a list', () => {
    const envelope = { status: 'ok', errors: null, request_id: '3f6c1f9e-2b7d-4c11-9a0e-5d8e7f6a1b2c' };
    expect(reservationResponse.parse({ ...envelope, data: { reservation: held } }).data.reservation).toEqual(held);
    const pagination = { current_page: 1, per_page: 10, total: 1, last_page: 1 };
    expect(reservationListResponse.parse({ ...envelope, data: { reservations: [held], pagination } }).data.reservations).toHaveLength(1);
  });

  it('refuses a field the contract does not have, and an id that is not a reservation number', () => {
    expect(reservation.safeParse({ ...held, total_quantity: 2 }).success).toBe(false);
    expect(reservation.safeParse({ ...held, id: 'ADJ-20261122-000001' }).success).toBe(false);
    expect(reservation.safeParse({ ...held, status: 'pending' }).success).toBe(false);
  });

  it('states a line\'s product id as every other answer does: up to the 16 digits of a safe integer', () => {
    const line = held.items[0]!;
    expect(reservation.safeParse({ ...held, items: [{ ...line, product_id: String(Number.MAX_SAFE_INTEGER) }] }).success).toBe(true);
    expect(reservation.safeParse({ ...held, items: [{ ...line, product_id: '1'.repeat(17) }] }).success).toBe(false);
  });
});

describe('holds and lots', () => {
  it('pins a create line to a lot when it names one', () => {
    const items = [{ sku: 'SAMBAL-200', quantity: 3, lot_number: 'SB-261001-C' }, { product_id: 1042, quantity: 1 }];
    const parsed = parseWith(createReservationBody, { ...validBody, items });
    expect(parsed.ok && parsed.value.items.map((i) => i.lot_number)).toEqual(['SB-261001-C', undefined]);
  });

  it.each([
    [{ lot_number: 'SB 1' }, LOT_NUMBER_ISSUE],
    [{ lot_number: '' }, LOT_NUMBER_ISSUE],
    [{ lot_number: 12 }, LOT_NUMBER_ISSUE],
  ])('refuses the create line lot %j on its lot_number', (change, issue) => {
    expect(refusal(createReservationBody, { ...validBody, items: [{ sku: 'SAMBAL-200', quantity: 3, ...change }] }).details).toEqual({ field: 'items[0].lot_number', issue });
  });

  it('keeps one line per product on a hold, lots or not, since consume names products', () => {
    const twice = [{ sku: 'SAMBAL-200', quantity: 1, lot_number: 'A' }, { sku: 'SAMBAL-200', quantity: 1, lot_number: 'B' }];
    expect(refusal(createReservationBody, { ...validBody, items: twice }).details).toEqual({ field: 'items[1].sku', issue: 'is the same product as items[0].sku' });
  });

  it('consume lines name products only: a lot number there is ignored like any unknown key', () => {
    expect(parseWith(consumeReservationBody, { items: [{ sku: 'SAMBAL-200', quantity: 1, lot_number: 'A' }] })).toEqual({ ok: true, value: { items: [{ sku: 'SAMBAL-200', quantity: '1' }] } });
  });

  it('shows the lots each line took, [] for a product without lots', () => {
    const line = held.items[0]!;
    expect(reservation.safeParse({ ...held, items: [line, reservationLotItemExample] }).success).toBe(true);
    expect(reservation.safeParse({ ...held, items: [{ ...line, allocations: undefined }] }).success).toBe(false);
    expect(reservation.safeParse({ ...held, items: [{ ...line, allocations: [{ lot_number: 'SB 1', expiry_date: null, quantity: 1 }] }] }).success).toBe(false);
    expect(reservation.safeParse({ ...held, items: [{ ...line, allocations: [{ lot_number: 'SB-1', expiry_date: null, quantity: 1, sellable: true }] }] }).success).toBe(false);
    expect(reservationLotItemExample.allocations).toBe(lotAllocationsExample);
    for (const example of [reservationExample, reservationConsumedExample]) expect(reservation.parse(example)).toEqual(example);
  });
});
