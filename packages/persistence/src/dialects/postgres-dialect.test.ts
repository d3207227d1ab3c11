// The pg pool's type parsers, as text in and values out: no server needed.
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { postgresTypeParsers } from './postgres-dialect.js';

const parser = (oid: number) => postgresTypeParsers().getTypeParser(oid, 'text') as (text: string) => unknown;
const timestamptz = parser(pg.types.builtins.TIMESTAMPTZ);
const timestamp = parser(pg.types.builtins.TIMESTAMP);

/** A small seeded generator, so a failure names values that come back on the next run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    // A 32-bit linear congruential step, in integer arithmetic (a plain product would pass 2^53).
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/** The text a UTC session sends for `ms`, with `digits` of microseconds and trailing zeros cut, as the server does. */
function serverText(ms: number, micros: number, digits: number): string {
  const iso = new Date(ms).toISOString();
  const fraction = `${iso.slice(20, 23)}${String(micros).padStart(3, '0')}`.slice(0, digits).replace(/0+$/, '');
  return `${iso.slice(0, 10)} ${iso.slice(11, 19)}${fraction ? `.${fraction}` : ''}+00`;
}

describe('postgresTypeParsers: timestamps', () => {
  it('gives what Date gives for every UTC text the server sends, whole seconds to microseconds', () => {
    const random = seeded(29);
    for (let i = 0; i < 5000; i++) {
      const ms = Math.floor(random() * Date.UTC(2200, 0, 1));
      const text = serverText(ms, Math.floor(random() * 1000), Math.floor(random() * 7));
      expect(timestamptz(text), text).toBe(new Date(text).toISOString());
    }
  });

  it('reads the edges of a fraction: none, one digit, six digits, and the last microsecond of a second', () => {
    expect(timestamptz('2026-11-30 00:08:27+00')).toBe('2026-11-30T00:08:27.000Z');
    expect(timestamptz('2026-11-30 00:08:27.1+00')).toBe('2026-11-30T00:08:27.100Z');
    expect(timestamptz('2026-11-30 00:08:27.123456+00')).toBe('2026-11-30T00:08:27.123Z');
    expect(timestamptz('2026-12-31 23:59:59.999999+00')).toBe('2026-12-31T23:59:59.999Z');
  });

  it('turns a text in another zone into UTC, as a session outside UTC would send it', () => {
    expect(timestamptz('2026-11-30 07:08:27.5+07')).toBe('2026-11-30T00:08:27.500Z');
    expect(timestamptz('2026-11-30 05:38:27+05:30')).toBe('2026-11-30T00:08:27.000Z');
  });

  it('refuses what no ISO string can say, as Date does', () => {
    expect(() => timestamptz('infinity')).toThrow(RangeError);
    expect(() => timestamptz('0044-03-15 12:00:00+00 BC')).toThrow(RangeError);
  });

  it('reads a timestamp without a zone as UTC', () => {
    expect(timestamp('2026-11-30 00:08:27.25')).toBe('2026-11-30T00:08:27.250Z');
    expect(timestamp('2026-11-30 00:08:27')).toBe('2026-11-30T00:08:27.000Z');
  });
});
