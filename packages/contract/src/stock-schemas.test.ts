import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { stockLevelEntry, stockLevelsResponse, stockMovementEntry, stockMovementsQuery, stockMovementsResponse, stockQuery } from './stock-schemas.js';
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

const level = { location_id: 3, product_id: '1042', sku: 'MUG-BLUE', product_name: 'Blue Mug', good: 40, damaged: 2, reserved: 12, reserved_for_transfers: 4, reserved_for_orders: 8, available: 28, version: 3 };
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
