// Exact decimals: the quantities and unit costs a client sends, checked on the exact decimal
// (docs/input-rules.md#quantities-and-totals), and the decimal strings of responses.
import { z } from 'zod';
import { type Dec, EXACT_JSON_DIGITS, INPUT_DECIMALS, dec, hasAtMostDecimals, toPlainString } from '@pits/domain';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS } from './text-schemas.js';

// ---------------------------------------------------------------------------------------------
// Inputs

const DECIMAL_TEXT = /^-?\d+(?:\.\d+)?$/;

interface DecimalRule {
  min: string;
  minInclusive: boolean;
  max: string;
  description: string;
}

/**
 * A decimal a client sends as a JSON number or a numeric string. The bounds are checked on the
 * exact decimal, and published on the number form for the OpenAPI document (the string form is
 * described by its pattern and the description).
 */
function decimalInput(rule: DecimalRule) {
  const published = {
    maximum: Number(rule.max),
    ...(rule.minInclusive ? { minimum: Number(rule.min) } : { exclusiveMinimum: Number(rule.min) }),
  };
  // Parsed once here, not on every value checked.
  const min = dec(rule.min);
  const max = dec(rule.max);
  return z
    // The string form may carry leading zeros: the body's size bounds its length.
    .union([z.number().meta(published), z.string().regex(DECIMAL_TEXT, { error: 'must be a number' }).meta({ maxLength: TEXT_LIMITS.echo })], {
      error: requiredOr('must be a number'),
    })
    .transform((value, ctx) => {
      // A JSON number goes through its shortest text so that 0.1 is the decimal 0.1, not a float.
      const amount = dec(typeof value === 'number' ? String(value) : value);
      const refuse = (message: string) => {
        ctx.issues.push({ code: 'custom', message, input: value });
        return z.NEVER;
      };
      if (rule.minInclusive ? amount.lt(min) : amount.lte(min)) {
        return refuse(rule.minInclusive ? `must be at least ${rule.min}` : `must be greater than ${rule.min}`);
      }
      if (!hasAtMostDecimals(amount, INPUT_DECIMALS)) return refuse(`must have at most ${INPUT_DECIMALS} decimal places`);
      if (amount.gt(max)) return refuse(`must be at most ${toPlainString(rule.max)}`);
      // Echoed as a JSON number in responses: more digits would come back altered.
      if (amount.precision() > EXACT_JSON_DIGITS) return refuse(`must have at most ${EXACT_JSON_DIGITS} significant digits`);
      return toPlainString(amount);
    })
    .meta({ description: rule.description });
}

/** The largest quantity a request may carry. */
export const MAX_QUANTITY = '100000000000';
/** The largest unit cost a request may carry. */
export const MAX_UNIT_COST = '10000000000000';

const EXACT_TOTALS = `Every total it takes part in (quantity x price per line, the sum of the lines) must also fit in ${EXACT_JSON_DIGITS} significant digits, so that it is exact as a JSON number; a line past that is refused on its quantity, a document total on items.`;

/**
 * A quantity on input: a JSON number or a numeric string, > 0, at most 4 decimals, at most 1e11
 * (so at most 15 significant digits). The output is the canonical decimal string (`'1.5'`), ready
 * for `toScaled`.
 *
 * @example quantityInput.parse(0.1) === '0.1'
 */
export const quantityInput = decimalInput({
  min: '0',
  minInclusive: false,
  max: MAX_QUANTITY,
  description: `A quantity greater than 0 and at most ${MAX_QUANTITY}, with at most ${INPUT_DECIMALS} decimal places, as a number or a numeric string. ${EXACT_TOTALS}`,
});

/**
 * A counted quantity on input (stock counts): like `quantityInput` but 0 is allowed, since a
 * shelf can be empty. The output is the canonical decimal string.
 *
 * @example countedQuantityInput.parse(0) === '0'
 */
export const countedQuantityInput = decimalInput({
  min: '0',
  minInclusive: true,
  max: MAX_QUANTITY,
  description: `A quantity from 0 to ${MAX_QUANTITY}, with at most ${INPUT_DECIMALS} decimal places, as a number or a numeric string.`,
});

/**
 * A unit cost on input: a JSON number or a numeric string, >= 0, at most 4 decimals, at most 1e13,
 * at most 15 significant digits. The output is the canonical decimal string.
 *
 * @example unitCostInput.parse('19.9900') === '19.99'
 */
export const unitCostInput = decimalInput({
  min: '0',
  minInclusive: true,
  max: MAX_UNIT_COST,
  description: `A unit cost from 0 to ${MAX_UNIT_COST}, with at most ${INPUT_DECIMALS} decimal places and ${EXACT_JSON_DIGITS} significant digits, as a number or a numeric string. ${EXACT_TOTALS}`,
});

/**
 * The decimal that `quantityInput` or `unitCostInput` produced, or `undefined` when that field was
 * refused: zod still runs an object's refinements then, with the field's raw input in its place.
 *
 * @example parsedDecimal('1.5')?.toFixed() === '1.5'; parsedDecimal('2\u0000') === undefined
 */
export function parsedDecimal(value: unknown): Dec | undefined {
  return typeof value === 'string' && DECIMAL_TEXT.test(value) ? dec(value) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Responses

/**
 * A string holding a decimal with exactly `places` decimals, as product prices (2) and area
 * coordinates (8) are serialised.
 *
 * @example fixedDecimalString(2).parse('19.90')
 */
export function fixedDecimalString(places: number) {
  // Prices have at most 13 integer digits, coordinates 3: a sign, 13 digits and a point fit both.
  return z
    .string()
    .max(15 + places)
    .regex(new RegExp(`^-?\\d+\\.\\d{${places}}$`))
    .meta({ description: `A decimal with exactly ${places} decimal places, as a string.` });
}

/** A string holding a decimal of any precision (location coordinates). */
export const decimalString = z
  .string()
  .max(32)
  .regex(DECIMAL_TEXT)
  .meta({ description: 'A decimal number as a string.' });
