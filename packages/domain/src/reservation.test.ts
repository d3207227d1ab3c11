import { describe, expect, it } from 'vitest';
import { dec } from './decimal.js';
import { type Result, unwrap } from './errors.js';
import {
  type ReservationForDecision,
  consumeHold,
  effectiveStatus,
  expiryAfter,
  guardReservation,
  holdStock,
  releaseHold,
} from './reservation.js';
import { type StockLevel, type StockLevels, applyStockChanges, reservedForTransfers, stockKey } from './stock.js';

const LOC = 3;

function level(good: string, reserved = '0', forOrders = '0'): StockLevel {
  return { good: dec(good), damaged: dec(0), reserved: dec(reserved), reservedForOrders: dec(forOrders) };
}

function levels(entries: Record<number, StockLevel>): StockLevels {
  return new Map(Object.entries(entries).map(([productId, l]) => [stockKey({ locationId: LOC, productId: Number(productId) }), l]));
}

function plain(outcome: Result<{ levels: Map<string, StockLevel> }>, productId: number) {
  const l = unwrap(outcome).levels.get(stockKey({ locationId: LOC, productId }))!;
  return { good: l.good.toFixed(), reserved: l.reserved.toFixed(), reservedForOrders: l.reservedForOrders.toFixed() };
}

function hold(over: Partial<ReservationForDecision> = {}): ReservationForDecision {
  return {
    status: 'active',
    locationId: LOC,
    expiresAt: '2026-03-01T10:15:00.000Z',
    items: [
      { productId: 101, quantity: dec('4') },
      { productId: 102, quantity: dec('0.5') },
    ],
    ...over,
  };
}

describe('holdStock', () => {
  it('holds every line in reserved and in reservedForOrders', () => {
    const outcome = holdStock(LOC, hold().items, levels({ 101: level('10', '2'), 102: level('1') }));
    expect(plain(outcome, 101)).toEqual({ good: '10', reserved: '6', reservedForOrders: '4' });
    expect(plain(outcome, 102)).toEqual({ good: '1', reserved: '0.5', reservedForOrders: '0.5' });
    expect(unwrap(outcome).movements.map((m) => [m.productId, m.bucket, m.delta.toFixed()])).toEqual([
      [101, 'reserved', '4'],
      [102, 'reserved', '0.5'],
    ]);
  });

  it('refuses the whole hold and names every short line, counting what transfers already reserve', () => {
    const outcome = holdStock(LOC, [...hold().items, { productId: 103, quantity: dec(1) }], levels({ 101: level('5', '2'), 102: level('1') }));
    expect(outcome.ok).toBe(false);
    if (outcome.ok) return;
    expect(outcome.error.kind).toBe('INSUFFICIENT_STOCK');
    expect(outcome.error.details.field).toBe('items[0].quantity');
    expect(outcome.error.issues?.map((i) => i.field)).toEqual(['items[0].quantity', 'items[2].quantity']);
    expect(outcome.error.details.issue).toContain('3 available, 4 needed');
  });

  it('holds exactly what is available', () => {
    expect(plain(holdStock(LOC, [{ productId: 101, quantity: dec('3') }], levels({ 101: level('5', '2') })), 101)).toEqual({ good: '5', reserved: '5', reservedForOrders: '3' });
  });
});

describe('releaseHold', () => {
  it('gives back exactly what was held', () => {
    expect(plain(releaseHold(hold(), levels({ 101: level('10', '6', '4'), 102: level('1', '0.5', '0.5') })), 101)).toEqual({ good: '10', reserved: '2', reservedForOrders: '0' });
  });

  it('refuses to release more than orders hold (a broken invariant is never written)', () => {
    expect(releaseHold(hold(), levels({ 101: level('10', '6', '1'), 102: level('1', '0.5', '0.5') })).ok).toBe(false);
  });
});

describe('consumeHold', () => {
  const stock = levels({ 101: level('10', '6', '4'), 102: level('1', '0.5', '0.5') });

  it('consumes every line whole without lines', () => {
    const consumption = unwrap(consumeHold(hold(), stock));
    expect(consumption.consumed.map((q) => q.toFixed())).toEqual(['4', '0.5']);
    expect(plain({ ok: true, value: consumption.stock }, 101)).toEqual({ good: '6', reserved: '2', reservedForOrders: '0' });
    expect(plain({ ok: true, value: consumption.stock }, 102)).toEqual({ good: '0.5', reserved: '0', reservedForOrders: '0' });
  });

  it('consumes the named quantities and releases the rest', () => {
    const consumption = unwrap(consumeHold(hold(), stock, [{ productId: 101, quantity: dec('1.5') }]));
    expect(consumption.consumed.map((q) => q.toFixed())).toEqual(['1.5', '0']);
    expect(plain({ ok: true, value: consumption.stock }, 101)).toEqual({ good: '8.5', reserved: '2', reservedForOrders: '0' });
    expect(plain({ ok: true, value: consumption.stock }, 102)).toEqual({ good: '1', reserved: '0', reservedForOrders: '0' });
  });

  it('refuses a product the hold does not have and more than a line holds', () => {
    const refused = consumeHold(hold(), stock, [
      { productId: 999, quantity: dec(1) },
      { productId: 102, quantity: dec('0.6') },
    ]);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.error.kind).toBe('VALIDATION_ERROR');
    expect(refused.error.issues?.map((i) => i.field)).toEqual(['items[0]', 'items[1].quantity']);
  });
});

describe('states and expiry', () => {
  it('an active hold past its expiry is expired at that instant, by the clock given', () => {
    const r = hold();
    expect(effectiveStatus(r, '2026-03-01T10:14:59.999Z')).toBe('active');
    expect(effectiveStatus(r, '2026-03-01T10:15:00.000Z')).toBe('expired');
    expect(effectiveStatus({ ...r, status: 'consumed' }, '2026-03-01T11:00:00.000Z')).toBe('consumed');
  });

  it('only an active hold can be extended, released or consumed', () => {
    expect(guardReservation(hold(), 'release', '2026-03-01T10:00:00.000Z')).toBeNull();
    expect(guardReservation(hold(), 'extend', '2026-03-01T10:20:00.000Z')?.message).toBe('reservation is expired; only an active reservation can be extended');
    const error = guardReservation(hold({ status: 'released' }), 'consume', '2026-03-01T10:00:00.000Z');
    expect(error).toMatchObject({ kind: 'INVALID_STATE', details: { field: 'status' } });
  });

  it('counts the expiry from the clock given', () => {
    expect(expiryAfter('2026-03-01T10:00:00.000Z', 900)).toBe('2026-03-01T10:15:00.000Z');
  });

  it('splits reserved into what transfers and what order holds keep', () => {
    expect(reservedForTransfers(level('10', '6', '4')).toFixed()).toBe('2');
  });

  it('a transfer shipment cannot take what orders hold', () => {
    const outcome = applyStockChanges(levels({ 101: level('10', '6', '4') }), [
      { locationId: LOC, productId: 101, bucket: 'reserved', delta: dec(-3) },
    ]);
    expect(outcome.ok).toBe(false);
  });
});
