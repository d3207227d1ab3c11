// Exact decimal arithmetic for the assertions of the inventory files, independent of the service's
// own decimal library: values become BigInt scaled integers with a fixed number of places.

/** Places the scaled integers carry: 4 for quantities and costs, 8 for their products. */
export const SCALE = 8;

/**
 * A decimal (a JSON number in its shortest form, or a decimal string) as an integer scaled by
 * 10^places. Throws when the value has more places than that or is not a plain decimal.
 *
 * @example scaled('19.99', 4) === 199900n
 */
export function scaled(value: number | string, places = SCALE): bigint {
  const text = typeof value === 'number' ? String(value) : value;
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match) throw new Error(`not a plain decimal: ${text}`);
  const [, sign, whole, fraction = ''] = match;
  if (fraction.length > places) throw new Error(`${text} has more than ${places} places`);
  const digits = BigInt(`${whole}${fraction.padEnd(places, '0')}`);
  return sign === '-' ? -digits : digits;
}

/**
 * The decimal string of a scaled integer, without trailing zeros (`3950000000n, 8` → `'39.5'`).
 *
 * @example unscaled(30000000n) === '0.3'
 */
export function unscaled(value: bigint, places = SCALE): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** The exact product of two decimals with up to `SCALE / 2` places each, scaled by 10^SCALE. */
export function times(a: number | string, b: number | string): bigint {
  return scaled(a, SCALE / 2) * scaled(b, SCALE / 2);
}

/** The exact sum of decimals, scaled by 10^SCALE. */
export function total(values: Iterable<number | string>): bigint {
  let sum = 0n;
  for (const value of values) sum += scaled(value);
  return sum;
}
