import { describe, expect, it } from 'vitest';
import { BOOLEAN_ISSUE, ProductRowChecker } from './product-row.js';

describe('ProductRowChecker', () => {
  it('fills the catalogue defaults and reads CSV text and JSON values alike', () => {
    const csv = new ProductRowChecker().check(2, { sku: ' SKU-1 ', name: 'Kopi', published_price: '65000', cost_price: '45000.5', is_bundle: 'TRUE', brand: '', outbound_expired: '30' });
    const json = new ProductRowChecker().check(1, { sku: 'SKU-1', name: 'Kopi', published_price: 65000, cost_price: '45000.50', is_bundle: true, brand: null, outbound_expired: 30 });
    expect(csv).toEqual(json);
    expect(csv).toMatchObject({
      ok: true,
      value: { sku: 'SKU-1', published_price: '65000.00', cost_price: '45000.50', weight: '0.00', is_bundle: true, is_managed_by_fulfillment: true, brand: null, outbound_expired: 30, product_type: 'physical', status: 'published' },
    });
  });

  it.each([
    [{ name: 'x' }, 'sku', 'is required'],
    [{ sku: 'a', name: 'x', cost_price: '1.005' }, 'cost_price', 'must be a non-negative decimal with at most two places'],
    [{ sku: 'a', name: 'x', cost_price: '10000000000000' }, 'cost_price', 'must be less than 10000000000000'],
    [{ sku: 'a', name: 'x', weight: -1 }, 'weight', 'must be a non-negative decimal with at most two places'],
    [{ sku: 'a', name: 'Kopi\u0000' }, 'name', 'must not contain the NUL character'],
    [{ sku: 'a\ud800', name: 'Kopi' }, 'sku', 'must not contain unpaired surrogates (invalid Unicode)'],
    [{ sku: 'a', name: 'x', brand: 'Kopi \udc00' }, 'brand', 'must not contain unpaired surrogates (invalid Unicode)'],
    [{ sku: 'a', name: 'x', description: 'nul \u0000 inside' }, 'description', 'must not contain the NUL character'],
    [JSON.parse('{"sku":"a","name":"x","__proto__":{"polluted":true}}') as Record<string, unknown>, '__proto__', 'is not a product field'],
    [{ sku: 'a', name: 'x', category_id: '1.5' }, 'category_id', 'must be a non-negative integer'],
    [{ sku: 'a', name: 'x', cold_storage: 'maybe' }, 'cold_storage', BOOLEAN_ISSUE],
    [{ sku: 'a', name: 'x', colour: 'red' }, 'colour', 'is not a product field'],
    [{ sku: 'a', name: 42 }, 'name', 'must be a string'],
  ])('refuses %j', (input, field, reason) => {
    const result = new ProductRowChecker().check(2, input);
    expect(!result.ok && result.issues).toContainEqual({ field, reason });
  });

  it('takes true and false in any letter case for a flag, and refuses the values it used to guess (yes/no, 1/0), saying so', () => {
    expect(BOOLEAN_ISSUE).toBe('must be true or false (any letter case; 1/0 and yes/no are not accepted)');
    const flags = (value: unknown) => new ProductRowChecker().check(2, { sku: 'a', name: 'x', cold_storage: value });
    for (const [value, parsed] of [['true', true], [' FALSE ', false], ['True', true], [true, true], [false, false]] as const) {
      expect(flags(value)).toMatchObject({ ok: true, value: { cold_storage: parsed } });
    }
    for (const value of ['yes', 'no', '1', '0', 'Y', 'on', 1, 0, null]) {
      expect(flags(value), JSON.stringify(value)).toEqual({ ok: false, issues: [{ field: 'cold_storage', reason: BOOLEAN_ISSUE }] });
    }
  });

  it('takes prices up to the internal API\'s largest, 9999999999999.99, leading zeros included', () => {
    expect(new ProductRowChecker().check(1, { sku: 'a', name: 'x', cost_price: '9999999999999.99', weight: '000000000000001.5' })).toMatchObject({
      ok: true,
      value: { cost_price: '9999999999999.99', weight: '000000000000001.50' },
    });
  });

  it('refuses a JSON row nested deeper than 32 levels, 200,000 levels included, without walking it', () => {
    for (const levels of [32, 200_000]) {
      const row = JSON.parse(`{"sku":"a","name":"x","description":${'['.repeat(levels)}${']'.repeat(levels)}}`) as Record<string, unknown>;
      expect(new ProductRowChecker().check(1, row)).toEqual({ ok: false, issues: [{ field: '', reason: 'must not be nested more than 32 levels deep' }] });
    }
    const shallow = JSON.parse(`{"sku":"a","name":"x","description":${'['.repeat(31)}${']'.repeat(31)}}`) as Record<string, unknown>;
    expect(new ProductRowChecker().check(1, shallow).ok).toBe(false);
    expect(new ProductRowChecker().check(1, shallow)).toEqual({ ok: false, issues: [{ field: 'description', reason: 'must be a string' }] });
  });

  it('refuses a SKU listed twice', () => {
    const checker = new ProductRowChecker();
    checker.check(2, { sku: 'a', name: 'x' });
    expect(checker.check(3, { sku: 'a', name: 'y' })).toEqual({ ok: false, issues: [{ field: 'sku', reason: 'a is already on line 2' }] });
  });
});
