import { describe, expect, it } from 'vitest';
import { type Dec, dec } from './decimal.js';
import { type DomainError, type Result, unwrap } from './errors.js';
import { LEGACY_LOT, type LotStock } from './lot.js';
import { type AllocationContext, type AllocationLine, type LotAllocation, allocateLots, compareFefo, consumeAllocations } from './lot-allocation.js';

const LOC = 3;
const TODAY = '2026-03-01';
const FOOD = { lotTracked: true, outboundExpired: 14 };
const PLAIN = { lotTracked: false, outboundExpired: 0 };

function lot(lotNumber: string, expiryDate: string | null, good: string, reserved = '0'): LotStock {
  return { lotNumber, expiryDate, good: dec(good), reserved: dec(reserved) };
}

function context(lots: Record<number, LotStock[]>, over: Partial<AllocationContext> = {}): AllocationContext {
  return { locationId: LOC, today: TODAY, lots: new Map(Object.entries(lots).map(([id, l]) => [Number(id), l])), ...over };
}

function line(productId: number, quantity: string, lotNumber?: string, policy = FOOD): AllocationLine {
  return lotNumber === undefined ? { productId, quantity: dec(quantity), policy } : { productId, quantity: dec(quantity), lotNumber, policy };
}

/** Allocations as [lot, expiry, quantity] for readable comparisons. */
function plain(allocations: readonly LotAllocation[]): [string, string | null, string][] {
  return allocations.map((a) => [a.lotNumber, a.expiryDate, a.quantity.toFixed()]);
}

function refusal<T>(result: Result<T>): DomainError {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

describe('compareFefo', () => {
  it('orders by expiry date, lots without one last, then by lot number', () => {
    const lots = [lot('Z', null, '1'), lot('B', '2026-05-01', '1'), lot('A', null, '1'), lot('C', '2026-04-01', '1'), lot('A', '2026-05-01', '1')];
    expect([...lots].sort(compareFefo).map((l) => `${l.lotNumber}@${l.expiryDate}`)).toEqual(['C@2026-04-01', 'A@2026-05-01', 'B@2026-05-01', 'A@null', 'Z@null']);
  });

  it('finds the same lot equal to itself', () => {
    expect(compareFefo(lot('A', '2026-04-01', '1'), lot('A', '2026-04-01', '2'))).toBe(0);
  });

  it('compares lot numbers by code point, not by locale', () => {
    expect([lot('b', null, '1'), lot('B', null, '1'), lot('10', null, '1'), lot('9', null, '1')].sort(compareFefo).map((l) => l.lotNumber)).toEqual(['10', '9', 'B', 'b']);
  });
});

describe('allocateLots', () => {
  const stock = {
    7: [lot(LEGACY_LOT, null, '100'), lot('L-LATE', '2026-06-30', '5'), lot('L-EARLY', '2026-04-01', '3', '1'), lot('L-SHORT', '2026-03-10', '50'), lot('L-EARLY-B', '2026-04-01', '1')],
  };

  it('takes sellable lots first expired first out, then lot number, lots without expiry last', () => {
    const allocations = unwrap(allocateLots([line(7, '10')], context(stock)))[0]!;
    expect(plain(allocations)).toEqual([
      ['L-EARLY', '2026-04-01', '2'],
      ['L-EARLY-B', '2026-04-01', '1'],
      ['L-LATE', '2026-06-30', '5'],
      [LEGACY_LOT, null, '2'],
    ]);
  });

  it('takes one lot only when it covers the line', () => {
    expect(plain(unwrap(allocateLots([line(7, '1.5')], context(stock)))[0]!)).toEqual([['L-EARLY', '2026-04-01', '1.5']]);
  });

  it('never takes a short-dated lot, and names what sellable lots can cover', () => {
    const error = refusal(allocateLots([line(7, '200')], context(stock)));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.details).toEqual({
      field: 'items[0].quantity',
      issue: 'insufficient sellable stock of product 7 at location 3: 108 available in sellable lots (50 more in lots too close to expiry), 200 needed',
    });
  });

  it('takes a lot at exactly the minimum days left, not one day below it', () => {
    const lots = { 7: [lot('AT-MIN', '2026-03-15', '1'), lot('BELOW', '2026-03-14', '1')] };
    expect(plain(unwrap(allocateLots([line(7, '1')], context(lots)))[0]!)).toEqual([['AT-MIN', '2026-03-15', '1']]);
    expect(refusal(allocateLots([line(7, '2')], context(lots))).details.issue).toContain('1 available in sellable lots (1 more in lots too close to expiry)');
  });

  it('with outbound_expired 0 still never takes a lot on its expiry day', () => {
    const lots = { 7: [lot('TODAY', TODAY, '4'), lot('TOMORROW', '2026-03-02', '4')] };
    expect(plain(unwrap(allocateLots([line(7, '4', undefined, { lotTracked: true, outboundExpired: 0 })], context(lots)))[0]!)).toEqual([['TOMORROW', '2026-03-02', '4']]);
  });

  it('moves the boundary at 00:00 WIB: the same lots, a day later, cover less', () => {
    const lots = { 7: [lot('B1', '2026-03-15', '1')] };
    expect(allocateLots([line(7, '1')], context(lots, { today: '2026-03-01' })).ok).toBe(true);
    expect(allocateLots([line(7, '1')], context(lots, { today: '2026-03-02' })).ok).toBe(false);
  });

  it('counts reserved units as taken, with 4 decimal places exactly', () => {
    const lots = { 7: [lot('A', '2026-04-01', '0.3', '0.1001'), lot('B', '2026-04-02', '0.0002')] };
    expect(plain(unwrap(allocateLots([line(7, '0.2001')], context(lots)))[0]!)).toEqual([
      ['A', '2026-04-01', '0.1999'],
      ['B', '2026-04-02', '0.0002'],
    ]);
    expect(refusal(allocateLots([line(7, '0.2002')], context(lots))).details.issue).toContain('0.2001 available in sellable lots, 0.2002 needed');
  });

  it('skips a fully reserved lot', () => {
    const lots = { 7: [lot('A', '2026-04-01', '2', '2'), lot('B', '2026-04-02', '2')] };
    expect(plain(unwrap(allocateLots([line(7, '1')], context(lots)))[0]!)).toEqual([['B', '2026-04-02', '1']]);
  });

  it('pins a line that names a lot to that lot, even when an earlier one expires first', () => {
    expect(plain(unwrap(allocateLots([line(7, '4', 'L-LATE')], context(stock)))[0]!)).toEqual([['L-LATE', '2026-06-30', '4']]);
  });

  it('refuses a pinned lot that cannot cover the line, naming what it holds', () => {
    expect(refusal(allocateLots([line(7, '6', 'L-LATE')], context(stock))).details).toEqual({
      field: 'items[0].quantity',
      issue: 'insufficient stock in lot L-LATE of product 7 at location 3: 5 available, 6 needed',
    });
  });

  it('refuses a pinned lot that is not sellable, saying why', () => {
    expect(refusal(allocateLots([line(7, '1', 'L-SHORT')], context(stock))).details.issue).toBe(
      'insufficient stock in lot L-SHORT of product 7 at location 3: the lot is not sellable (expiry date 2026-03-10, 9 days left, at least 14 required), 0 available, 1 needed',
    );
  });

  it('refuses a pinned lot the location does not hold', () => {
    expect(refusal(allocateLots([line(7, '1', 'NOPE')], context(stock))).details.issue).toBe('insufficient stock in lot NOPE of product 7 at location 3: 0 available, 1 needed');
  });

  it('refuses a product without any lots at the location', () => {
    expect(refusal(allocateLots([line(8, '1')], context(stock))).details.issue).toBe('insufficient sellable stock of product 8 at location 3: 0 available in sellable lots, 1 needed');
  });

  it('gives a product without lots an empty list, and refuses a lot number on it', () => {
    expect(unwrap(allocateLots([line(9, '5', undefined, PLAIN), line(7, '1')], context(stock))).map(plain)).toEqual([[], [['L-EARLY', '2026-04-01', '1']]]);
    expect(refusal(allocateLots([line(9, '5', 'B1', PLAIN)], context(stock)))).toMatchObject({
      kind: 'VALIDATION_ERROR',
      details: { field: 'items[0].lot_number', issue: 'must not be given: the product is not lot-tracked' },
    });
  });

  it('refuses a lot number that breaks the rule before looking at stock', () => {
    const error = refusal(allocateLots([line(7, '1000'), line(7, '1', 'B 1')], context(stock)));
    expect(error.kind).toBe('VALIDATION_ERROR');
    expect(error.details.field).toBe('items[1].lot_number');
  });

  it('lets no two lines take the same units', () => {
    const lots = { 7: [lot('A', '2026-04-01', '3'), lot('B', '2026-05-01', '3')] };
    const [first, second] = unwrap(allocateLots([line(7, '2'), line(7, '3')], context(lots)));
    expect(plain(first!)).toEqual([['A', '2026-04-01', '2']]);
    expect(plain(second!)).toEqual([
      ['A', '2026-04-01', '1'],
      ['B', '2026-05-01', '2'],
    ]);
    expect(refusal(allocateLots([line(7, '4'), line(7, '3')], context(lots))).details).toEqual({
      field: 'items[1].quantity',
      issue: 'insufficient sellable stock of product 7 at location 3: 2 available in sellable lots, 3 needed',
    });
  });

  it('serves pinned lines first, so an earlier line does not take the pinned lot from under them', () => {
    const lots = { 7: [lot('A', '2026-04-01', '3'), lot('B', '2026-05-01', '3')] };
    const [fefo, pinned] = unwrap(allocateLots([line(7, '3'), line(7, '3', 'A')], context(lots)));
    expect(plain(fefo!)).toEqual([['B', '2026-05-01', '3']]);
    expect(plain(pinned!)).toEqual([['A', '2026-04-01', '3']]);
  });

  it('refuses all lines or none, listing every short line in line order, and a short line takes nothing', () => {
    const lots = { 7: [lot('A', '2026-04-01', '3')], 8: [lot('C', '2026-04-01', '1')] };
    const error = refusal(allocateLots([line(8, '2'), line(7, '5', 'A'), line(7, '3'), line(8, '1')], context(lots)));
    expect(error.kind).toBe('INSUFFICIENT_STOCK');
    expect(error.issues?.map((i) => i.field)).toEqual(['items[0].quantity', 'items[1].quantity']);
  });

  it('names fields with the path it is given', () => {
    expect(refusal(allocateLots([line(8, '1')], context(stock, { linePath: (i) => `lines[${i + 1}]` }))).details.field).toBe('lines[1].quantity');
  });

  it('leaves the lots it is given as they are', () => {
    const lots = { 7: [lot('B', '2026-05-01', '3'), lot('A', '2026-04-01', '3')] };
    unwrap(allocateLots([line(7, '4')], context(lots)));
    expect(lots[7].map((l) => [l.lotNumber, l.reserved.toFixed()])).toEqual([
      ['B', '0'],
      ['A', '0'],
    ]);
  });
});

describe('consumeAllocations', () => {
  const held: LotAllocation[] = [
    { lotNumber: 'A', expiryDate: '2026-04-01', quantity: dec('3') },
    { lotNumber: 'B', expiryDate: '2026-05-01', quantity: dec('1.5') },
    { lotNumber: LEGACY_LOT, expiryDate: null, quantity: dec('2') },
  ];

  function split(quantity: string): [string, string, string][] {
    return unwrap(consumeAllocations(held, dec(quantity), 'items[0].quantity')).map((c) => [c.lotNumber, c.consumed.toFixed(), c.released.toFixed()]);
  }

  it('takes from the allocations in their order and releases the rest', () => {
    expect(split('4')).toEqual([
      ['A', '3', '0'],
      ['B', '1', '0.5'],
      [LEGACY_LOT, '0', '2'],
    ]);
  });

  it('consumes everything, or releases everything', () => {
    expect(split('6.5')).toEqual([
      ['A', '3', '0'],
      ['B', '1.5', '0'],
      [LEGACY_LOT, '2', '0'],
    ]);
    expect(split('0')).toEqual([
      ['A', '0', '3'],
      ['B', '0', '1.5'],
      [LEGACY_LOT, '0', '2'],
    ]);
  });

  it('splits 4-decimal quantities exactly, and consumed plus released is what each lot held', () => {
    const result = unwrap(consumeAllocations(held, dec('3.0001'), 'q'));
    expect(result.map((c) => [c.consumed.toFixed(), c.released.toFixed()])).toEqual([
      ['3', '0'],
      ['0.0001', '1.4999'],
      ['0', '2'],
    ]);
    for (const c of result) expect(c.consumed.plus(c.released).equals(c.allocated)).toBe(true);
  });

  it('refuses more than the line holds, or a negative quantity, on the field', () => {
    expect(refusal(consumeAllocations(held, dec('6.5001'), 'items[1].quantity')).details).toEqual({ field: 'items[1].quantity', issue: 'must be at most the held quantity, 6.5' });
    expect(refusal(consumeAllocations(held, dec('-1'), 'items[1].quantity')).details.issue).toBe('must not be negative');
  });

  it('consumes units whose lot has turned unsellable since they were allocated (no date is looked at)', () => {
    const expired: LotAllocation[] = [{ lotNumber: 'OLD', expiryDate: '2020-01-01', quantity: dec(2) }];
    const consumed: Dec = unwrap(consumeAllocations(expired, dec(2), 'q'))[0]!.consumed;
    expect(consumed.toFixed()).toBe('2');
  });

  it('gives nothing for a line without lots', () => {
    expect(unwrap(consumeAllocations([], dec(0), 'q'))).toEqual([]);
  });
});
