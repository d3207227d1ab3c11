// Lots and expiry dates: what a lot number and a lot's dates may be, when a lot is sellable, what
// of it is short-dated, and whether a receipt has shelf life enough. Days are WIB calendar days
// (wib-calendar.ts); "today" is always a parameter. First-expired-first-out allocation is in
// lot-allocation.ts.
import { type Dec, ZERO } from './decimal.js';
import { type DomainError, type FieldIssue, type Result, domainError, fail, ok } from './errors.js';
import { DATE_RANGE_ISSUE, isDateInRange } from './input-rules.js';
import { addDays, daysLeft, isCalendarDate, wibMidnight } from './wib-calendar.js';

// ---------------------------------------------------------------------------------------------
// Lot numbers

/** The lot of stock a product held before lots existed; it has no expiry date. */
export const LEGACY_LOT = 'LEGACY';

/** The longest lot number accepted. */
export const LOT_NUMBER_MAX_LENGTH = 64;

/** 1 to 64 ASCII letters, digits, `.`, `_`, `/` and `-`; case counts (`a1` and `A1` are two lots). */
export const LOT_NUMBER_PATTERN = /^[A-Za-z0-9._/-]{1,64}$/;

/** Why a lot number is refused. */
export const LOT_NUMBER_ISSUE = `must be 1 to ${LOT_NUMBER_MAX_LENGTH} characters of letters, digits, ".", "_", "/" and "-"`;

/**
 * The reason a lot number may not be accepted, or `undefined` when it may.
 *
 * @example lotNumberIssue('B-2026/01.a_7') === undefined; lotNumberIssue('B 1') === LOT_NUMBER_ISSUE
 */
export function lotNumberIssue(lotNumber: string): string | undefined {
  return LOT_NUMBER_PATTERN.test(lotNumber) ? undefined : LOT_NUMBER_ISSUE;
}

/**
 * VALIDATION_ERROR on `field` for a lot number that breaks the rule, else null.
 *
 * @example checkLotNumber('', 'items[0].lot_number')?.details.field === 'items[0].lot_number'
 */
export function checkLotNumber(lotNumber: string, field: string): DomainError | null {
  const issue = lotNumberIssue(lotNumber);
  return issue === undefined ? null : domainError('VALIDATION_ERROR', `${field} ${issue}`, { field, issue });
}

// ---------------------------------------------------------------------------------------------
// Lot dates

/** A product's lot settings: `production_batch`, `inbound_expired` and `outbound_expired` (days). */
export interface LotPolicy {
  lotTracked: boolean;
  /** Days of shelf life a lot must have left when it is received. */
  inboundExpired: number;
  /** Days of shelf life a lot must have left to be held, transferred or shipped (0: only "not expired"). */
  outboundExpired: number;
}

/** A lot as stored: its number and dates. */
export interface LotIdentity {
  lotNumber: string;
  /** `YYYY-MM-DD`, a WIB calendar day; null for a lot without one (such as LEGACY). */
  expiryDate: string | null;
  productionDate: string | null;
}

/** The request fields a lot's parts come from, for errors: `lotLineFields('items[2]')`. */
export interface LotFields {
  lotNumber: string;
  expiryDate: string;
  productionDate: string;
}

/**
 * The field paths of a request line's lot.
 *
 * @example lotLineFields('items[2]').expiryDate === 'items[2].expiry_date'; lotLineFields('').lotNumber === 'lot_number'
 */
export function lotLineFields(linePath: string): LotFields {
  const at = linePath === '' ? '' : `${linePath}.`;
  return { lotNumber: `${at}lot_number`, expiryDate: `${at}expiry_date`, productionDate: `${at}production_date` };
}

/**
 * A new lot of this product must carry an expiry date when it has a shelf-life minimum.
 *
 * @example requiresExpiryDate({ lotTracked: true, inboundExpired: 0, outboundExpired: 30 }) === true
 */
export function requiresExpiryDate(policy: Pick<LotPolicy, 'inboundExpired' | 'outboundExpired'>): boolean {
  return policy.inboundExpired > 0 || policy.outboundExpired > 0;
}

const CALENDAR_DATE_ISSUE = 'must be a real calendar date in YYYY-MM-DD form';

function dateIssue(date: string): string | undefined {
  if (!isCalendarDate(date)) return CALENDAR_DATE_ISSUE;
  return isDateInRange(date) ? undefined : DATE_RANGE_ISSUE;
}

function invalid(issues: FieldIssue[]): DomainError | null {
  const first = issues[0];
  return first ? domainError('VALIDATION_ERROR', `${first.field} ${first.issue}`, { field: first.field, issue: first.issue, issues }) : null;
}

/**
 * The issues of a lot's dates, each on its field: each a real calendar date from 1900-01-01 to
 * 9999-12-31, and the production date not after the expiry date. An absent date has no issue
 * (whether it is required is `requiresExpiryDate`).
 *
 * @example lotDateIssues({ expiryDate: '2026-01-31', productionDate: '2026-02-01' }, lotLineFields('items[0]'))[0].field === 'items[0].production_date'
 */
export function lotDateIssues(
  dates: { expiryDate: string | null; productionDate: string | null },
  fields: Pick<LotFields, 'expiryDate' | 'productionDate'>,
): FieldIssue[] {
  const issues: FieldIssue[] = [];
  const expiryIssue = dates.expiryDate === null ? undefined : dateIssue(dates.expiryDate);
  const productionIssue = dates.productionDate === null ? undefined : dateIssue(dates.productionDate);
  if (expiryIssue) issues.push({ field: fields.expiryDate, issue: expiryIssue });
  if (productionIssue) issues.push({ field: fields.productionDate, issue: productionIssue });
  // Both are valid YYYY-MM-DD texts here, so comparing the texts compares the days.
  if (!expiryIssue && !productionIssue && dates.expiryDate !== null && dates.productionDate !== null && dates.productionDate > dates.expiryDate) {
    issues.push({ field: fields.productionDate, issue: `must not be after the expiry date, ${dates.expiryDate}` });
  }
  return issues;
}

/**
 * VALIDATION_ERROR on `field` when a line gives a lot that already exists another expiry date
 * than it has (giving one to a lot without one counts as another); null when the line gives none
 * or the same. A lot's expiry date never changes once the lot exists.
 *
 * @example checkLotExpiryConflict({ lotNumber: 'B1', expiryDate: '2026-05-01' }, '2026-06-01', 'items[0].expiry_date')?.kind === 'VALIDATION_ERROR'
 */
export function checkLotExpiryConflict(
  existing: Pick<LotIdentity, 'lotNumber' | 'expiryDate'>,
  given: string | null | undefined,
  field: string,
): DomainError | null {
  if (given === null || given === undefined || given === existing.expiryDate) return null;
  const has = existing.expiryDate === null ? 'has no expiry date' : `has expiry date ${existing.expiryDate}`;
  const issue = `lot ${existing.lotNumber} already exists and ${has}`;
  return domainError('VALIDATION_ERROR', `${field} ${issue}`, { field, issue });
}

/** The lot part of an adjustment, stock-count or inbound receipt line, as the request gives it. */
export interface LotLineInput {
  lotNumber?: string | null | undefined;
  expiryDate?: string | null | undefined;
  productionDate?: string | null | undefined;
}

/** The lot a line names: the lot as it stands (or will be created), and whether it is new. */
export interface ResolvedLineLot {
  lot: LotIdentity;
  isNew: boolean;
}

/**
 * Checks the lot of one line for a product and says which lot it is. The caller looks `existing`
 * up by (tenant, product, lot number) first. For a product without lots, a lot number is
 * VALIDATION_ERROR on `fields.lotNumber` and the line has no lot (`null`). For a lot-tracked
 * product: the lot number is required and must follow the rule; a known lot keeps its dates (a
 * different expiry date is refused, see `checkLotExpiryConflict`); a new lot needs an expiry date
 * when the product has a shelf-life minimum, and valid dates. Every issue of the line is listed.
 *
 * @example
 * const r = resolveLineLot({ lotNumber: 'B1', expiryDate: '2026-09-30' }, product, undefined, lotLineFields('items[0]'));
 * if (r.ok && r.value?.isNew) createLot(r.value.lot);
 */
export function resolveLineLot(line: LotLineInput, policy: LotPolicy, existing: LotIdentity | undefined, fields: LotFields): Result<ResolvedLineLot | null> {
  const lotNumber = line.lotNumber ?? null;
  const expiryDate = line.expiryDate ?? null;
  const productionDate = line.productionDate ?? null;
  if (!policy.lotTracked) {
    const issue = 'must not be given: the product is not lot-tracked';
    return lotNumber === null ? ok(null) : fail(domainError('VALIDATION_ERROR', `${fields.lotNumber} ${issue}`, { field: fields.lotNumber, issue }));
  }
  if (lotNumber === null) {
    const issue = 'is required: the product is lot-tracked';
    return fail(domainError('VALIDATION_ERROR', `${fields.lotNumber} ${issue}`, { field: fields.lotNumber, issue }));
  }
  const numberError = checkLotNumber(lotNumber, fields.lotNumber);
  if (numberError) return fail(numberError);
  const issues = lotDateIssues({ expiryDate, productionDate }, fields);
  if (existing) {
    const conflict = issues.length === 0 ? checkLotExpiryConflict(existing, expiryDate, fields.expiryDate) : null;
    if (conflict) issues.push(conflict.details);
    // A production date given for a known lot is checked against the lot's own expiry date.
    if (issues.length === 0 && productionDate !== null && existing.expiryDate !== null && productionDate > existing.expiryDate) {
      issues.push({ field: fields.productionDate, issue: `must not be after the lot's expiry date, ${existing.expiryDate}` });
    }
    const error = invalid(issues);
    return error ? fail(error) : ok({ lot: existing, isNew: false });
  }
  if (expiryDate === null && requiresExpiryDate(policy)) {
    issues.unshift({ field: fields.expiryDate, issue: `is required for a new lot: the product has a shelf-life minimum` });
  }
  const error = invalid(issues);
  return error ? fail(error) : ok({ lot: { lotNumber, expiryDate, productionDate }, isNew: true });
}

// ---------------------------------------------------------------------------------------------
// Sellable, short-dated, available

/** What sellability needs of a lot. */
export interface LotExpiry {
  expiryDate: string | null;
}

/** A lot's stock at one location. Invariant: 0 <= reserved <= good. */
export interface LotStock extends LotExpiry {
  lotNumber: string;
  good: Dec;
  reserved: Dec;
}

/**
 * Days a lot must have left to be held, transferred or shipped: `outbound_expired`, and never
 * less than 1, so a lot is never sold on its expiry day.
 *
 * @example sellableMinimum(0) === 1; sellableMinimum(30) === 30
 */
export function sellableMinimum(outboundExpired: number): number {
  return Math.max(outboundExpired, 1);
}

/**
 * A lot's days left on `today` (expiry minus today), or null for a lot without an expiry date.
 *
 * @example lotDaysLeft({ expiryDate: '2026-03-01' }, '2026-02-27') === 2; lotDaysLeft({ expiryDate: null }, '2026-02-27') === null
 */
export function lotDaysLeft(lot: LotExpiry, today: string): number | null {
  return lot.expiryDate === null ? null : daysLeft(lot.expiryDate, today);
}

/**
 * A lot is sellable on `today` when it has no expiry date or at least `sellableMinimum` days left.
 *
 * @example isSellable({ expiryDate: '2026-03-31' }, '2026-03-01', 30) === true; isSellable({ expiryDate: '2026-03-30' }, '2026-03-01', 30) === false
 */
export function isSellable(lot: LotExpiry, today: string, outboundExpired: number): boolean {
  const left = lotDaysLeft(lot, today);
  return left === null || left >= sellableMinimum(outboundExpired);
}

/**
 * The first day a lot is not sellable (its days left below the minimum), or null for a lot that
 * never expires. It stops being sellable at `wibMidnight` of that day.
 *
 * @example unsellableFrom({ expiryDate: '2026-03-31' }, 30) === '2026-03-02'; unsellableFrom({ expiryDate: '2026-03-31' }, 0) === '2026-03-31'
 */
export function unsellableFrom(lot: LotExpiry, outboundExpired: number): string | null {
  return lot.expiryDate === null ? null : addDays(lot.expiryDate, 1 - sellableMinimum(outboundExpired));
}

/** `stock.lot_expiring` is sent this many days before a lot becomes unsellable. */
export const LOT_EXPIRING_NOTICE_DAYS = 7;

/** When a lot's sellability changes, for scheduling the boundary and its notice. */
export interface LotExpirySchedule {
  /** First WIB day with 7 days or fewer before the lot becomes unsellable: `stock.lot_expiring` is due from then. */
  expiringFrom: string;
  /** 00:00 WIB of `expiringFrom`. */
  expiringAt: Date;
  /** First WIB day the lot is not sellable. */
  unsellableFrom: string;
  /** 00:00 WIB of `unsellableFrom`: short-dated from this instant. */
  unsellableAt: Date;
}

/**
 * The days and instants a lot's sellability changes, or null for a lot that never expires. A lot
 * created on or after `expiringFrom` gets its `stock.lot_expiring` notice at once
 * (`isLotExpiringDue`).
 *
 * @example lotExpirySchedule({ expiryDate: '2026-03-31' }, 30)?.unsellableAt.toISOString() === '2026-03-01T17:00:00.000Z'
 */
export function lotExpirySchedule(lot: LotExpiry, outboundExpired: number): LotExpirySchedule | null {
  const unsellable = unsellableFrom(lot, outboundExpired);
  if (unsellable === null) return null;
  const expiring = addDays(unsellable, -LOT_EXPIRING_NOTICE_DAYS);
  return { expiringFrom: expiring, expiringAt: wibMidnight(expiring), unsellableFrom: unsellable, unsellableAt: wibMidnight(unsellable) };
}

/**
 * True when, on `today`, a lot is 7 days or fewer from becoming unsellable (or already is): its
 * `stock.lot_expiring` notice is due, if not sent yet.
 *
 * @example isLotExpiringDue({ expiryDate: '2026-03-31' }, '2026-02-23', 30) === true
 */
export function isLotExpiringDue(lot: LotExpiry, today: string, outboundExpired: number): boolean {
  const schedule = lotExpirySchedule(lot, outboundExpired);
  return schedule !== null && today >= schedule.expiringFrom;
}

/** A lot's figures on a day, as `GET /stock/lots` shows them. */
export interface LotFigures {
  daysLeft: number | null;
  sellable: boolean;
  /** Good units not reserved, when the lot is not sellable; else 0. */
  shortDated: Dec;
  /** good - reserved - shortDated: 0 when the lot is not sellable. */
  available: Dec;
}

/**
 * A lot's days left, sellability, short-dated and available quantities on `today`. Reserved units
 * of an unsellable lot are not short-dated: they were allocated while the lot was sellable and
 * stay allocated.
 *
 * @example lotFigures({ lotNumber: 'B1', expiryDate: '2026-03-01', good: dec(10), reserved: dec(3) }, '2026-03-01', 0).shortDated.toFixed() === '7'
 */
export function lotFigures(lot: LotStock, today: string, outboundExpired: number): LotFigures {
  const left = lotDaysLeft(lot, today);
  const sellable = isSellable(lot, today, outboundExpired);
  const free = lot.good.minus(lot.reserved);
  return sellable ? { daysLeft: left, sellable, shortDated: ZERO, available: free } : { daysLeft: left, sellable, shortDated: free, available: ZERO };
}

/** A stock row's figures summed over its lots. */
export interface RowLotFigures {
  shortDated: Dec;
  available: Dec;
}

/**
 * A lot-tracked stock row's `short_dated` and `available` on `today`: the sums over its lots at
 * that location. With the row being the sum of its lots, `available` equals
 * `good - reserved - short_dated` of the row. (A product without lots has short_dated 0.)
 *
 * @example rowLotFigures(lotsOfRow, wibDate(now), product.outboundExpired).shortDated
 */
export function rowLotFigures(lots: readonly LotStock[], today: string, outboundExpired: number): RowLotFigures {
  let shortDated = ZERO;
  let available = ZERO;
  for (const lot of lots) {
    const figures = lotFigures(lot, today, outboundExpired);
    shortDated = shortDated.plus(figures.shortDated);
    available = available.plus(figures.available);
  }
  return { shortDated, available };
}

// ---------------------------------------------------------------------------------------------
// Receiving

/**
 * A receipt line refused for too little shelf life, as data: the figures a caller may need (the
 * minimum, the days left) besides the refusal. `shelfLifeError` turns it into the
 * SHELF_LIFE_TOO_SHORT refusal every transport maps (422 on the gateway).
 */
export interface ShelfLifeShortfall {
  kind: 'SHELF_LIFE_TOO_SHORT';
  field: string;
  issue: string;
  /** The product's `inbound_expired`. */
  minimum: number;
  /** The lot's days left on the receipt date. */
  daysLeft: number;
}

/**
 * Receiving: a lot whose days left on `receiptDate` (the WIB date of the receipt) are below the
 * product's `inbound_expired` is refused on `field` (the line's `expiry_date`); null when it has
 * enough, or has no expiry date. Adjustments are corrections and are not held to this.
 *
 * @example checkShelfLife({ expiryDate: '2026-03-10' }, 30, '2026-03-01', 'items[0].expiry_date')?.daysLeft === 9
 */
export function checkShelfLife(lot: LotExpiry, inboundExpired: number, receiptDate: string, field: string): ShelfLifeShortfall | null {
  const left = lotDaysLeft(lot, receiptDate);
  if (left === null || left >= inboundExpired) return null;
  const issue = `the lot has ${left} days of shelf life left on ${receiptDate}; at least ${inboundExpired} are required on receipt`;
  return { kind: 'SHELF_LIFE_TOO_SHORT', field, issue, minimum: inboundExpired, daysLeft: left };
}

const dayCount = (days: number): string => `${days} day${days === 1 ? '' : 's'}`;

/**
 * The SHELF_LIFE_TOO_SHORT refusal of a shortfall, on the line's `expiry_date`; its message names
 * the minimum and the lot's days left. Nothing of the receipt is applied (the caller refuses the
 * whole receipt with it).
 *
 * @example
 * const shortfall = checkShelfLife(lot, product.inboundExpired, wibDate(now), lotLineFields('items[0]').expiryDate);
 * if (shortfall) return fail(shelfLifeError(shortfall));
 */
export function shelfLifeError(shortfall: ShelfLifeShortfall): DomainError {
  const left = shortfall.daysLeft < 0 ? `expired ${dayCount(-shortfall.daysLeft)} before receipt` : `${dayCount(shortfall.daysLeft)} of shelf life left on receipt`;
  const message = `${shortfall.field}: the lot has ${left}; the product requires at least ${dayCount(shortfall.minimum)}`;
  return domainError('SHELF_LIFE_TOO_SHORT', message, { field: shortfall.field, issue: shortfall.issue });
}
