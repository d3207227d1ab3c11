import { describe, expect, it } from 'vitest';
import type { Actor } from './actor.js';
import { dec } from './decimal.js';
import { type CountLine, decideStockCount } from './stock-count.js';
import { type StockLevel, type StockLevels, stockKey } from './stock.js';

const actor: Actor = { id: 7, name: 'Acme Integrations', email: 'ops@acme.example' };
const now = new Date('2026-01-31T08:15:30.123Z');
const LOC = 3;

const level = (good: string, damaged = '0', reserved = '0'): StockLevel => ({ good: dec(good), damaged: dec(damaged), reserved: dec(reserved), reservedForOrders: dec(0) });
const stockAt = (entries: Record<number, StockLevel>): StockLevels =>
  new Map(Object.entries(entries).map(([productId, l]) => [stockKey({ locationId: LOC, productId: Number(productId) }), l]));
const line = (productId: number, counted: string, expected: string | null, unitCost = '2'): CountLine => ({
  productId,
  counted: dec(counted),
  expected: expected === null ? null : dec(expected),
  unitCost: dec(unitCost),
});

describe('decideStockCount', () => {
  it('turns the differences into lines of their own sign; the adjustment takes the sign of the net; unchanged lines are left out', () => {
    const stock = stockAt({ 1: level('10'), 2: level('4'), 3: level('7') });
    const r = decideStockCount({ locationId: LOC, stockSource: 'good', lines: [line(1, '12', '10'), line(2, '1', '4', '0.5'), line(3, '7', '7')] }, stock, now, actor);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.type).toBe('decrease');
    expect(r.value.differences.map((d) => [d.line, d.productId, d.type, d.quantity.toFixed(), d.totalCost.toFixed()])).toEqual([
      [0, 1, 'increase', '2', '4'],
      [1, 2, 'decrease', '3', '1.5'],
    ]);
    expect(r.value.totalAmount.toFixed()).toBe('5.5');
    expect(r.value.stock.movements.map((m) => [m.productId, m.delta.toFixed(), m.before.toFixed(), m.after.toFixed()])).toEqual([
      [1, '2', '10', '12'],
      [2, '-3', '4', '1'],
    ]);
    expect(r.value.next).toEqual({ status: 'approved', approvedAt: now, approvedBy: actor });
  });

  it('a net of zero is an increase; a missing level counts as 0; the damaged bucket is its own', () => {
    const r = decideStockCount({ locationId: LOC, stockSource: 'damaged', lines: [line(1, '3', '5'), line(2, '2', '0')] }, stockAt({ 1: level('50', '5') }), now, actor);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.value.type).toBe('increase');
    expect(r.value.differences.map((d) => [d.type, d.quantity.toFixed()])).toEqual([['decrease', '2'], ['increase', '2']]);
    expect(r.value.stock.movements.every((m) => m.bucket === 'damaged')).toBe(true);
  });

  it('refuses the whole count with STALE_QUANTITY naming every stale line and its current quantity; null skips the check', () => {
    const stock = stockAt({ 1: level('10'), 2: level('4') });
    const r = decideStockCount({ locationId: LOC, stockSource: 'good', lines: [line(1, '9', '11'), line(2, '3', null), line(3, '1', '2')] }, stock, now, actor);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.kind).toBe('STALE_QUANTITY');
    expect(r.error.issues).toEqual([
      { field: 'items[0].expected', issue: 'is 11 but the current quantity is 10' },
      { field: 'items[2].expected', issue: 'is 2 but the current quantity is 0' },
    ]);
    expect(r.error.details).toEqual(r.error.issues![0]);
    expect(decideStockCount({ locationId: LOC, stockSource: 'good', lines: [line(2, '3', null)] }, stock, now, actor).ok).toBe(true);
  });

  it('refuses a count that changes nothing, and a good count below what is reserved', () => {
    const stock = stockAt({ 1: level('10', '0', '6') });
    const same = decideStockCount({ locationId: LOC, stockSource: 'good', lines: [line(1, '10', '10')] }, stock, now, actor);
    expect(same.ok || same.error).toMatchObject({ kind: 'VALIDATION_ERROR', message: 'the count matches the stock' });
    const below = decideStockCount({ locationId: LOC, stockSource: 'good', lines: [line(1, '5', '10')] }, stock, now, actor);
    expect(below.ok || below.error).toMatchObject({ kind: 'INSUFFICIENT_STOCK', details: { field: 'items[0].counted' } });
  });

  it('refuses a difference whose value would not be exact as a JSON number, on that line', () => {
    const r = decideStockCount({ locationId: LOC, stockSource: 'good', lines: [line(1, '0', '0'), line(2, '99999999999.9999', '0', '12345.6789')] }, new Map(), now, actor);
    expect(r.ok || r.error).toMatchObject({ kind: 'VALIDATION_ERROR', details: { field: 'items[1].counted' } });
  });
});
