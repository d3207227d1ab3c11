import { describe, expect, it } from 'vitest';
import { dec } from './decimal.js';
import type { DomainError, Result } from './errors.js';
import {
  STOCK_BUCKETS,
  type StockChange,
  type StockLevel,
  type StockMovement,
  type StockOutcome,
  applyStockChanges,
  availableQuantity,
  emptyStockLevel,
  stockKey,
} from './stock.js';

const LOC = 1;

function level(good: string, damaged = '0', reserved = '0'): StockLevel {
  return { good: dec(good), damaged: dec(damaged), reserved: dec(reserved), reservedForOrders: dec(0) };
}

function plainLevel(l: StockLevel | undefined): { good: string; damaged: string; reserved: string } | undefined {
  return l && { good: l.good.toFixed(), damaged: l.damaged.toFixed(), reserved: l.reserved.toFixed() };
}

function plainMovement(m: StockMovement) {
  return { key: stockKey(m), bucket: m.bucket, delta: m.delta.toFixed(), before: m.before.toFixed(), after: m.after.toFixed() };
}

function change(productId: number, bucket: StockChange['bucket'], delta: string, field?: string): StockChange {
  const c: StockChange = { locationId: LOC, productId, bucket, delta: dec(delta) };
  if (field !== undefined) c.field = field;
  return c;
}

function expectOk(result: Result<StockOutcome>): StockOutcome {
  if (!result.ok) throw new Error(`expected success, got ${result.error.kind}: ${result.error.message}`);
  return result.value;
}

function expectRefused(result: Result<StockOutcome>): DomainError {
  if (result.ok) throw new Error('expected a refusal');
  // Nothing partial comes back with a refusal.
  expect(Object.keys(result).sort()).toStrictEqual(['error', 'ok']);
  return result.error;
}

describe('stock basics', () => {
  it('keys a stock row by location and product', () => {
    expect(stockKey({ locationId: 3, productId: 1042 })).toBe('3:1042');
  });

  it('knows three buckets', () => {
    expect(STOCK_BUCKETS).toStrictEqual(['good', 'damaged', 'reserved']);
  });

  it('an empty level holds nothing', () => {
    expect(plainLevel(emptyStockLevel())).toStrictEqual({ good: '0', damaged: '0', reserved: '0' });
  });

  it('available is good minus reserved, exactly; damaged does not count', () => {
    expect(availableQuantity(level('10', '4', '3.5')).toFixed()).toBe('6.5');
    expect(availableQuantity(level('0.3', '0', '0.1')).toFixed()).toBe('0.2');
    expect(availableQuantity(level('5', '0', '5')).isZero()).toBe(true);
  });
});

describe('applyStockChanges', () => {
  it('starts from nothing when a key has no stock row yet', () => {
    const out = expectOk(applyStockChanges(new Map(), [change(2, 'good', '5')]));
    expect(plainLevel(out.levels.get('1:2'))).toStrictEqual({ good: '5', damaged: '0', reserved: '0' });
    expect(out.movements.map(plainMovement)).toStrictEqual([{ key: '1:2', bucket: 'good', delta: '5', before: '0', after: '5' }]);
  });

  it('applies changes in order: a take after a put succeeds, the same take before it is refused', () => {
    const forward = expectOk(applyStockChanges(new Map(), [change(2, 'good', '5'), change(2, 'good', '-3')]));
    expect(plainLevel(forward.levels.get('1:2'))?.good).toBe('2');
    expect(forward.movements.map(plainMovement)).toStrictEqual([
      { key: '1:2', bucket: 'good', delta: '5', before: '0', after: '5' },
      { key: '1:2', bucket: 'good', delta: '-3', before: '5', after: '2' },
    ]);
    const backward = expectRefused(applyStockChanges(new Map(), [change(2, 'good', '-3'), change(2, 'good', '5')]));
    expect(backward.kind).toBe('INSUFFICIENT_STOCK');
  });

  it('accumulates repeated changes to one key, each movement starting where the last ended', () => {
    const current = new Map([['1:7', level('1', '2', '0')]]);
    const out = expectOk(
      applyStockChanges(current, [change(7, 'good', '0.1'), change(7, 'good', '0.2'), change(7, 'damaged', '-2'), change(7, 'good', '0.7')]),
    );
    expect(plainLevel(out.levels.get('1:7'))).toStrictEqual({ good: '2', damaged: '0', reserved: '0' });
    expect(out.movements.map((m) => [m.bucket, m.before.toFixed(), m.after.toFixed()])).toStrictEqual([
      ['good', '1', '1.1'],
      ['good', '1.1', '1.3'],
      ['damaged', '2', '0'],
      ['good', '1.3', '2'],
    ]);
  });

  it('changes only the touched bucket and reports only touched keys', () => {
    const current = new Map([
      ['1:2', level('10', '4', '3')],
      ['1:9', level('1')],
    ]);
    const out = expectOk(applyStockChanges(current, [change(2, 'damaged', '1.5')]));
    expect([...out.levels.keys()]).toStrictEqual(['1:2']);
    expect(plainLevel(out.levels.get('1:2'))).toStrictEqual({ good: '10', damaged: '5.5', reserved: '3' });
  });

  it('movements carry the key, bucket, delta and the balance before and after', () => {
    const current = new Map([['4:2', level('10', '0', '2')]]);
    const out = expectOk(applyStockChanges(current, [{ locationId: 4, productId: 2, bucket: 'reserved', delta: dec('3'), field: 'items[0].quantity' }]));
    expect(out.movements).toHaveLength(1);
    const [m] = out.movements;
    expect(m?.locationId).toBe(4);
    expect(m?.productId).toBe(2);
    expect(m?.bucket).toBe('reserved');
    expect(m?.delta.toFixed()).toBe('3');
    expect(m?.before.toFixed()).toBe('2');
    expect(m?.after.toFixed()).toBe('5');
  });

  it('does not modify the levels it was given', () => {
    const before = level('10', '1', '2');
    const current = new Map([['1:2', before]]);
    expectOk(applyStockChanges(current, [change(2, 'good', '-5')]));
    expectRefused(applyStockChanges(current, [change(2, 'good', '-1'), change(2, 'good', '-100')]));
    expect(current.get('1:2')).toBe(before);
    expect(plainLevel(before)).toStrictEqual({ good: '10', damaged: '1', reserved: '2' });
  });

  it('allows taking a bucket to exactly zero', () => {
    const out = expectOk(applyStockChanges(new Map([['1:2', level('2.5', '1')]]), [change(2, 'good', '-2.5'), change(2, 'damaged', '-1')]));
    const l = out.levels.get('1:2');
    expect(plainLevel(l)).toStrictEqual({ good: '0', damaged: '0', reserved: '0' });
    expect(l?.good.isNegative()).toBe(false);
  });

  it('refuses all five changes when the third would go negative, naming its field', () => {
    const current = new Map([
      ['1:1', level('10')],
      ['1:2', level('10')],
      ['1:3', level('2')],
      ['1:4', level('10')],
      ['1:5', level('10')],
    ]);
    const changes = [1, 2, 3, 4, 5].map((productId, i) => change(productId, 'good', '-3', `items[${i}].quantity`));
    const error = expectRefused(applyStockChanges(current, changes));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[2].quantity');
    expect(error.message).toBe('insufficient stock of product 3 at location 1: 2 good (0 reserved), 3 needed');
    expect(error.details.issue).toBe(error.message);
    // The caller's levels are as they were: nothing of the first two changes leaked.
    expect(plainLevel(current.get('1:1'))?.good).toBe('10');
    expect(plainLevel(current.get('1:2'))?.good).toBe('10');
  });

  it('names no field when the change stems from no single input', () => {
    const error = expectRefused(applyStockChanges(new Map(), [change(2, 'damaged', '-1')]));
    expect(error.details.field).toBe('');
  });

  it('refuses reserving more than good, and allows reserving all of it', () => {
    const current = new Map([['1:2', level('10')]]);
    const error = expectRefused(applyStockChanges(current, [change(2, 'reserved', '10.0001', 'items[0].quantity')]));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[0].quantity');
    const out = expectOk(applyStockChanges(current, [change(2, 'reserved', '10')]));
    expect(availableQuantity(out.levels.get('1:2') ?? emptyStockLevel()).isZero()).toBe(true);
  });

  it('refuses taking good stock below what is reserved', () => {
    const current = new Map([['1:2', level('10', '0', '8')]]);
    expectRefused(applyStockChanges(current, [change(2, 'good', '-3')]));
    const out = expectOk(applyStockChanges(current, [change(2, 'good', '-2')]));
    expect(plainLevel(out.levels.get('1:2'))).toStrictEqual({ good: '8', damaged: '0', reserved: '8' });
  });

  it('refuses a negative reserved quantity', () => {
    expectRefused(applyStockChanges(new Map([['1:2', level('10', '0', '1')]]), [change(2, 'reserved', '-2')]));
  });

  it('says what is held of the bucket concerned', () => {
    const current = new Map([['1:2', level('10', '2', '6')]]);
    const messages = [change(2, 'good', '-5'), change(2, 'damaged', '-5'), change(2, 'reserved', '6')].map(
      (c) => expectRefused(applyStockChanges(current, [c])).message,
    );
    expect(messages).toStrictEqual([
      'insufficient stock of product 2 at location 1: 10 good (6 reserved), 5 needed',
      'insufficient stock of product 2 at location 1: 2 damaged, 5 needed',
      'insufficient stock of product 2 at location 1: 4 available, 6 needed',
    ]);
  });

  it('judges a later change against the levels left by the earlier ones', () => {
    const current = new Map([['1:2', level('10')]]);
    const error = expectRefused(applyStockChanges(current, [change(2, 'good', '-8', 'items[0].quantity'), change(2, 'reserved', '3', 'items[1].quantity')]));
    expect(error.details.field).toBe('items[1].quantity');
    expect(error.message).toBe('insufficient stock of product 2 at location 1: 2 available, 3 needed');
  });
});
