import { describe, expect, it } from 'vitest';
import type { Actor } from './actor.js';
import {
  ADJUSTMENT_STATUSES,
  type AdjustmentForDecision,
  type AdjustmentStatus,
  adjustmentStockChanges,
  adjustmentTotals,
  approveAdjustment,
  rejectAdjustment,
} from './adjustment.js';
import { dec } from './decimal.js';
import type { DomainError, Result } from './errors.js';
import { type StockLevel, type StockLevels, stockKey } from './stock.js';

const actor: Actor = { id: 7, name: 'Acme Integrations', email: 'ops@acme.example' };
const now = new Date('2026-01-31T08:15:30.123Z');
const LOC = 3;

function level(good: string, damaged = '0', reserved = '0'): StockLevel {
  return { good: dec(good), damaged: dec(damaged), reserved: dec(reserved), reservedForOrders: dec(0) };
}

function stockAt(entries: Record<number, StockLevel>): StockLevels {
  return new Map(Object.entries(entries).map(([productId, l]) => [stockKey({ locationId: LOC, productId: Number(productId) }), l]));
}

function plain(l: StockLevel | undefined) {
  return l && { good: l.good.toFixed(), damaged: l.damaged.toFixed(), reserved: l.reserved.toFixed() };
}

function adjustment(over: Partial<AdjustmentForDecision> = {}): AdjustmentForDecision {
  return {
    status: 'pending',
    type: 'increase',
    stockSource: 'good',
    locationId: LOC,
    items: [
      { productId: 101, quantity: dec('2.5') },
      { productId: 102, quantity: dec('1') },
    ],
    ...over,
  };
}

function expectOk<T>(result: Result<T>): T {
  if (!result.ok) throw new Error(`expected success, got ${result.error.kind}: ${result.error.message}`);
  return result.value;
}

function expectRefused<T>(result: Result<T>): DomainError {
  if (result.ok) throw new Error('expected a refusal');
  expect(Object.keys(result).sort()).toStrictEqual(['error', 'ok']);
  return result.error;
}

describe('adjustmentTotals', () => {
  it('computes line totals, the document total and the line count exactly', () => {
    const totals = adjustmentTotals([
      { quantity: dec('2'), unitCost: dec('19.99') },
      { quantity: dec('3'), unitCost: dec('0.1') },
      { quantity: dec('1.5'), unitCost: dec('0.3333') },
    ]);
    expect(totals.lineTotals.map((t) => t.toFixed())).toStrictEqual(['39.98', '0.3', '0.49995']);
    expect(totals.totalAmount.toFixed()).toBe('40.77995');
    expect(totals.itemCount).toBe(3);
  });

  it('is zero for no lines, and a zero unit cost gives a zero line', () => {
    const empty = adjustmentTotals([]);
    expect(empty.totalAmount.isZero()).toBe(true);
    expect(empty.itemCount).toBe(0);
    expect(adjustmentTotals([{ quantity: dec('4'), unitCost: dec('0') }]).totalAmount.isZero()).toBe(true);
  });
});

describe('adjustmentStockChanges', () => {
  it('puts into the stock source bucket on increase, naming each line', () => {
    const changes = adjustmentStockChanges(adjustment({ stockSource: 'damaged' }));
    expect(changes.map((c) => ({ ...c, delta: c.delta.toFixed() }))).toStrictEqual([
      { locationId: LOC, productId: 101, bucket: 'damaged', delta: '2.5', field: 'items[0].quantity' },
      { locationId: LOC, productId: 102, bucket: 'damaged', delta: '1', field: 'items[1].quantity' },
    ]);
  });

  it('takes out of it on decrease', () => {
    expect(adjustmentStockChanges(adjustment({ type: 'decrease' })).map((c) => c.delta.toFixed())).toStrictEqual(['-2.5', '-1']);
  });
});

describe('approveAdjustment', () => {
  it('records who approved it and when', () => {
    const value = expectOk(approveAdjustment(adjustment(), new Map(), now, actor));
    expect(value.next).toStrictEqual({ status: 'approved', approvedAt: now, approvedBy: actor });
  });

  it('an increase of good stock adds to good only', () => {
    const value = expectOk(approveAdjustment(adjustment(), stockAt({ 101: level('10', '1', '4') }), now, actor));
    expect(plain(value.stock.levels.get('3:101'))).toStrictEqual({ good: '12.5', damaged: '1', reserved: '4' });
    expect(plain(value.stock.levels.get('3:102'))).toStrictEqual({ good: '1', damaged: '0', reserved: '0' });
    expect(value.stock.movements.map((m) => [m.productId, m.bucket, m.before.toFixed(), m.after.toFixed()])).toStrictEqual([
      [101, 'good', '10', '12.5'],
      [102, 'good', '0', '1'],
    ]);
  });

  it('an increase of damaged stock adds to damaged only', () => {
    const value = expectOk(approveAdjustment(adjustment({ stockSource: 'damaged' }), stockAt({ 101: level('10', '1') }), now, actor));
    expect(plain(value.stock.levels.get('3:101'))).toStrictEqual({ good: '10', damaged: '3.5', reserved: '0' });
  });

  it('a decrease of good stock takes from good', () => {
    const stock = stockAt({ 101: level('10', '5'), 102: level('1') });
    const value = expectOk(approveAdjustment(adjustment({ type: 'decrease' }), stock, now, actor));
    expect(plain(value.stock.levels.get('3:101'))).toStrictEqual({ good: '7.5', damaged: '5', reserved: '0' });
    // Taking everything there is leaves exactly zero.
    expect(plain(value.stock.levels.get('3:102'))).toStrictEqual({ good: '0', damaged: '0', reserved: '0' });
  });

  it('a decrease of damaged stock takes from damaged', () => {
    const stock = stockAt({ 101: level('10', '5'), 102: level('0', '1') });
    const value = expectOk(approveAdjustment(adjustment({ type: 'decrease', stockSource: 'damaged' }), stock, now, actor));
    expect(plain(value.stock.levels.get('3:101'))).toStrictEqual({ good: '10', damaged: '2.5', reserved: '0' });
    expect(plain(value.stock.levels.get('3:102'))).toStrictEqual({ good: '0', damaged: '0', reserved: '0' });
  });

  it('refuses a decrease below zero on any line, naming that line, and applies nothing', () => {
    const stock = stockAt({ 101: level('10'), 102: level('0.9999') });
    const error = expectRefused(approveAdjustment(adjustment({ type: 'decrease' }), stock, now, actor));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[1].quantity');
    expect(error.message).toContain('product 102 at location 3');
    expect(plain(stock.get('3:101'))?.good).toBe('10');
  });

  it('refuses a decrease of damaged stock below zero even when good stock is plentiful', () => {
    const stock = stockAt({ 101: level('100', '2'), 102: level('100', '5') });
    const error = expectRefused(approveAdjustment(adjustment({ type: 'decrease', stockSource: 'damaged' }), stock, now, actor));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[0].quantity');
  });

  it('refuses a decrease of good stock below the reserved quantity', () => {
    const items = [{ productId: 101, quantity: dec('3') }];
    const error = expectRefused(approveAdjustment(adjustment({ type: 'decrease', items }), stockAt({ 101: level('10', '0', '8') }), now, actor));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details.field).toBe('items[0].quantity');
    // Down to exactly the reserved quantity is fine.
    const value = expectOk(approveAdjustment(adjustment({ type: 'decrease', items }), stockAt({ 101: level('11', '0', '8') }), now, actor));
    expect(plain(value.stock.levels.get('3:101'))).toStrictEqual({ good: '8', damaged: '0', reserved: '8' });
  });

  it.each(['approved', 'rejected'] as const)('refuses an adjustment that is %s with INVALID_STATE, before looking at stock', (status) => {
    // The stock would not even allow this decrease: the state check must come first.
    const error = expectRefused(approveAdjustment(adjustment({ status, type: 'decrease' }), new Map(), now, actor));
    expect(error).toStrictEqual({
      kind: 'INVALID_STATE',
      message: `adjustment is ${status}; only a pending adjustment can be approved`,
      details: { field: 'status', issue: `adjustment is ${status}; only a pending adjustment can be approved` },
    });
  });
});

describe('rejectAdjustment', () => {
  it('records the reason, who rejected it and when, with no stock effect', () => {
    expect(rejectAdjustment({ status: 'pending' }, 'counted twice', now, actor)).toStrictEqual({
      ok: true,
      value: { next: { status: 'rejected', rejectedAt: now, rejectedBy: actor, rejectionReason: 'counted twice' } },
    });
  });

  it.each(['approved', 'rejected'] as const)('refuses an adjustment that is %s with INVALID_STATE', (status) => {
    const error = expectRefused(rejectAdjustment({ status }, 'too late', now, actor));
    expect(error.kind).toBe('INVALID_STATE');
    expect(error.details.field).toBe('status');
    expect(error.message).toBe(`adjustment is ${status}; only a pending adjustment can be rejected`);
  });

  it('only pending is a starting state for either decision', () => {
    const allowed = (status: AdjustmentStatus) => ({
      approve: approveAdjustment(adjustment({ status }), new Map(), now, actor).ok,
      reject: rejectAdjustment({ status }, 'r', now, actor).ok,
    });
    expect(ADJUSTMENT_STATUSES.map(allowed)).toStrictEqual([
      { approve: true, reject: true },
      { approve: false, reject: false },
      { approve: false, reject: false },
    ]);
  });
});
