// Query-string parameters: integers, ids, yes-or-no values and comma-separated lists. Query values
// arrive as text: a plain digit string becomes a number, anything else ('2.5', 'abc', '', ['2'])
// reaches the integer schema unchanged and is refused there.
import { z } from 'zod';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS, safeText } from './text-schemas.js';

function integerFromQuery(value: unknown): unknown {
  return typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
}

function queryIntegerBase(min: number, max?: number) {
  const base = z.int({ error: requiredOr('must be an integer') }).min(min, { error: `must be at least ${min}` });
  return max === undefined ? base : base.max(max, { error: `must be at most ${max}` });
}

/**
 * An integer query parameter from `min` (and up to `max`), required unless given a default.
 *
 * @example queryInteger({ min: 1, max: 100, defaultValue: 20 }).parse('7') === 7
 */
export function queryInteger(options: { min: number; max?: number; defaultValue?: number }) {
  const base = queryIntegerBase(options.min, options.max);
  // The default sits inside the preprocess so that the JSON Schema of the input shows it.
  return options.defaultValue === undefined
    ? z.preprocess(integerFromQuery, base)
    : z.preprocess(integerFromQuery, base.default(options.defaultValue));
}

/**
 * A positive integer id given in the query string (`location_id=3`). Make it optional at use.
 *
 * @example queryId.parse('3') === 3
 */
export const queryId = z.preprocess(integerFromQuery, queryIntegerBase(1)).meta({ description: 'A positive integer id.' });

/**
 * A yes-or-no query parameter: the text `true` or `false`; the output is the boolean.
 *
 * @example queryBoolean.parse('false') === false
 */
export const queryBoolean = z
  .enum(['true', 'false'], { error: requiredOr('must be true or false') })
  .transform((text) => text === 'true')
  .meta({ description: '`true` or `false`.' });

/** The most values one comma-separated query parameter may carry (`sku=A,B,…`). */
export const MAX_LIST_VALUES = 100;

/**
 * One query parameter holding 1 to `max` comma-separated values (`sku=A-1,B-2`), each trimmed and
 * read by `read` (a value, or why it is refused). The output is the list, in the order given.
 */
function commaSeparated<T>(read: (part: string) => { value: T } | { issue: string }, description: string, max: number) {
  return safeText
    .transform((text, ctx) => {
      const parts = text.split(',').map((part) => part.trim());
      if (parts.length > max) {
        ctx.issues.push({ code: 'custom', message: `must have at most ${max} comma-separated values`, input: text });
        return z.NEVER;
      }
      const values: T[] = [];
      for (const [index, part] of parts.entries()) {
        const outcome = part === '' ? { issue: 'must not be empty' } : read(part);
        if ('issue' in outcome) {
          ctx.issues.push({ code: 'custom', message: parts.length === 1 ? outcome.issue : `value ${index + 1} ${outcome.issue}`, input: text });
          return z.NEVER;
        }
        values.push(outcome.value);
      }
      return values;
    })
    .meta({ description: `${description} Up to ${max} values, separated by commas.`, maxLength: TEXT_LIMITS.head });
}

/**
 * Up to 100 comma-separated positive integer ids in one query parameter (`product_id=3,7`); the
 * output is the list of numbers.
 *
 * @example queryIdList.parse('3, 7') // [3, 7]
 */
export const queryIdList = commaSeparated<number>(
  (part) => {
    const id = Number(part);
    return /^\d+$/.test(part) && Number.isSafeInteger(id) && id >= 1 ? { value: id } : { issue: 'must be a positive integer' };
  },
  'Positive integer ids.',
  MAX_LIST_VALUES,
);

/**
 * Up to 100 comma-separated SKUs in one query parameter (`sku=KOPI-250,TEH-1`), each 1 to 100
 * characters after trimming; the output is the list.
 *
 * @example skuList.parse('KOPI-250,TEH-1') // ['KOPI-250', 'TEH-1']
 */
export const skuList = commaSeparated<string>(
  (part) => (part.length > TEXT_LIMITS.sku ? { issue: `must be at most ${TEXT_LIMITS.sku} characters` } : { value: part }),
  'Exact SKUs.',
  MAX_LIST_VALUES,
);
