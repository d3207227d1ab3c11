import { describe, expect, it } from 'vitest';
import { calendarDate, calendarDateInput, isoTimestampInput, microsecondTimestamp, timestamp } from './date-schemas.js';
import { check } from './testing/check.js';

describe('calendarDate', () => {
  it.each(['2024-02-29', '2026-01-31', '2000-02-29'])('accepts the real date %s', (date) => {
    expect(check(calendarDate, date)).toEqual({ value: date });
  });

  it.each(['2025-09-31', '2025-02-29', '2100-02-29', '2025-13-01', '2025-1-01', '2025-01-01T00:00:00Z', 20250101])(
    'refuses %s',
    (date) => {
      expect(check(calendarDate, date)).toEqual({ refused: 'must be a real calendar date in YYYY-MM-DD form' });
    },
  );

  it('says a missing date is required', () => {
    expect(check(calendarDate, undefined)).toEqual({ refused: 'is required' });
  });
});

describe('calendarDateInput', () => {
  it.each(['1900-01-01', '2024-02-29', '9999-12-31'])('accepts %s', (date) => {
    expect(check(calendarDateInput, date)).toEqual({ value: date });
  });

  it.each(['0000-01-01', '0001-01-01', '1899-12-31', '10000-01-01', '99999-01-01'])('refuses %s as out of range', (date) => {
    expect(check(calendarDateInput, date)).toEqual({ refused: 'must be a date from 1900-01-01 to 9999-12-31' });
  });

  it('still refuses dates that do not exist, and says a missing one is required', () => {
    expect(check(calendarDateInput, '2025-02-29')).toEqual({ refused: 'must be a real calendar date in YYYY-MM-DD form' });
    expect(check(calendarDateInput, '2025-01-01\u0000')).toEqual({ refused: 'must be a real calendar date in YYYY-MM-DD form' });
    expect(check(calendarDateInput, undefined)).toEqual({ refused: 'is required' });
  });

  it('leaves the response form alone: calendarDate reads any stored date', () => {
    expect(check(calendarDate, '1899-12-31')).toEqual({ value: '1899-12-31' });
  });
});

describe('timestamps', () => {
  it('timestamp is UTC with milliseconds, as toISOString prints it', () => {
    expect(check(timestamp, new Date(0).toISOString())).toEqual({ value: '1970-01-01T00:00:00.000Z' });
    for (const bad of ['2026-01-31T08:15:30Z', '2026-01-31T08:15:30.123+07:00', '2026-01-31T08:15:30.123456Z']) {
      expect(check(timestamp, bad)).toEqual({ refused: 'must be an ISO 8601 UTC timestamp with milliseconds' });
    }
  });

  it('microsecondTimestamp has six fractional digits', () => {
    expect(check(microsecondTimestamp, '2026-01-31T08:15:30.123000Z')).toEqual({ value: '2026-01-31T08:15:30.123000Z' });
    expect(check(microsecondTimestamp, '2026-01-31T08:15:30.123Z')).toHaveProperty('refused');
  });

  it('isoTimestampInput takes Z or an offset, any precision, and refuses a local time', () => {
    for (const good of ['2026-01-31T08:15:30Z', '2026-01-31T15:15:30+07:00', '2026-01-31T08:15:30.5Z']) {
      expect(check(isoTimestampInput, good)).toEqual({ value: good });
    }
    expect(check(isoTimestampInput, '2026-01-31T08:15:30')).toEqual({
      refused: 'must be an ISO 8601 timestamp with Z or an offset',
    });
    expect(check(isoTimestampInput, '2026-02-30T08:15:30Z')).toHaveProperty('refused');
  });

  it('isoTimestampInput takes instants from 1900 to 9999 in UTC, offsets counted', () => {
    for (const good of ['1900-01-01T00:00:00Z', '1900-01-01T07:00:00+07:00', '9999-12-31T23:59:59.999Z']) {
      expect(check(isoTimestampInput, good)).toEqual({ value: good });
    }
    const outside = 'must be a time from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z';
    for (const bad of ['0000-01-01T00:00:00Z', '1899-12-31T23:59:59Z', '1900-01-01T00:30:00+01:00', '9999-12-31T23:00:00-05:00']) {
      expect(check(isoTimestampInput, bad)).toEqual({ refused: outside });
    }
    expect(check(isoTimestampInput, '10000-01-01T00:00:00Z')).toEqual({ refused: 'must be a date from 1900-01-01 to 9999-12-31' });
  });
});
