import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { DATE_RANGE_ISSUE, LOT_NUMBER_ISSUE, dec, isSellable, lotDaysLeft, lotFigures, wibDate } from '@pits/domain';
import { EXAMPLE_CREATED_AT } from './examples.js';
import {
  shortDatedLotExample,
  stockCountBody,
  stockLevelEntry,
  stockLevelExample,
  stockLevelsResponse,
  stockLotEntry,
  stockLotExamples,
  stockLotsQuery,
  stockLotsQueryExample,
  stockLotsResponse,
  stockMovementEntry,
  stockMovementExample,
  stockMovementsQuery,
  stockMovementsResponse,
  stockQuery,
} from './stock-schemas.js';
import { parseWith } from './validation-issues.js';

function refusal(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

describe('stockQuery', () => {
  it('reads ids from text and pages by 20 by default', () => {
    expect(parseWith(stockQuery, { location_id: '3', product_id: '1042', sku: ' MUG-BLUE ' })).toEqual({
      ok: true,
      value: { location_id: 3, product_id: [1042], sku: ['MUG-BLUE'], page: 1, per_page: 20 },
    });
    expect(parseWith(stockQuery, { product_id: '1042,1043', sku: 'MUG-BLUE,MUG-RED' })).toMatchObject({
      ok: true,
      value: { product_id: [1042, 1043], sku: ['MUG-BLUE', 'MUG-RED'] },
    });
    const many = Array.from({ length: 101 }, (_, i) => i + 1).join(',');
    expect(refusal(stockQuery, { product_id: many }).details).toEqual({ field: 'product_id', issue: 'must have at most 100 comma-separated values' });
    expect(refusal(stockQuery, { product_id: 'mug' }).details).toEqual({ field: 'product_id', issue: 'must be a positive integer' });
    expect(refusal(stockQuery, { sku: ' ' }).details).toEqual({ field: 'sku', issue: 'must not be empty' });
  });
});

describe('stockMovementsQuery', () => {
  it('takes dates or timestamps as bounds, a limit of 20 by default and a cursor', () => {
    expect(parseWith(stockMovementsQuery, {})).toEqual({ ok: true, value: { limit: 20 } });
    const query = { from: '2026-01-01', to: '2026-01-31T23:59:59+07:00', limit: '100', cursor: 'eyJpZCI6NDJ9' };
    expect(parseWith(stockMovementsQuery, query)).toEqual({ ok: true, value: { ...query, limit: 100 } });
  });

  it.each([
    [{ from: 'yesterday' }, 'from', 'must be a date (YYYY-MM-DD) or an ISO 8601 timestamp'],
    [{ to: '2026-02-30' }, 'to', 'must be a date (YYYY-MM-DD) or an ISO 8601 timestamp'],
    [{ limit: '101' }, 'limit', 'must be at most 100'],
    [{ limit: '0' }, 'limit', 'must be at least 1'],
    [{ cursor: 'c'.repeat(201) }, 'cursor', 'must be at most 200 characters'],
    [{ location_id: '1.5' }, 'location_id', 'must be an integer'],
  ])('refuses %j', (query, field, issue) => {
    expect(refusal(stockMovementsQuery, query).details).toEqual({ field, issue });
  });
});

const level = { location_id: 3, product_id: '1042', sku: 'MUG-BLUE', product_name: 'Blue Mug', good: 40, damaged: 2, reserved: 12, reserved_for_transfers: 4, reserved_for_orders: 8, short_dated: 0, available: 28, version: 3 };
const movement = {
  id: '981',
  location_id: 3,
  product_id: '1042',
  sku: 'MUG-BLUE',
  bucket: 'good',
  quantity_change: -2.5,
  quantity_before: 42.5,
  quantity_after: 40,
  cause_type: 'adjustment',
  cause_id: 'ADJ-20260131-000001',
  document_number: 'ADJ-20260131-000001',
  actor: 'Acme Integrations',
  occurred_at: '2026-01-31T08:15:30.123Z',
  lot_number: null,
};
const envelope = (data: unknown) => ({ status: 'ok', data, errors: null, request_id: 'req-1' });

describe('hostile query values', () => {
  it.each([
    ['0000-01-01', 'must be a date from 1900-01-01 to 9999-12-31'],
    ['1899-12-31', 'must be a date from 1900-01-01 to 9999-12-31'],
    ['1899-12-31T23:59:59Z', 'must be a time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z'],
    ['9999-12-31T23:00:00-05:00', 'must be a time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z'],
    ['10000-01-01', 'must be a date (YYYY-MM-DD) or an ISO 8601 timestamp'],
  ])('refuses the movements bound %s on from and to', (value, issue) => {
    expect(refusal(stockMovementsQuery, { from: value }).details).toEqual({ field: 'from', issue });
    expect(refusal(stockMovementsQuery, { to: value }).details).toEqual({ field: 'to', issue });
  });

  it('accepts the first and last days of the range', () => {
    expect(parseWith(stockMovementsQuery, { from: '1900-01-01', to: '9999-12-31' }).ok).toBe(true);
    expect(parseWith(stockMovementsQuery, { from: '1900-01-01T00:00:00Z', to: '9999-12-31T23:59:59.999Z' }).ok).toBe(true);
  });

  it('refuses NUL and unpaired surrogates in sku and cursor', () => {
    expect(refusal(stockQuery, { sku: 'MUG\u0000' }).details).toEqual({ field: 'sku', issue: 'must not contain the NUL character' });
    expect(refusal(stockMovementsQuery, { cursor: 'abc\ud800' }).details).toEqual({ field: 'cursor', issue: 'must not contain unpaired surrogates (invalid Unicode)' });
  });
});

describe('stock responses', () => {
  it('lists levels with the simple pagination', () => {
    const pagination = { current_page: 1, per_page: 20, total: 1, last_page: 1 };
    expect(stockLevelsResponse.safeParse(envelope({ stock: [level], pagination })).success).toBe(true);
    expect(stockLevelEntry.safeParse({ ...level, available: -1 }).success).toBe(false);
    expect(stockLevelEntry.safeParse({ ...level, product_id: 1042 }).success).toBe(false);
  });

  it('lists movements with the next cursor, null at the end', () => {
    expect(stockMovementsResponse.safeParse(envelope({ movements: [movement], next_cursor: 'eyJpZCI6OTgxfQ' })).success).toBe(true);
    expect(stockMovementsResponse.safeParse(envelope({ movements: [], next_cursor: null })).success).toBe(true);
    expect(stockMovementsResponse.safeParse(envelope({ movements: [] })).success).toBe(false);
  });

  it.each([
    ['an unknown bucket', { bucket: 'lost' }],
    ['an unknown cause', { cause_type: 'theft' }],
    ['a missing document number', { document_number: undefined }],
  ])('refuses a movement with %s', (_case, change) => {
    expect(stockMovementEntry.safeParse({ ...movement, ...change }).success).toBe(false);
  });

  it('accepts an opening balance without a document', () => {
    expect(stockMovementEntry.safeParse({ ...movement, cause_type: 'opening', document_number: null }).success).toBe(true);
  });
});

describe('stock levels and movements with lots', () => {
  it('reports short_dated on every level, 0 for a product without lots', () => {
    expect(stockLevelEntry.safeParse({ ...level, short_dated: 3, available: 25 }).success).toBe(true);
    expect(stockLevelEntry.safeParse({ ...level, short_dated: undefined }).success).toBe(false);
    expect(stockLevelEntry.safeParse({ ...level, short_dated: -1 }).success).toBe(false);
    expect(stockLevelEntry.parse(stockLevelExample)).toEqual(stockLevelExample);
    // available = good - reserved - short_dated, in the example too.
    expect(stockLevelExample.available).toBe(stockLevelExample.good - stockLevelExample.reserved - stockLevelExample.short_dated);
  });

  it('names the lot of a movement, null for a product without lots', () => {
    expect(stockMovementEntry.safeParse({ ...movement, lot_number: 'SB-2611/A' }).success).toBe(true);
    expect(stockMovementEntry.safeParse({ ...movement, lot_number: undefined }).success).toBe(false);
    expect(stockMovementEntry.safeParse({ ...movement, lot_number: 'SB 2611' }).success).toBe(false);
    expect(stockMovementEntry.parse(stockMovementExample)).toEqual(stockMovementExample);
  });
});

describe('stockCountBody: lots', () => {
  const body = { location_id: 1, stock_source: 'good' };

  it('counts one lot per line, with the dates of a new lot', () => {
    const items = [
      { sku: 'SAMBAL-200', counted: 4, expected: null, lot_number: 'SB-2', expiry_date: '2027-04-28', production_date: '2026-10-28' },
      { sku: 'KOPI-250', counted: 8, expected: 8 },
    ];
    const parsed = parseWith(stockCountBody, { ...body, items });
    expect(parsed.ok && parsed.value.items.map((i) => [i.lot_number, i.expiry_date, i.production_date])).toEqual([
      ['SB-2', '2027-04-28', '2026-10-28'],
      [undefined, undefined, undefined],
    ]);
  });

  it.each([
    [[{ sku: 'S', counted: 1, expected: null, lot_number: 'A' }, { sku: 'S', counted: 1, expected: null, lot_number: 'B' }], 'items[1].sku', 'is the same product as items[0].sku'],
    [[{ sku: 'S', counted: 1, expected: null, lot_number: 'A/B C' }], 'items[0].lot_number', LOT_NUMBER_ISSUE],
    [[{ sku: 'S', counted: 1, expected: null, lot_number: 'A', expiry_date: '2025-09-31' }], 'items[0].expiry_date', 'must be a real calendar date in YYYY-MM-DD form'],
    [[{ sku: 'S', counted: 1, expected: null, lot_number: 'A', production_date: '10000-01-01' }], 'items[0].production_date', DATE_RANGE_ISSUE],
    [[{ sku: 'S', counted: 1, expected: null, lot_number: 'A', expiry_date: '2027-01-31', production_date: '2027-02-01' }], 'items[0].production_date', 'must not be after the expiry date, 2027-01-31'],
  ])('refuses %j', (items, field, issue) => {
    expect(refusal(stockCountBody, { ...body, items }).details).toEqual({ field, issue });
  });
});

describe('stockLotsQuery', () => {
  it('filters as stock levels do, by expiry and by sellability, paged by 20 by default', () => {
    expect(parseWith(stockLotsQuery, {})).toEqual({ ok: true, value: { page: 1, per_page: 20 } });
    expect(parseWith(stockLotsQuery, { location_id: '1', product_id: '3,4', sku: 'SAMBAL-200', expiring_before: '2027-01-01', sellable: 'false', page: '2', per_page: '100' })).toEqual({
      ok: true,
      value: { location_id: 1, product_id: [3, 4], sku: ['SAMBAL-200'], expiring_before: '2027-01-01', sellable: false, page: 2, per_page: 100 },
    });
    expect(parseWith(stockLotsQuery, { sellable: 'true' })).toMatchObject({ ok: true, value: { sellable: true } });
    expect(stockLotsQuery.safeParse(stockLotsQueryExample).success).toBe(true);
  });

  it.each([
    [{ sellable: 'yes' }, 'sellable', 'must be true or false'],
    [{ sellable: 'TRUE' }, 'sellable', 'must be true or false'],
    [{ sellable: '' }, 'sellable', 'must be true or false'],
    [{ expiring_before: '2027-02-29' }, 'expiring_before', 'must be a real calendar date in YYYY-MM-DD form'],
    [{ expiring_before: '2027-01-01T00:00:00Z' }, 'expiring_before', 'must be a real calendar date in YYYY-MM-DD form'],
    [{ expiring_before: '1899-12-31' }, 'expiring_before', DATE_RANGE_ISSUE],
    [{ product_id: 'sambal' }, 'product_id', 'must be a positive integer'],
    [{ sku: ' ' }, 'sku', 'must not be empty'],
    [{ location_id: '0' }, 'location_id', 'must be at least 1'],
    [{ per_page: '101' }, 'per_page', 'must be at most 100'],
    [{ page: '0' }, 'page', 'must be at least 1'],
  ])('refuses %j', (query, field, issue) => {
    expect(refusal(stockLotsQuery, query).details).toEqual({ field, issue });
  });
});

describe('stock lots in responses', () => {
  const [lot] = stockLotExamples;

  it('lists lots with the simple pagination', () => {
    const pagination = { current_page: 1, per_page: 20, total: 3, last_page: 1 };
    const lots = [...stockLotExamples, shortDatedLotExample];
    expect(stockLotsResponse.parse(envelope({ lots, pagination }))).toEqual(envelope({ lots, pagination }));
    expect(stockLotsResponse.safeParse(envelope({ lots, pagination: { ...pagination, from: 1, to: 3 } })).success).toBe(false);
    expect(stockLotsResponse.safeParse(envelope({ stock: lots, pagination })).success).toBe(false);
  });

  it('gives a lot without an expiry date (LEGACY) null dates and days_left', () => {
    expect(stockLotEntry.safeParse({ ...lot, lot_number: 'LEGACY', expiry_date: null, production_date: null, days_left: null }).success).toBe(true);
  });

  it.each([
    ['a product id as a number', { product_id: 3 }],
    ['a lot number the rule refuses', { lot_number: 'SB 1' }],
    ['an expiry date that is not a day', { expiry_date: '2027-02-30' }],
    ['fractional days left', { days_left: 1.5 }],
    ['sellable as text', { sellable: 'true' }],
    ['a negative quantity', { available: -1 }],
    ['no days_left', { days_left: undefined }],
    ['an unknown field', { short_dated: 0 }],
  ])('refuses a lot with %s', (_case, change) => {
    expect(stockLotEntry.safeParse({ ...lot, ...change }).success).toBe(false);
  });

  it('states its examples as the domain computes them on the examples day (WIB), outbound_expired 30', () => {
    const today = wibDate(EXAMPLE_CREATED_AT);
    for (const example of [...stockLotExamples, shortDatedLotExample]) {
      const figures = lotFigures({ lotNumber: example.lot_number, expiryDate: example.expiry_date ?? null, good: dec(example.good), reserved: dec(example.reserved) }, today, 30);
      expect(example.days_left, example.lot_number).toBe(lotDaysLeft({ expiryDate: example.expiry_date ?? null }, today));
      expect(example.sellable, example.lot_number).toBe(isSellable({ expiryDate: example.expiry_date ?? null }, today, 30));
      expect(example.available, example.lot_number).toBe(Number(figures.available.toFixed()));
    }
    expect(shortDatedLotExample.sellable).toBe(false);
  });
});
