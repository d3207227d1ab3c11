import { describe, expect, it } from 'vitest';
import { formatDocumentNumber, parseDocumentNumber } from './document-number.js';

const at = new Date('2026-11-22T10:00:00Z');

describe('formatDocumentNumber', () => {
  it('is PREFIX-YYYYMMDD-NNNNNN', () => {
    expect(formatDocumentNumber('ADJ', at, 42)).toBe('ADJ-20261122-000042');
    expect(formatDocumentNumber('TRF', at, 42)).toBe('TRF-20261122-000042');
    expect(formatDocumentNumber('ADJ', new Date('2026-01-05T00:00:00Z'), 7)).toBe('ADJ-20260105-000007');
  });

  it('pads the sequence to six digits', () => {
    expect(formatDocumentNumber('ADJ', at, 1)).toBe('ADJ-20261122-000001');
    expect(formatDocumentNumber('ADJ', at, 123456)).toBe('ADJ-20261122-123456');
    expect(formatDocumentNumber('ADJ', at, 999999)).toBe('ADJ-20261122-999999');
  });

  it('widens rather than wraps past 999999', () => {
    expect(formatDocumentNumber('TRF', at, 1_000_000)).toBe('TRF-20261122-1000000');
    expect(formatDocumentNumber('TRF', at, 12_345_678)).toBe('TRF-20261122-12345678');
  });

  it('uses the UTC date, not the local one', () => {
    // 03:00 on 1 January in UTC+7 is still 31 December in UTC.
    expect(formatDocumentNumber('ADJ', new Date('2027-01-01T03:00:00+07:00'), 1)).toBe('ADJ-20261231-000001');
    expect(formatDocumentNumber('ADJ', new Date('2027-01-01T06:59:59.999+07:00'), 1)).toBe('ADJ-20261231-000001');
    expect(formatDocumentNumber('ADJ', new Date('2027-01-01T07:00:00+07:00'), 1)).toBe('ADJ-20270101-000001');
  });

  it('gives the UTC date whatever the process time zone', () => {
    const saved = process.env['TZ'];
    try {
      process.env['TZ'] = 'Asia/Jakarta';
      const lateInUtc = new Date('2026-12-31T20:00:00Z');
      expect(lateInUtc.getDate()).toBe(1); // the process really is in UTC+7 now
      expect(formatDocumentNumber('TRF', lateInUtc, 5)).toBe('TRF-20261231-000005');
    } finally {
      if (saved === undefined) delete process.env['TZ'];
      else process.env['TZ'] = saved;
    }
  });

  it.each([0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 53])('refuses the sequence %s', (sequence) => {
    expect(() => formatDocumentNumber('ADJ', at, sequence)).toThrow(RangeError);
  });

  it('accepts the largest safe sequence', () => {
    expect(formatDocumentNumber('ADJ', at, Number.MAX_SAFE_INTEGER)).toBe(`ADJ-20261122-${Number.MAX_SAFE_INTEGER}`);
  });
});

describe('parseDocumentNumber', () => {
  it('gives back the parts a number was formatted from', () => {
    for (const [prefix, sequence] of [
      ['ADJ', 1],
      ['TRF', 42],
      ['ADJ', 999_999],
      ['TRF', 1_000_000],
    ] as const) {
      expect(parseDocumentNumber(formatDocumentNumber(prefix, at, sequence))).toStrictEqual({ prefix, day: '20261122', sequence });
    }
  });

  it.each([
    '',
    'ADJ-20261122',
    'ADJ-2026112-000001',
    'ADJ-20261122-00001',
    'XYZ-20261122-000001',
    'adj-20261122-000001',
    'ADJ_20261122_000001',
    ' ADJ-20261122-000001',
    'ADJ-20261122-000001 ',
    'ADJ-20261122-000001x',
    'ADJ-2026-11-22-000001',
    '1042',
  ])('is null for %j', (text) => {
    expect(parseDocumentNumber(text)).toBeNull();
  });
});
