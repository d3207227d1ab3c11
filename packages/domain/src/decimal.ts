// Exact decimal arithmetic for quantities and money. Quantities are stored as integers scaled by
// 10^4 (QUANTITY_SCALE); money is stored as a decimal string. Nothing here touches binary floats
// except `toJsonNumber`, which is only for serialising a final value.
import { Decimal } from 'decimal.js';

/** A configured Decimal constructor: 40 significant digits, half-even rounding, no exponent notation in toString. */
export const Dec = Decimal.clone({ precision: 40, rounding: Decimal.ROUND_HALF_EVEN, toExpNeg: -40, toExpPos: 40 });
export type Dec = InstanceType<typeof Dec>;

/** Decimal places a quantity or a unit price may carry on input. */
export const INPUT_DECIMALS = 4;
/** Quantities are stored as integers: value x 10^QUANTITY_SCALE. */
export const QUANTITY_SCALE = 4;
const SCALE_FACTOR = new Dec(10).pow(QUANTITY_SCALE);

export type DecimalInput = Dec | string | number;

/** @example dec('0.1').times(3).toString() === '0.3' */
export function dec(value: DecimalInput): Dec {
  return value instanceof Dec ? value : new Dec(value);
}

export const ZERO = new Dec(0);

/** Exact sum. @example sum(['0.1', '0.2']).toString() === '0.3' */
export function sum(values: Iterable<DecimalInput>): Dec {
  let total = ZERO;
  for (const v of values) total = total.plus(dec(v));
  return total;
}

/** Exact product. @example multiply(2, '19.99').toString() === '39.98' */
export function multiply(a: DecimalInput, b: DecimalInput): Dec {
  return dec(a).times(dec(b));
}

/** Number of digits after the point in the exact value (trailing zeros do not count). */
export function decimalPlaces(value: DecimalInput): number {
  return dec(value).decimalPlaces();
}

/** True for a finite value with at most `places` decimals. */
export function hasAtMostDecimals(value: DecimalInput, places: number): boolean {
  const d = dec(value);
  return d.isFinite() && d.decimalPlaces() <= places;
}

/**
 * The storage form of a quantity: an integer of value x 10^4. Throws on more than 4 decimals or
 * beyond the safe integer range, which validation refuses long before. Read off the exact value's
 * plain digits (one conversion, no decimal arithmetic): the point moved four places right.
 *
 * @example toScaled('1.5') === 15000
 */
export function toScaled(value: DecimalInput): number {
  const d = dec(value);
  if (!d.isFinite()) throw new RangeError(`quantity ${d.toString()} is out of range`);
  const text = d.toFixed();
  const point = text.indexOf('.');
  const places = point < 0 ? 0 : text.length - point - 1;
  if (places > QUANTITY_SCALE) throw new RangeError(`quantity ${text} has more than ${QUANTITY_SCALE} decimals`);
  // The digits with the point left out and zeros made up to four places; a sign stays in front.
  const digits = point < 0 ? text : text.slice(0, point) + text.slice(point + 1);
  const n = Number(digits + ZERO_PLACES[QUANTITY_SCALE - places]);
  // A digit string past 2^53 parses to a number at least 2^53: never a safe integer.
  if (!Number.isSafeInteger(n)) throw new RangeError(`quantity ${text} is out of range`);
  return n;
}

/** '', '0', '00', … up to QUANTITY_SCALE zeros, by count. */
const ZERO_PLACES = Array.from({ length: QUANTITY_SCALE + 1 }, (_, count) => '0'.repeat(count));

const SCALE_DIGITS = 10 ** QUANTITY_SCALE;

/**
 * The value of a stored quantity. A safe integer (every stored quantity) is split into its
 * integer and fraction digits by integer arithmetic, exact, so reading a row costs one decimal
 * parse instead of a decimal division; anything else is divided.
 *
 * @example fromScaled(15000).toString() === '1.5'
 */
export function fromScaled(scaled: number | bigint | string): Dec {
  if (typeof scaled === 'number' && Number.isSafeInteger(scaled)) {
    const abs = Math.abs(scaled);
    const fraction = abs % SCALE_DIGITS;
    const whole = (abs - fraction) / SCALE_DIGITS;
    const text = fraction === 0 ? String(whole) : `${whole}.${String(fraction).padStart(QUANTITY_SCALE, '0')}`;
    return new Dec(scaled < 0 ? `-${text}` : text);
  }
  return new Dec(scaled.toString()).dividedBy(SCALE_FACTOR);
}

/** Plain decimal string, no exponent. @example toPlainString(dec('1e-7')) === '0.0000001' */
export function toPlainString(value: DecimalInput): string {
  return dec(value).toFixed();
}

/** Fixed places, rounded half-even. @example toFixedString('1.005', 2) === '1.00' */
export function toFixedString(value: DecimalInput, places: number): string {
  return dec(value).toFixed(places);
}

/**
 * Significant digits a JSON number can carry and still mean exactly its decimal: any decimal of up
 * to 15 significant digits survives the binary double every JSON parser reads it into, and prints
 * back as the same digits (docs/input-rules.md#quantities-and-totals).
 */
export const EXACT_JSON_DIGITS = 15;

// The normal range of a double, parsed once.
const SMALLEST_NORMAL_JSON = new Dec('1e-307');
const BEYOND_DOUBLE = new Dec('1e308');

/**
 * True when `value`, serialised by `toJsonNumber`, is read back as exactly this decimal: at most 15
 * significant digits (leading and trailing zeros do not count), inside a double's normal range.
 *
 * @example isExactAsJsonNumber('99999999999.9999') === true; isExactAsJsonNumber('9999999999999.9999') === false
 */
export function isExactAsJsonNumber(value: DecimalInput): boolean {
  const d = dec(value);
  if (!d.isFinite()) return false;
  if (d.isZero()) return true;
  const abs = d.abs();
  return d.precision() <= EXACT_JSON_DIGITS && abs.gte(SMALLEST_NORMAL_JSON) && abs.lt(BEYOND_DOUBLE);
}

/**
 * The JSON number for a final exact value. The decimal string is parsed once, so a value such as
 * 39.98 prints as 39.98, never as the float sum 39.980000000000004.
 */
export function toJsonNumber(value: DecimalInput): number {
  return Number(dec(value).toFixed());
}
