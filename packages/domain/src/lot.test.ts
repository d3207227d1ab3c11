import { describe, expect, it } from 'vitest';
import { dec } from './decimal.js';
import { type DomainError, type Result, unwrap } from './errors.js';
import { DATE_RANGE_ISSUE } from './input-rules.js';
import {
  LEGACY_LOT,
  LOT_NUMBER_ISSUE,
  type LotIdentity,
  type LotPolicy,
  type LotStock,
  checkLotExpiryConflict,
  checkLotNumber,
  checkShelfLife,
  shelfLifeError,
  isLotExpiringDue,
  isSellable,
  lotDateIssues,
  lotDaysLeft,
  lotExpirySchedule,
  lotFigures,
  lotLineFields,
  lotNumberIssue,
  requiresExpiryDate,
  resolveLineLot,
  rowLotFigures,
  sellableMinimum,
  unsellableFrom,
} from './lot.js';
import { wibDate } from './wib-calendar.js';

const FIELDS = lotLineFields('items[2]');
const FOOD: LotPolicy = { lotTracked: true, inboundExpired: 30, outboundExpired: 14 };
const PLAIN: LotPolicy = { lotTracked: false, inboundExpired: 0, outboundExpired: 0 };

function refusal<T>(result: Result<T>): DomainError {
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

function lot(lotNumber: string, expiryDate: string | null, good: string, reserved = '0'): LotStock {
  return { lotNumber, expiryDate, good: dec(good), reserved: dec(reserved) };
}

describe('lot numbers', () => {
  it.each(['B1', 'LOT-2026/01.a_7', 'a', 'x'.repeat(64), LEGACY_LOT, '0', '...', '/-_'])('accepts %s', (lotNumber) => {
    expect(lotNumberIssue(lotNumber)).toBeUndefined();
    expect(checkLotNumber(lotNumber, 'lot_number')).toBeNull();
  });

  it.each([
    ['an empty text', ''],
    ['65 characters', 'x'.repeat(65)],
    ['a space', 'B 1'],
    ['a trailing newline', 'B1\n'],
    ['a letter outside ASCII', 'LOTÉ'],
    ['a colon', 'B:1'],
    ['a backslash', 'B\\1'],
    ['a NUL', 'B\u00001'],
  ])('refuses %s', (_, lotNumber) => {
    expect(lotNumberIssue(lotNumber)).toBe(LOT_NUMBER_ISSUE);
  });

  it('refuses on the field it is given, as VALIDATION_ERROR', () => {
    const error = checkLotNumber('B 1', 'items[3].lot_number');
    expect(error).toMatchObject({ kind: 'VALIDATION_ERROR', details: { field: 'items[3].lot_number', issue: LOT_NUMBER_ISSUE } });
  });

  it('names fields of a line, or bare fields at the top', () => {
    expect(lotLineFields('items[2]')).toEqual({ lotNumber: 'items[2].lot_number', expiryDate: 'items[2].expiry_date', productionDate: 'items[2].production_date' });
    expect(lotLineFields('')).toEqual({ lotNumber: 'lot_number', expiryDate: 'expiry_date', productionDate: 'production_date' });
  });
});

describe('lot dates', () => {
  it('accepts real dates with production on or before expiry, and absent dates', () => {
    expect(lotDateIssues({ expiryDate: '2024-02-29', productionDate: '2024-02-29' }, FIELDS)).toEqual([]);
    expect(lotDateIssues({ expiryDate: '2026-12-31', productionDate: null }, FIELDS)).toEqual([]);
    expect(lotDateIssues({ expiryDate: null, productionDate: '2026-01-01' }, FIELDS)).toEqual([]);
  });

  it('refuses a date that does not exist, or is out of range, on its field', () => {
    expect(lotDateIssues({ expiryDate: '2025-02-29', productionDate: '2025-09-31' }, FIELDS)).toEqual([
      { field: 'items[2].expiry_date', issue: 'must be a real calendar date in YYYY-MM-DD form' },
      { field: 'items[2].production_date', issue: 'must be a real calendar date in YYYY-MM-DD form' },
    ]);
    expect(lotDateIssues({ expiryDate: '1899-12-31', productionDate: null }, FIELDS)).toEqual([{ field: 'items[2].expiry_date', issue: DATE_RANGE_ISSUE }]);
  });

  it('refuses a production date after the expiry date', () => {
    expect(lotDateIssues({ expiryDate: '2026-01-31', productionDate: '2026-02-01' }, FIELDS)).toEqual([
      { field: 'items[2].production_date', issue: 'must not be after the expiry date, 2026-01-31' },
    ]);
  });

  it('requires an expiry date when either shelf-life minimum is above 0', () => {
    expect(requiresExpiryDate({ inboundExpired: 0, outboundExpired: 0 })).toBe(false);
    expect(requiresExpiryDate({ inboundExpired: 1, outboundExpired: 0 })).toBe(true);
    expect(requiresExpiryDate({ inboundExpired: 0, outboundExpired: 30 })).toBe(true);
  });
});

describe('checkLotExpiryConflict', () => {
  const known = { lotNumber: 'B1', expiryDate: '2026-05-01' };

  it('accepts no expiry date, or the same one', () => {
    expect(checkLotExpiryConflict(known, undefined, 'items[0].expiry_date')).toBeNull();
    expect(checkLotExpiryConflict(known, null, 'items[0].expiry_date')).toBeNull();
    expect(checkLotExpiryConflict(known, '2026-05-01', 'items[0].expiry_date')).toBeNull();
  });

  it('refuses another expiry date on the line expiry_date, naming the one the lot has', () => {
    expect(checkLotExpiryConflict(known, '2026-06-01', 'items[4].expiry_date')).toMatchObject({
      kind: 'VALIDATION_ERROR',
      details: { field: 'items[4].expiry_date', issue: 'lot B1 already exists and has expiry date 2026-05-01' },
    });
  });

  it('refuses giving an expiry date to a lot that has none', () => {
    expect(checkLotExpiryConflict({ lotNumber: LEGACY_LOT, expiryDate: null }, '2026-06-01', 'expiry_date')?.details.issue).toBe('lot LEGACY already exists and has no expiry date');
  });
});

describe('resolveLineLot', () => {
  const existing: LotIdentity = { lotNumber: 'B1', expiryDate: '2026-05-01', productionDate: '2025-11-01' };

  it('creates a new lot with its dates', () => {
    expect(unwrap(resolveLineLot({ lotNumber: 'B2', expiryDate: '2026-07-01', productionDate: '2026-01-01' }, FOOD, undefined, FIELDS))).toEqual({
      lot: { lotNumber: 'B2', expiryDate: '2026-07-01', productionDate: '2026-01-01' },
      isNew: true,
    });
  });

  it('finds a known lot without repeating its dates, or with the same expiry date', () => {
    expect(unwrap(resolveLineLot({ lotNumber: 'B1' }, FOOD, existing, FIELDS))).toEqual({ lot: existing, isNew: false });
    expect(unwrap(resolveLineLot({ lotNumber: 'B1', expiryDate: '2026-05-01' }, FOOD, existing, FIELDS))).toEqual({ lot: existing, isNew: false });
  });

  it('refuses a known lot with another expiry date on the line expiry_date', () => {
    expect(refusal(resolveLineLot({ lotNumber: 'B1', expiryDate: '2026-05-02' }, FOOD, existing, FIELDS)).details).toEqual({
      field: 'items[2].expiry_date',
      issue: 'lot B1 already exists and has expiry date 2026-05-01',
    });
  });

  it('refuses a production date after a known lot expiry date', () => {
    expect(refusal(resolveLineLot({ lotNumber: 'B1', productionDate: '2026-05-02' }, FOOD, existing, FIELDS)).details.field).toBe('items[2].production_date');
  });

  it('refuses an invalid date on a known lot before comparing it', () => {
    expect(refusal(resolveLineLot({ lotNumber: 'B1', expiryDate: '2026-02-30' }, FOOD, existing, FIELDS)).details).toEqual({
      field: 'items[2].expiry_date',
      issue: 'must be a real calendar date in YYYY-MM-DD form',
    });
  });

  it('requires a lot number for a lot-tracked product, and a valid one', () => {
    expect(refusal(resolveLineLot({ expiryDate: '2026-07-01' }, FOOD, undefined, FIELDS)).details).toEqual({ field: 'items[2].lot_number', issue: 'is required: the product is lot-tracked' });
    expect(refusal(resolveLineLot({ lotNumber: null }, FOOD, undefined, FIELDS)).details.field).toBe('items[2].lot_number');
    expect(refusal(resolveLineLot({ lotNumber: 'B#1', expiryDate: '2026-07-01' }, FOOD, undefined, FIELDS)).details).toEqual({ field: 'items[2].lot_number', issue: LOT_NUMBER_ISSUE });
  });

  it('requires an expiry date for a new lot of a product with a shelf-life minimum, listing every issue', () => {
    const error = refusal(resolveLineLot({ lotNumber: 'B2', productionDate: '2026-02-30' }, FOOD, undefined, FIELDS));
    expect(error.kind).toBe('VALIDATION_ERROR');
    expect(error.issues?.map((i) => i.field)).toEqual(['items[2].expiry_date', 'items[2].production_date']);
  });

  it('lets a new lot go without an expiry date when the product has no minimum', () => {
    const policy = { lotTracked: true, inboundExpired: 0, outboundExpired: 0 };
    expect(unwrap(resolveLineLot({ lotNumber: 'B2' }, policy, undefined, FIELDS))).toEqual({ lot: { lotNumber: 'B2', expiryDate: null, productionDate: null }, isNew: true });
  });

  it('refuses a lot number for a product without lots, and gives such a line no lot', () => {
    expect(refusal(resolveLineLot({ lotNumber: 'B1' }, PLAIN, undefined, FIELDS)).details).toEqual({ field: 'items[2].lot_number', issue: 'must not be given: the product is not lot-tracked' });
    expect(unwrap(resolveLineLot({}, PLAIN, undefined, FIELDS))).toBeNull();
  });
});

describe('sellable', () => {
  it('needs at least outbound_expired days left, and never less than 1', () => {
    expect(sellableMinimum(0)).toBe(1);
    expect(sellableMinimum(1)).toBe(1);
    expect(sellableMinimum(30)).toBe(30);
  });

  it('is sellable at exactly the minimum, not one day below it', () => {
    expect(isSellable({ expiryDate: '2026-03-31' }, '2026-03-01', 30)).toBe(true);
    expect(isSellable({ expiryDate: '2026-03-31' }, '2026-03-02', 30)).toBe(false);
  });

  it('with no minimum, is sellable until the day before expiry, never on the expiry day', () => {
    expect(isSellable({ expiryDate: '2026-03-31' }, '2026-03-30', 0)).toBe(true);
    expect(isSellable({ expiryDate: '2026-03-31' }, '2026-03-31', 0)).toBe(false);
    expect(isSellable({ expiryDate: '2026-03-31' }, '2026-04-02', 0)).toBe(false);
  });

  it('is always sellable without an expiry date (LEGACY)', () => {
    expect(isSellable({ expiryDate: null }, '9999-12-31', 365)).toBe(true);
    expect(lotDaysLeft({ expiryDate: null }, '2026-01-01')).toBeNull();
  });

  it('changes at 00:00 WIB, which is 17:00 UTC', () => {
    const expiring = { expiryDate: '2026-03-31' };
    expect(isSellable(expiring, wibDate('2026-03-29T16:59:59.999Z'), 2)).toBe(true);
    expect(isSellable(expiring, wibDate('2026-03-29T17:00:00.000Z'), 2)).toBe(false);
  });

  it('counts 29 February', () => {
    // Six days before 1 March is 24 February in a leap year, 23 February otherwise.
    expect(unsellableFrom({ expiryDate: '2024-03-01' }, 7)).toBe('2024-02-24');
    expect(unsellableFrom({ expiryDate: '2025-03-01' }, 7)).toBe('2025-02-23');
    expect(isSellable({ expiryDate: '2024-03-01' }, '2024-02-23', 7)).toBe(true);
    expect(isSellable({ expiryDate: '2024-03-01' }, '2024-02-24', 7)).toBe(false);
  });
});

describe('unsellableFrom and lotExpirySchedule', () => {
  it('is the first day with fewer days left than the minimum', () => {
    expect(unsellableFrom({ expiryDate: '2026-03-31' }, 30)).toBe('2026-03-02');
    expect(unsellableFrom({ expiryDate: '2026-03-31' }, 1)).toBe('2026-03-31');
    expect(unsellableFrom({ expiryDate: '2026-03-31' }, 0)).toBe('2026-03-31');
    expect(unsellableFrom({ expiryDate: null }, 30)).toBeNull();
  });

  it('agrees with isSellable on both sides of the boundary', () => {
    for (const minimum of [0, 1, 7, 30]) {
      const boundary = unsellableFrom({ expiryDate: '2026-03-31' }, minimum)!;
      expect(isSellable({ expiryDate: '2026-03-31' }, boundary, minimum)).toBe(false);
      expect(isSellable({ expiryDate: '2026-03-31' }, wibDate(new Date(Date.parse(`${boundary}T00:00:00+07:00`) - 1)), minimum)).toBe(true);
    }
  });

  it('schedules the boundary at 00:00 WIB and the notice 7 days before it', () => {
    const schedule = lotExpirySchedule({ expiryDate: '2026-03-31' }, 30)!;
    expect(schedule.unsellableFrom).toBe('2026-03-02');
    expect(schedule.unsellableAt.toISOString()).toBe('2026-03-01T17:00:00.000Z');
    expect(schedule.expiringFrom).toBe('2026-02-23');
    expect(schedule.expiringAt.toISOString()).toBe('2026-02-22T17:00:00.000Z');
    expect(lotExpirySchedule({ expiryDate: null }, 30)).toBeNull();
  });

  it('has the notice due from 7 days before, and at once for a lot created later', () => {
    const expiring = { expiryDate: '2026-03-31' };
    expect(isLotExpiringDue(expiring, '2026-02-22', 30)).toBe(false);
    expect(isLotExpiringDue(expiring, '2026-02-23', 30)).toBe(true);
    expect(isLotExpiringDue(expiring, '2026-03-20', 30)).toBe(true);
    expect(isLotExpiringDue({ expiryDate: null }, '9999-12-31', 30)).toBe(false);
  });
});

describe('lotFigures and rowLotFigures', () => {
  const today = '2026-03-01';

  it('a sellable lot: nothing short-dated, available is good minus reserved', () => {
    const figures = lotFigures(lot('B1', '2026-04-30', '10.5', '2.25'), today, 30);
    expect({ ...figures, shortDated: figures.shortDated.toFixed(), available: figures.available.toFixed() }).toEqual({ daysLeft: 60, sellable: true, shortDated: '0', available: '8.25' });
  });

  it('an unsellable lot: its unreserved good units are short-dated and nothing is available', () => {
    const figures = lotFigures(lot('B1', '2026-03-10', '10.5', '2.25'), today, 30);
    expect({ ...figures, shortDated: figures.shortDated.toFixed(), available: figures.available.toFixed() }).toEqual({ daysLeft: 9, sellable: false, shortDated: '8.25', available: '0' });
  });

  it('a fully reserved unsellable lot has nothing short-dated: allocated units stay allocated', () => {
    expect(lotFigures(lot('B1', '2026-03-01', '3', '3'), today, 0).shortDated.toFixed()).toBe('0');
  });

  it('a row sums its lots, with 4 decimal places exactly, and available = good - reserved - short_dated', () => {
    const lots = [lot('B1', '2026-03-05', '0.0001', '0'), lot('B2', '2026-03-20', '1.1111', '0.1111'), lot(LEGACY_LOT, null, '2.2222', '1.0001'), lot('B3', '2026-02-01', '0.3', '0.1')];
    const row = rowLotFigures(lots, today, 14);
    expect(row.shortDated.toFixed()).toBe('0.2001');
    expect(row.available.toFixed()).toBe('2.2221');
    const good = lots.reduce((t, l) => t.plus(l.good), dec(0));
    const reserved = lots.reduce((t, l) => t.plus(l.reserved), dec(0));
    expect(good.minus(reserved).minus(row.shortDated).toFixed()).toBe(row.available.toFixed());
  });

  it('a row without lots has nothing short-dated or available', () => {
    expect(rowLotFigures([], today, 0)).toEqual({ shortDated: dec(0), available: dec(0) });
  });
});

describe('checkShelfLife', () => {
  it('accepts a lot with at least inbound_expired days left on the receipt date', () => {
    expect(checkShelfLife({ expiryDate: '2026-03-31' }, 30, '2026-03-01', 'items[0].expiry_date')).toBeNull();
    expect(checkShelfLife({ expiryDate: '2026-04-30' }, 30, '2026-03-01', 'items[0].expiry_date')).toBeNull();
  });

  it('refuses one day short, naming the minimum and the days left on the line expiry_date', () => {
    expect(checkShelfLife({ expiryDate: '2026-03-30' }, 30, '2026-03-01', 'items[1].expiry_date')).toEqual({
      kind: 'SHELF_LIFE_TOO_SHORT',
      field: 'items[1].expiry_date',
      issue: 'the lot has 29 days of shelf life left on 2026-03-01; at least 30 are required on receipt',
      minimum: 30,
      daysLeft: 29,
    });
  });

  it('counts the receipt date in WIB: a receipt at 17:00 UTC is the next day', () => {
    const lotExpiry = { expiryDate: '2026-03-31' };
    expect(checkShelfLife(lotExpiry, 30, wibDate('2026-02-28T16:59:59.999Z'), 'expiry_date')).toBeNull();
    expect(checkShelfLife(lotExpiry, 30, wibDate('2026-03-01T17:00:00.000Z'), 'expiry_date')?.daysLeft).toBe(29);
  });

  it('with inbound_expired 0, accepts a lot expiring on the receipt day and refuses one already expired', () => {
    expect(checkShelfLife({ expiryDate: '2026-03-01' }, 0, '2026-03-01', 'expiry_date')).toBeNull();
    expect(checkShelfLife({ expiryDate: '2026-02-28' }, 0, '2026-03-01', 'expiry_date')?.daysLeft).toBe(-1);
  });

  it('accepts a lot without an expiry date', () => {
    expect(checkShelfLife({ expiryDate: null }, 30, '2026-03-01', 'expiry_date')).toBeNull();
  });
});

describe('shelfLifeError', () => {
  it('is SHELF_LIFE_TOO_SHORT on the line expiry_date, its message naming the minimum and the days left', () => {
    const shortfall = checkShelfLife({ expiryDate: '2026-03-30' }, 30, '2026-03-01', 'items[1].expiry_date');
    expect(shortfall).not.toBeNull();
    expect(shelfLifeError(shortfall!)).toEqual({
      kind: 'SHELF_LIFE_TOO_SHORT',
      message: 'items[1].expiry_date: the lot has 29 days of shelf life left on receipt; the product requires at least 30 days',
      details: { field: 'items[1].expiry_date', issue: 'the lot has 29 days of shelf life left on 2026-03-01; at least 30 are required on receipt' },
    });
  });

  it('says how long ago a lot expired, in days', () => {
    expect(shelfLifeError(checkShelfLife({ expiryDate: '2026-02-28' }, 1, '2026-03-01', 'expiry_date')!).message).toBe(
      'expiry_date: the lot has expired 1 day before receipt; the product requires at least 1 day',
    );
    expect(shelfLifeError(checkShelfLife({ expiryDate: '2026-03-02' }, 7, '2026-03-01', 'expiry_date')!).message).toBe(
      'expiry_date: the lot has 1 day of shelf life left on receipt; the product requires at least 7 days',
    );
  });
});
