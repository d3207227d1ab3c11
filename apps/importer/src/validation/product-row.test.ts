import { describe, expect, it } from 'vitest';
import { ProductRowChecker } from './product-row.js';

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
    [{ sku: 'a', name: 'x', weight: -1 }, 'weight', 'must be a non-negative decimal with at most two places'],
    [{ sku: 'a', name: 'x', category_id: '1.5' }, 'category_id', 'must be a non-negative integer'],
    [{ sku: 'a', name: 'x', cold_storage: 'maybe' }, 'cold_storage', 'must be true or false'],
    [{ sku: 'a', name: 'x', colour: 'red' }, 'colour', 'is not a product field'],
    [{ sku: 'a', name: 42 }, 'name', 'must be a string'],
  ])('refuses %j', (input, field, reason) => {
    const result = new ProductRowChecker().check(2, input);
    expect(!result.ok && result.issues).toContainEqual({ field, reason });
  });

  it('refuses a SKU listed twice', () => {
    const checker = new ProductRowChecker();
    checker.check(2, { sku: 'a', name: 'x' });
    expect(checker.check(3, { sku: 'a', name: 'y' })).toEqual({ ok: false, issues: [{ field: 'sku', reason: 'a is already on line 2' }] });
  });
});
