import { describe, expect, it } from 'vitest';
import { isoDate, isoMicros, isoMillis } from './time-format.js';

const t = new Date('2026-01-31T08:15:30.123Z');

describe('isoMillis', () => {
  it('is ISO 8601 in UTC with milliseconds and Z', () => {
    expect(isoMillis(t)).toBe('2026-01-31T08:15:30.123Z');
    expect(isoMillis(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
    expect(isoMillis(new Date('2026-01-31T15:15:30.123+07:00'))).toBe('2026-01-31T08:15:30.123Z');
  });
});

describe('isoMicros', () => {
  it('carries six fractional digits, the last three zero', () => {
    expect(isoMicros(t)).toBe('2026-01-31T08:15:30.123000Z');
    expect(isoMicros(new Date(0))).toBe('1970-01-01T00:00:00.000000Z');
    expect(isoMicros(new Date('2026-02-01T05:00:00.5+07:00'))).toMatch(/^2026-01-31T22:00:00\.500000Z$/);
  });
});

describe('isoDate', () => {
  it('is the UTC calendar date', () => {
    expect(isoDate(t)).toBe('2026-01-31');
    expect(isoDate(new Date('2026-01-31T23:59:59.999Z'))).toBe('2026-01-31');
    expect(isoDate(new Date('2026-02-01T05:00:00+07:00'))).toBe('2026-01-31');
    expect(isoDate(new Date('2024-02-29T12:00:00Z'))).toBe('2024-02-29');
  });
});
