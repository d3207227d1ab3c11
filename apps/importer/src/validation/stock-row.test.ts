import { describe, expect, it } from 'vitest';
import { GOOD_ISSUE, StockRowChecker } from './stock-row.js';

const row = (fields: Partial<Record<'location_code' | 'sku' | 'lot_number' | 'expiry_date' | 'production_date' | 'good', string>>) => ({
  location_code: 'WH-JKT',
  sku: 'SKU-1',
  lot_number: '',
  expiry_date: '',
  production_date: '',
  good: '1',
  ...fields,
});

describe('StockRowChecker', () => {
  it('trims codes, SKUs and dates, keeps the lot number exactly, and gives good units as an exact decimal', () => {
    expect(new StockRowChecker().check(2, row({ location_code: ' WH-JKT ', sku: ' MADU ', lot_number: 'md-2611/A.1', expiry_date: ' 2027-06-30', production_date: '2026-06-30 ', good: ' 012.50 ' }))).toEqual({
      ok: true,
      value: { location_code: 'WH-JKT', sku: 'MADU', lot_number: 'md-2611/A.1', expiry_date: '2027-06-30', production_date: '2026-06-30', good: '12.5' },
    });
    // A file without the lot columns: every row is a product without lots.
    expect(new StockRowChecker().check(2, { location_code: 'WH-JKT', sku: 'SKU-1', good: '3' })).toEqual({
      ok: true,
      value: { location_code: 'WH-JKT', sku: 'SKU-1', lot_number: null, expiry_date: null, production_date: null, good: '3' },
    });
  });

  it.each([
    [row({ location_code: '' }), 'location_code', 'is required'],
    [row({ sku: '  ' }), 'sku', 'is required'],
    [row({ sku: 'SKU\u0000' }), 'sku', 'must not contain the NUL character'],
    [row({ location_code: 'x'.repeat(51) }), 'location_code', 'must be at most 50 characters'],
    [row({ lot_number: ' L1' }), 'lot_number', 'must be 1 to 64 characters of letters, digits, ".", "_", "/" and "-"'],
    [row({ lot_number: 'L'.repeat(65) }), 'lot_number', 'must be 1 to 64 characters of letters, digits, ".", "_", "/" and "-"'],
    [row({ lot_number: 'L1', expiry_date: '2027-02-30' }), 'expiry_date', 'must be a real calendar date in YYYY-MM-DD form'],
    [row({ lot_number: 'L1', expiry_date: '30/06/2027' }), 'expiry_date', 'must be a real calendar date in YYYY-MM-DD form'],
    [row({ lot_number: 'L1', production_date: '1899-12-31' }), 'production_date', 'must be a date from 1900-01-01 to 9999-12-31'],
    [row({ lot_number: 'L1', expiry_date: '2027-01-01', production_date: '2027-01-02' }), 'production_date', 'must not be after the expiry date, 2027-01-01'],
    [row({ expiry_date: '2027-01-01' }), 'expiry_date', 'must be empty when lot_number is'],
    [row({ production_date: '2027-01-01' }), 'production_date', 'must be empty when lot_number is'],
    [row({ good: '' }), 'good', 'is required'],
    [row({ good: '-1' }), 'good', GOOD_ISSUE],
    [row({ good: '0' }), 'good', GOOD_ISSUE],
    [row({ good: '0.00001' }), 'good', GOOD_ISSUE],
    [row({ good: 'ten' }), 'good', GOOD_ISSUE],
    [row({ good: '1,5' }), 'good', GOOD_ISSUE],
    [row({ good: '1e3' }), 'good', GOOD_ISSUE],
    [row({ good: '100000000000.0001' }), 'good', 'must be at most 100000000000'],
  ])('refuses %j', (input, field, reason) => {
    expect(new StockRowChecker().check(2, input)).toEqual({ ok: false, issues: [{ field, reason }] });
  });

  it('lists every problem of a row', () => {
    const result = new StockRowChecker().check(2, row({ sku: '', lot_number: 'L 1', good: 'x' }));
    expect(result.ok ? [] : result.issues.map((i) => i.field)).toEqual(['sku', 'lot_number', 'good']);
  });

  it('refuses a location, SKU and lot the file already listed, naming the first line; another lot is another row', () => {
    const checker = new StockRowChecker();
    expect(checker.check(2, row({ sku: 'MADU', lot_number: 'L1', expiry_date: '2027-01-01' })).ok).toBe(true);
    expect(checker.check(3, row({ sku: 'MADU', lot_number: 'L2', expiry_date: '2027-01-01' })).ok).toBe(true);
    expect(checker.check(4, row({ location_code: 'WH-SBY', sku: 'MADU', lot_number: 'L1' })).ok).toBe(true);
    expect(checker.check(5, row({ sku: 'MADU', lot_number: 'L1', good: '2' }))).toEqual({ ok: false, issues: [{ field: '', reason: 'location WH-JKT, SKU MADU and lot L1 are already on line 2' }] });
    expect(checker.check(6, row({}))).toMatchObject({ ok: true });
    expect(checker.check(7, row({ good: '5' }))).toEqual({ ok: false, issues: [{ field: '', reason: 'location WH-JKT and SKU SKU-1 are already on line 6' }] });
  });
});
