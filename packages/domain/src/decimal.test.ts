import { describe, expect, it } from 'vitest';
import {
  Dec,
  INPUT_DECIMALS,
  QUANTITY_SCALE,
  ZERO,
  dec,
  decimalPlaces,
  fromScaled,
  hasAtMostDecimals,
  isExactAsJsonNumber,
  multiply,
  sum,
  toFixedString,
  toJsonNumber,
  toPlainString,
  toScaled,
} from './decimal.js';

/** A 64-bit linear congruential generator with a fixed seed, so the "random" values are the same on every run. */
function* lcg(seed: bigint): Generator<bigint, never, void> {
  const mask = (1n << 64n) - 1n;
  let state = seed & mask;
  for (;;) {
    state = (state * 6364136223846793005n + 1442695040888963407n) & mask;
    yield state >> 16n;
  }
}

/** The decimal text of an integer scaled by 10^4, computed with BigInt only. */
function scaledBigIntToText(scaled: bigint): string {
  const negative = scaled < 0n;
  const abs = negative ? -scaled : scaled;
  const whole = abs / 10_000n;
  const frac = (abs % 10_000n).toString().padStart(4, '0');
  return `${negative ? '-' : ''}${whole}.${frac}`;
}

describe('exact arithmetic', () => {
  it('3 x 0.1 is exactly 0.3 (binary floats would give 0.30000000000000004)', () => {
    expect(0.1 * 3).not.toBe(0.3);
    expect(multiply(3, '0.1').toString()).toBe('0.3');
    expect(multiply('0.1', 3).equals('0.3')).toBe(true);
    expect(sum(['0.1', '0.1', '0.1']).toString()).toBe('0.3');
    expect(sum([0.1, 0.2]).toString()).toBe('0.3');
  });

  it('2 x 19.99 is exactly 39.98 and serialises as the JSON number 39.98', () => {
    const total = multiply(2, '19.99');
    expect(total.toString()).toBe('39.98');
    expect(toJsonNumber(total)).toBe(39.98);
    expect(JSON.stringify({ total_cost: toJsonNumber(total) })).toBe('{"total_cost":39.98}');
  });

  it('a sum of 10,000 lines of 0.1 is exactly 1000', () => {
    const lines = Array.from({ length: 10_000 }, () => '0.1');
    let floatTotal = 0;
    for (let i = 0; i < 10_000; i += 1) floatTotal += 0.1;
    expect(floatTotal).not.toBe(1000);
    expect(sum(lines).toString()).toBe('1000');
    expect(toJsonNumber(sum(lines))).toBe(1000);
    expect(sum(Array.from({ length: 10_000 }, () => 0.1)).toString()).toBe('1000');
  });

  it('a sum of 10,000 pseudo-random 4-decimal values equals the total computed with BigInt on scaled integers', () => {
    const random = lcg(20260131n);
    const texts: string[] = [];
    let expected = 0n;
    for (let i = 0; i < 10_000; i += 1) {
      const r = random.next().value;
      // Up to 99,999,999.9999, either sign.
      const magnitude = r % 1_000_000_000_000n;
      const scaled = (r >> 45n) % 2n === 0n ? magnitude : -magnitude;
      expected += scaled;
      texts.push(scaledBigIntToText(scaled));
    }
    expect(new Set(texts).size).toBeGreaterThan(9_990);
    expect(texts.some((t) => t.startsWith('-'))).toBe(true);
    expect(texts.some((t) => !t.startsWith('-'))).toBe(true);
    const total = sum(texts);
    expect(total.toFixed(4)).toBe(scaledBigIntToText(expected));
    expect(total.equals(scaledBigIntToText(expected))).toBe(true);
    expect(BigInt(toScaled(total))).toBe(expected);
    // The same values summed as stored integers give the same total.
    expect(sum(texts.map((t) => fromScaled(toScaled(t)))).equals(total)).toBe(true);
  });

  it('sum of nothing is zero', () => {
    expect(sum([]).isZero()).toBe(true);
    expect(ZERO.toString()).toBe('0');
  });

  it('dec accepts strings, numbers and Dec values, returning a Dec as is', () => {
    const d = new Dec('1.25');
    expect(dec(d)).toBe(d);
    expect(dec('1.25').equals(d)).toBe(true);
    expect(dec(1.25).equals(d)).toBe(true);
  });

  it('prints small and large values without exponent notation', () => {
    expect(dec('0.0000001').toString()).toBe('0.0000001');
    expect(dec('123456789012345678901234567890').toString()).toBe('123456789012345678901234567890');
  });
});

describe('decimal places', () => {
  it('inputs and storage both use 4 decimals', () => {
    expect(INPUT_DECIMALS).toBe(4);
    expect(QUANTITY_SCALE).toBe(4);
  });

  it('decimalPlaces ignores trailing zeros', () => {
    expect(decimalPlaces('1.2300')).toBe(2);
    expect(decimalPlaces('100')).toBe(0);
    expect(decimalPlaces('1e-7')).toBe(7);
    expect(decimalPlaces(0.0001)).toBe(4);
  });

  it('hasAtMostDecimals accepts up to the limit and refuses beyond it', () => {
    expect(hasAtMostDecimals('1.2345', 4)).toBe(true);
    expect(hasAtMostDecimals('1.23450000', 4)).toBe(true);
    expect(hasAtMostDecimals('1.23456', 4)).toBe(false);
    expect(hasAtMostDecimals('0.00001', 4)).toBe(false);
    expect(hasAtMostDecimals(7, 0)).toBe(true);
    expect(hasAtMostDecimals('0.5', 0)).toBe(false);
    expect(hasAtMostDecimals(dec('19.99'), 2)).toBe(true);
  });

  it('hasAtMostDecimals refuses values that are not finite', () => {
    expect(hasAtMostDecimals('NaN', 4)).toBe(false);
    expect(hasAtMostDecimals('Infinity', 4)).toBe(false);
    expect(hasAtMostDecimals(Number.NEGATIVE_INFINITY, 4)).toBe(false);
  });
});

describe('toScaled / fromScaled', () => {
  it('stores a quantity as an integer of value x 10^4', () => {
    expect(toScaled('1.5')).toBe(15_000);
    expect(toScaled('0.0001')).toBe(1);
    expect(toScaled('-2.25')).toBe(-22_500);
    expect(toScaled(0)).toBe(0);
    expect(toScaled(12.3456)).toBe(123_456);
    expect(toScaled(dec('19.99'))).toBe(199_900);
    expect(toScaled('1.50000000')).toBe(15_000);
  });

  it('reads a stored integer back as its exact value, from a number, bigint or string', () => {
    expect(fromScaled(15_000).toString()).toBe('1.5');
    expect(fromScaled(15_000n).toString()).toBe('1.5');
    expect(fromScaled('15000').toString()).toBe('1.5');
    expect(fromScaled(1).toString()).toBe('0.0001');
    expect(fromScaled(-22_500).toString()).toBe('-2.25');
    expect(fromScaled(0).isZero()).toBe(true);
  });

  it('reads a safe integer exactly as the division by 10^4 does, at every magnitude and sign', () => {
    const samples = [0, 1, -1, 9, 10, 99, 100, 999, 1000, 9999, 10_000, 10_001, -10_001, 123_456_789, -5, 50_000, Number.MAX_SAFE_INTEGER, -Number.MAX_SAFE_INTEGER];
    for (let i = 0; i < 2000; i += 1) samples.push(Math.round((Math.random() - 0.5) * 2 * 10 ** (i % 16)));
    for (const scaled of samples) {
      const divided = new Dec(String(scaled)).dividedBy(10_000);
      expect(fromScaled(scaled).equals(divided), String(scaled)).toBe(true);
      expect(fromScaled(scaled).toFixed()).toBe(divided.toFixed());
    }
    expect(fromScaled(-0).toFixed()).toBe('0');
  });

  it('stores every value of up to four places as the multiplication by 10^4 does, at every magnitude and sign', () => {
    const samples = ['0', '-0', '0.1', '-0.0001', '1e3', '2.5e-3', '-7.10', '000123.4500'];
    for (let i = 0; i < 2000; i += 1) {
      const whole = String(Math.floor(Math.random() * 10 ** (i % 12)));
      const places = i % 5;
      const fraction = places === 0 ? '' : `.${String(Math.floor(Math.random() * 10 ** places)).padStart(places, '0')}`;
      samples.push(`${i % 2 === 0 ? '-' : ''}${whole}${fraction}`);
    }
    for (const text of samples) {
      const multiplied = Number(new Dec(text).times(10_000).toFixed());
      expect(toScaled(text), text).toBe(multiplied);
      expect(toScaled(new Dec(text)), text).toBe(multiplied);
    }
  });

  it('round trips values through storage', () => {
    for (const v of ['0', '0.0001', '1', '19.99', '-3.1415', '123456.7891', '900719925474.0991', '-900719925474.0991']) {
      expect(fromScaled(toScaled(v)).toFixed()).toBe(dec(v).toFixed());
    }
    for (const n of [0, 1, -1, 399_800, 123_456_789, Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]) {
      expect(toScaled(fromScaled(n))).toBe(n);
    }
    expect(toScaled('900719925474.0991')).toBe(Number.MAX_SAFE_INTEGER);
  });

  it('throws a RangeError for more than 4 decimals', () => {
    expect(() => toScaled('0.00001')).toThrow(RangeError);
    expect(() => toScaled('1.23456')).toThrow('quantity 1.23456 has more than 4 decimals');
    expect(() => toScaled(0.12345)).toThrow(RangeError);
    // A 41st significant digit must not be rounded away by the 40-digit precision.
    expect(() => toScaled('1.00000000000000000000000000000000000000001')).toThrow(/more than 4 decimals/);
  });

  it('throws a RangeError for values that are not finite', () => {
    expect(() => toScaled('NaN')).toThrow(RangeError);
    expect(() => toScaled('Infinity')).toThrow(RangeError);
  });

  it('throws a RangeError beyond the safe integer range', () => {
    expect(() => toScaled('900719925474.0992')).toThrow('quantity 900719925474.0992 is out of range');
    expect(() => toScaled('-900719925474.0992')).toThrow(RangeError);
    expect(() => toScaled('1e20')).toThrow(/out of range/);
  });
});

describe('toFixedString', () => {
  it('rounds half to even', () => {
    expect(toFixedString('1.005', 2)).toBe('1.00');
    expect(toFixedString('1.015', 2)).toBe('1.02');
    expect(toFixedString('1.025', 2)).toBe('1.02');
    expect(toFixedString('1.0251', 2)).toBe('1.03');
    expect(toFixedString('2.5', 0)).toBe('2');
    expect(toFixedString('3.5', 0)).toBe('4');
    expect(toFixedString('-2.5', 0)).toBe('-2');
    expect(toFixedString('-1.015', 2)).toBe('-1.02');
  });

  it('pads to the requested places', () => {
    expect(toFixedString('7', 2)).toBe('7.00');
    expect(toFixedString(19.9, 2)).toBe('19.90');
    expect(toFixedString('-6.2', 8)).toBe('-6.20000000');
    expect(toFixedString('106.8166666666666', 8)).toBe('106.81666667');
  });
});

describe('toPlainString', () => {
  it('never uses exponent notation, however tiny or huge the value', () => {
    expect(toPlainString(dec('1e-7'))).toBe('0.0000001');
    expect(toPlainString('1e-50')).toBe(`0.${'0'.repeat(49)}1`);
    expect(toPlainString('1e50')).toBe(`1${'0'.repeat(50)}`);
    expect(toPlainString(1e21)).toBe('1000000000000000000000');
    expect(toPlainString(1e-7)).toBe('0.0000001');
    expect(toPlainString('-2.5e-8')).toBe('-0.000000025');
  });

  it('drops trailing zeros and keeps the exact digits', () => {
    expect(toPlainString('123.4500')).toBe('123.45');
    expect(toPlainString('100')).toBe('100');
    expect(toPlainString(multiply('0.3333', 3))).toBe('0.9999');
  });
});

describe('toJsonNumber', () => {
  it('gives the shortest JSON number for the exact value', () => {
    expect(toJsonNumber(fromScaled(399_800))).toBe(39.98);
    expect(toJsonNumber(sum(['0.1', '0.2']))).toBe(0.3);
    expect(toJsonNumber('1.5000')).toBe(1.5);
    expect(toJsonNumber('-0.0001')).toBe(-0.0001);
    expect(toJsonNumber(0)).toBe(0);
  });
});

describe('isExactAsJsonNumber', () => {
  it.each(['0', '99999999999.9999', '999999999999999', '1e24', '0.00000001', '-123.45', '152415765279684e-8'])('%s has at most 15 significant digits', (value) => {
    expect(isExactAsJsonNumber(value)).toBe(true);
  });

  it.each(['1999999999999998', '9999999999999.9999', '0.1234567890123456', '1e400', '1e-320'])('%s does not', (value) => {
    expect(isExactAsJsonNumber(value)).toBe(false);
  });

  it('matches what a JSON round trip keeps, over many values of 15 and of 17 digits', () => {
    const random = lcg(20260131n);
    for (let i = 0; i < 2000; i += 1) {
      const digits = (random.next().value % 10n ** 15n).toString().padStart(15, '1');
      const exponent = Number(random.next().value % 20n) - 8;
      const value = dec(`${digits}e${exponent}`);
      expect(isExactAsJsonNumber(value)).toBe(true);
      expect(dec(JSON.stringify(toJsonNumber(value))).eq(value), value.toFixed()).toBe(true);
    }
    // 17 digits: refused, and a round trip would indeed alter some of them.
    const altered = ['9007199254740993', '0.30000000000000004', '12345678901234567'].map((v) => dec(v)).filter((v) => !dec(JSON.stringify(toJsonNumber(v))).eq(v));
    expect(altered.length).toBeGreaterThan(0);
    for (const value of altered) expect(isExactAsJsonNumber(value)).toBe(false);
  });
});
