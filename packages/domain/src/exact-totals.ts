// Line totals (quantity x price) and document totals that stay exact as JSON numbers (contract
// docs/input-rules.md#quantities-and-totals): a total past 15 significant digits is refused on the line or on `items`.
import { type Dec, EXACT_JSON_DIGITS, isExactAsJsonNumber, multiply, sum, toPlainString } from './decimal.js';

/** A line with its quantity and the price it is valued at. */
export interface PricedLine {
  quantity: Dec;
  price: Dec;
}

/** The exact totals of priced lines. */
export interface PricedTotals {
  /** quantity x price per line. */
  lineTotals: Dec[];
  /** The sum of the line totals. */
  total: Dec;
  /** The sum of the quantities. */
  totalQuantity: Dec;
}

/** A total that would not be exact, named as the input path that caused it. */
export interface InexactTotal {
  /** `['items', 3, 'quantity']` for a line, `['items']` for a document total. */
  path: (string | number)[];
  /** The same path in the contract's form: `items[3].quantity`, `items`. */
  field: string;
  issue: string;
}

/**
 * Exact line totals and their sums.
 *
 * @example pricedTotals([{ quantity: dec('3'), price: dec('19.99') }]).total.toFixed() === '59.97'
 */
export function pricedTotals(lines: readonly PricedLine[]): PricedTotals {
  const lineTotals = lines.map((line) => multiply(line.quantity, line.price));
  return { lineTotals, total: sum(lineTotals), totalQuantity: sum(lines.map((line) => line.quantity)) };
}

const TOO_PRECISE = `has more than ${EXACT_JSON_DIGITS} significant digits, so it would not be exact as a JSON number`;

/**
 * Every total that a response would show inexactly. A line's own total is refused on its
 * `quantity` (the input that made it too precise, with the price it was valued at named in
 * `priceName`); the document's sums are refused on `items`, and only when every line is fine.
 * `totalQuantity: true` checks the sum of the quantities too (transfers show it).
 *
 * @example
 * inexactTotals(pricedTotals(lines), { priceName: 'unit_cost', totalQuantity: false })
 * // [{ path: ['items', 0, 'quantity'], field: 'items[0].quantity', issue: 'quantity x unit_cost = 152415787.50190521 has more than 15 ...' }]
 */
export function inexactTotals(totals: PricedTotals, options: { priceName: string; totalQuantity: boolean }): InexactTotal[] {
  const found: InexactTotal[] = [];
  totals.lineTotals.forEach((lineTotal, index) => {
    if (!isExactAsJsonNumber(lineTotal)) {
      found.push({ path: ['items', index, 'quantity'], field: `items[${index}].quantity`, issue: `quantity x ${options.priceName} = ${toPlainString(lineTotal)} ${TOO_PRECISE}` });
    }
  });
  if (found.length > 0) return found;
  if (!isExactAsJsonNumber(totals.total)) {
    found.push({ path: ['items'], field: 'items', issue: `the lines add up to ${toPlainString(totals.total)}, which ${TOO_PRECISE}` });
  } else if (options.totalQuantity && !isExactAsJsonNumber(totals.totalQuantity)) {
    found.push({ path: ['items'], field: 'items', issue: `the quantities add up to ${toPlainString(totals.totalQuantity)}, which ${TOO_PRECISE}` });
  }
  return found;
}
