import { describe, expect, it } from 'vitest';
import { addDays, daysLeft, isCalendarDate, wibDate, wibMidnight } from './wib-calendar.js';

describe('isCalendarDate', () => {
  it.each(['2026-01-31', '2024-02-29', '2000-02-29', '1900-02-28', '9999-12-31', '0001-01-01', '2025-04-30'])('accepts %s', (date) => {
    expect(isCalendarDate(date)).toBe(true);
  });

  it.each([
    ['a day past the month', '2025-09-31'],
    ['29 February of a common year', '2025-02-29'],
    ['29 February of a century that is not a leap year', '1900-02-29'],
    ['month 13', '2026-13-01'],
    ['month 0', '2026-00-10'],
    ['day 0', '2026-01-00'],
    ['one-digit parts', '2026-1-5'],
    ['a timestamp', '2026-01-31T00:00:00Z'],
    ['a five-digit year', '10000-01-01'],
    ['surrounding spaces', ' 2026-01-31'],
    ['an empty text', ''],
  ])('refuses %s', (_, date) => {
    expect(isCalendarDate(date)).toBe(false);
  });
});

describe('wibDate', () => {
  it('turns to the next day at 17:00 UTC, midnight in Jakarta', () => {
    expect(wibDate('2026-01-31T16:59:59.999Z')).toBe('2026-01-31');
    expect(wibDate('2026-01-31T17:00:00.000Z')).toBe('2026-02-01');
    expect(wibDate(new Date('2026-02-01T00:00:00.000Z'))).toBe('2026-02-01');
  });

  it('counts an instant given with another offset by its moment, not its text', () => {
    expect(wibDate('2026-01-31T23:30:00+07:00')).toBe('2026-01-31');
    expect(wibDate('2026-01-31T12:30:00-05:00')).toBe('2026-02-01');
  });

  it('reaches 29 February and the new year across midnight WIB', () => {
    expect(wibDate('2024-02-28T17:00:00.000Z')).toBe('2024-02-29');
    expect(wibDate('2025-12-31T17:00:00.000Z')).toBe('2026-01-01');
  });

  it('throws on what is not an instant (a caller bug, never input)', () => {
    expect(() => wibDate('yesterday')).toThrow(RangeError);
    expect(() => wibDate(new Date(Number.NaN))).toThrow(RangeError);
  });
});

describe('wibMidnight', () => {
  it('is 17:00 UTC of the day before', () => {
    expect(wibMidnight('2026-02-01').toISOString()).toBe('2026-01-31T17:00:00.000Z');
    expect(wibMidnight('2024-03-01').toISOString()).toBe('2024-02-29T17:00:00.000Z');
    expect(wibMidnight('2026-01-01').toISOString()).toBe('2025-12-31T17:00:00.000Z');
  });

  it('begins the day wibDate names, and the millisecond before is the day before', () => {
    const start = wibMidnight('2024-02-29');
    expect(wibDate(start)).toBe('2024-02-29');
    expect(wibDate(new Date(start.getTime() - 1))).toBe('2024-02-28');
  });

  it('keeps years below 100 as they are', () => {
    expect(wibMidnight('0050-06-15').toISOString()).toBe('0050-06-14T17:00:00.000Z');
  });

  it('throws on a text that is not a calendar date', () => {
    expect(() => wibMidnight('2025-02-29')).toThrow(RangeError);
  });
});

describe('addDays', () => {
  it('steps over month ends and leap days', () => {
    expect(addDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addDays('2024-02-29', 1)).toBe('2024-03-01');
    expect(addDays('2025-02-28', 1)).toBe('2025-03-01');
    expect(addDays('2024-03-01', -1)).toBe('2024-02-29');
    expect(addDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addDays('2026-01-31', 0)).toBe('2026-01-31');
    expect(addDays('2024-01-01', 366)).toBe('2025-01-01');
  });

  it('throws on a fraction of a day', () => {
    expect(() => addDays('2026-01-31', 0.5)).toThrow(RangeError);
  });
});

describe('daysLeft', () => {
  it('is expiry minus today in whole days: 0 on the day, negative after', () => {
    expect(daysLeft('2026-03-01', '2026-02-27')).toBe(2);
    expect(daysLeft('2026-03-01', '2026-03-01')).toBe(0);
    expect(daysLeft('2026-03-01', '2026-03-03')).toBe(-2);
  });

  it('counts 29 February in a leap year only', () => {
    expect(daysLeft('2024-03-01', '2024-02-28')).toBe(2);
    expect(daysLeft('2025-03-01', '2025-02-28')).toBe(1);
    expect(daysLeft('2025-01-01', '2024-01-01')).toBe(366);
    expect(daysLeft('2101-01-01', '2100-01-01')).toBe(365);
  });

  it('uses the WIB day of now: one instant apart across 17:00 UTC is one day less', () => {
    expect(daysLeft('2026-02-10', wibDate('2026-01-31T16:59:59.999Z'))).toBe(10);
    expect(daysLeft('2026-02-10', wibDate('2026-01-31T17:00:00.000Z'))).toBe(9);
  });

  it('throws on a stored date that is not one', () => {
    expect(() => daysLeft('2026-02-30', '2026-02-01')).toThrow(RangeError);
  });
});
