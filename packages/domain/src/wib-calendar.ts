// Calendar days in the platform's operating time zone, Asia/Jakarta (WIB: UTC+7 all year, no
// daylight saving). Lot expiry dates, receipt dates and "today" are such days. No clock is read
// here: an instant or a day comes in as a parameter.

/** The time zone whose calendar days expiry dates are counted in. */
export const OPERATING_TIME_ZONE = 'Asia/Jakarta';

/** WIB's offset from UTC in hours; fixed, since Indonesia has no daylight saving time. */
export const WIB_OFFSET_HOURS = 7;

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const WIB_OFFSET_MS = WIB_OFFSET_HOURS * HOUR_MS;
const DATE_SHAPE = /^(\d{4})-(\d{2})-(\d{2})$/;

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return isLeapYear(year) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * True for a `YYYY-MM-DD` text naming a day that exists in the Gregorian calendar: 2024-02-29 is
 * one, 2025-02-29, 1900-02-29 and 2025-09-31 are not. (Bounds such as 1900 to 9999 are
 * `isDateInRange`'s.)
 *
 * @example isCalendarDate('2024-02-29') === true; isCalendarDate('2025-02-29') === false
 */
export function isCalendarDate(text: string): boolean {
  const parts = DATE_SHAPE.exec(text);
  if (!parts) return false;
  const year = Number(parts[1]);
  const month = Number(parts[2]);
  const day = Number(parts[3]);
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

/** Days since 1970-01-01 of a calendar date; throws on a text that is not one (stored dates are checked on the way in). */
function epochDay(date: string): number {
  if (!isCalendarDate(date)) throw new RangeError(`${JSON.stringify(date)} is not a calendar date (YYYY-MM-DD)`);
  const at = new Date(0);
  // setUTCFullYear, unlike Date.UTC, keeps years 0 to 99 as they are.
  at.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return Math.round(at.getTime() / DAY_MS);
}

function dateOfEpochDay(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

function instantMs(instant: Date | string): number {
  const ms = typeof instant === 'string' ? Date.parse(instant) : instant.getTime();
  if (!Number.isFinite(ms)) throw new RangeError(`${String(instant)} is not a valid instant`);
  return ms;
}

/**
 * The WIB calendar date of an instant: the day it is in Jakarta. 17:00 UTC is midnight in WIB.
 *
 * @example wibDate('2026-01-31T16:59:59.999Z') === '2026-01-31'; wibDate('2026-01-31T17:00:00.000Z') === '2026-02-01'
 */
export function wibDate(instant: Date | string): string {
  return new Date(instantMs(instant) + WIB_OFFSET_MS).toISOString().slice(0, 10);
}

/**
 * The instant a WIB calendar date begins (00:00 WIB, 17:00 UTC of the day before): when a lot
 * that becomes unsellable on `date` stops counting as available.
 *
 * @example wibMidnight('2026-02-01').toISOString() === '2026-01-31T17:00:00.000Z'
 */
export function wibMidnight(date: string): Date {
  return new Date(epochDay(date) * DAY_MS - WIB_OFFSET_MS);
}

/**
 * The calendar date `days` days after `date` (before it when negative).
 *
 * @example addDays('2024-02-28', 1) === '2024-02-29'; addDays('2024-03-01', -1) === '2024-02-29'
 */
export function addDays(date: string, days: number): string {
  if (!Number.isInteger(days)) throw new RangeError(`${days} is not a whole number of days`);
  return dateOfEpochDay(epochDay(date) + days);
}

/**
 * Whole days from `today` to `expiryDate` (expiry minus today): 0 on the expiry day itself,
 * negative once it has passed. Both are calendar dates; `today` is the WIB date of now
 * (`wibDate(now)`), which the caller reads from its clock.
 *
 * @example daysLeft('2026-03-01', '2026-02-27') === 2; daysLeft('2026-03-01', '2026-03-03') === -2
 */
export function daysLeft(expiryDate: string, today: string): number {
  return epochDay(expiryDate) - epochDay(today);
}
