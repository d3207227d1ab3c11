// Building blocks shared by every v1 route schema: text, dates and timestamps, query-string
// integers, exact decimal inputs, product ids, the success and error envelopes and the pagination
// objects; and what the reference's examples of every area share (`Example`, the demo's ids).
import { z } from 'zod';
import {
  DATE_RANGE_ISSUE,
  type Dec,
  EARLIEST_DATE,
  ERROR_KINDS,
  EXACT_JSON_DIGITS,
  INPUT_DECIMALS,
  LATEST_DATE,
  TIMESTAMP_RANGE_ISSUE,
  dec,
  hasAtMostDecimals,
  isDateInRange,
  isTimestampInRange,
  textIssue,
  toPlainString,
} from '@pits/domain';

/**
 * An error map for one schema: "is required" when the value is absent, else `message`. It also
 * words the issues of the schema's checks (`.max()`, `.min()`) unless they carry their own.
 *
 * @example z.string({ error: requiredOr('must be a string') })
 */
export function requiredOr(message: string): (issue: { readonly input?: unknown }) => string {
  return (issue) => (issue.input === undefined ? 'is required' : message);
}

// ---------------------------------------------------------------------------------------------
// Text

/** The zod form of `textIssue`: one issue, worded by the rule, on the field that holds the text. */
function refuseUnsafeText(text: string, ctx: z.RefinementCtx): void {
  const issue = textIssue(text);
  if (issue !== undefined) ctx.addIssue({ code: 'custom', message: issue, input: text });
}

/**
 * Text a client sends (docs/input-rules.md#text): a string without U+0000 or unpaired UTF-16 surrogates, so
 * what is stored is what was sent, on every dialect. Every free-text field and text query value
 * of every request schema is built on it; chain `.trim()`, `.min()`, `.max()`, `.regex()` as on
 * `z.string()`.
 *
 * @example safeText.max(1000).optional()
 */
export const safeText = z.string().superRefine(refuseUnsafeText);

/**
 * `safeText` with the usual limits: trimmed first when `trim`, then `min` and `max` characters.
 *
 * @example textField({ trim: true, min: 1, max: 500 }).parse(' stock count ') === 'stock count'
 */
export function textField(options: { max: number; min?: number; trim?: boolean }) {
  const trimmed = options.trim === true ? safeText.trim() : safeText;
  return (options.min === undefined ? trimmed : trimmed.min(options.min)).max(options.max);
}

/**
 * A check to add to a string schema that is not a plain `z.string()` (a URL, an e-mail address):
 * the same text rule as `safeText`.
 *
 * @example z.url().max(2000).superRefine(safeTextCheck)
 */
export const safeTextCheck: (text: string, ctx: z.RefinementCtx) => void = refuseUnsafeText;

// ---------------------------------------------------------------------------------------------
// Text in responses

/**
 * The longest text each kind of stored field can hold: the limits of the inputs that write it (the
 * partner routes' and the internal API's request schemas, the importer's area rows), so that a
 * schema describing an answer states the same limit as the data it holds.
 */
export const TEXT_LIMITS = {
  /** Product names (1 to 255), location, tenant and partner names (1 to 200). */
  name: 255,
  /** Who acted: a partner's name (1 to 200), `received_by` (1 to 200), the internal API or the importer. */
  actor: 200,
  /** A partner's contact e-mail address. */
  email: 320,
  /** SKUs and barcodes. */
  sku: 100,
  /**
   * Codes and references a client chooses: location codes (50), inbound codes and references,
   * grids, transfer reference numbers and reservation references (100).
   */
  code: 100,
  /** Short labels: product type and status, location type and status, tenant type, origin code, source type. */
  label: 50,
  /** Location addresses. */
  address: 500,
  /** Place names: a location's city, state, subdistrict and country (100), an area's names and codes (200). */
  place: 200,
  zip: 20,
  phone: 50,
  /** Notes of adjustments, transfers and inbound shipments. */
  notes: 1000,
  /** Reasons: adjustment and transfer reasons and rejections, uninstall and release reasons. */
  reason: 500,
  productDescription: 5000,
  /** A logistics credential, stored encrypted and answered masked. */
  credential: 1000,
  /** A webhook endpoint's URL and description. */
  url: 2000,
  description: 200,
  /** The digits of a positive safe integer (2^53 - 1 has 16). */
  digits: 16,
  /** ADJ-, TRF-, RSV- numbers: a prefix, a date and a per-tenant sequence. */
  documentNumber: 32,
  /**
   * Text of an answer that can repeat what a client sent (an error's field names an unknown key of
   * the body): bounded by the body's 1 MiB (docs/input-rules.md#sizes).
   */
  echo: 1_048_576,
  /**
   * A query value or path parameter: the request head holds it, and Node refuses a head over
   * HTTP_MAX_HEADER_BYTES (16 KiB by default; docs/input-rules.md#sizes).
   */
  head: 16_384,
} as const;

/**
 * A response string of at most `max` characters (a `TEXT_LIMITS` entry).
 *
 * @example storedText(TEXT_LIMITS.sku).parse('KOPI-250')
 */
export function storedText(max: number) {
  return z.string().max(max);
}

/**
 * A product or record id as a digit string in responses: at most the 16 digits of a safe integer.
 *
 * @example digitText.parse('1042')
 */
export const digitText = z.string().max(TEXT_LIMITS.digits).regex(/^\d+$/);

// ---------------------------------------------------------------------------------------------
// Dates and timestamps

/**
 * A calendar date `YYYY-MM-DD` that exists: 2025-09-31 and 2025-02-29 are refused, 2024-02-29 is not.
 *
 * @example calendarDate.parse('2024-02-29') === '2024-02-29'
 */
export const calendarDate = z.iso
  .date({ error: requiredOr('must be a real calendar date in YYYY-MM-DD form') })
  .max(10)
  .meta({ description: 'A calendar date, YYYY-MM-DD.', examples: ['2026-01-31'] });

/** The message of a date that is not a date; a year of five digits or more is out of range rather than malformed. */
function dateFormatMessage(format: string): (issue: { readonly input?: unknown }) => string {
  return (issue) => {
    if (issue.input === undefined) return 'is required';
    return typeof issue.input === 'string' && /^[+-]?\d{5,}-/.test(issue.input) ? DATE_RANGE_ISSUE : format;
  };
}

/**
 * A calendar date a client sends (`transfer_date`, list filters): a real date `YYYY-MM-DD` from
 * 1900-01-01 to 9999-12-31 (docs/input-rules.md#dates-and-times), else 422 on the field.
 *
 * @example calendarDateInput.parse('1899-12-31') // refused: must be a date from 1900-01-01 to 9999-12-31
 */
export const calendarDateInput = z.iso
  .date({ error: dateFormatMessage('must be a real calendar date in YYYY-MM-DD form') })
  .refine(isDateInRange, { error: DATE_RANGE_ISSUE })
  .meta({ description: `A calendar date, YYYY-MM-DD, from ${EARLIEST_DATE} to ${LATEST_DATE}.`, examples: ['2026-01-31'] });

/**
 * A response timestamp: ISO 8601 in UTC with milliseconds and `Z`, as `Date#toISOString` prints it.
 *
 * @example timestamp.parse('2026-01-31T08:15:30.123Z')
 */
export const timestamp = z.iso
  .datetime({ precision: 3, error: requiredOr('must be an ISO 8601 UTC timestamp with milliseconds') })
  .max(24)
  .meta({ description: 'ISO 8601 UTC timestamp with milliseconds.', examples: ['2026-01-31T08:15:30.123Z'] });

/**
 * The inbound list's `inbound_date`: UTC with microseconds (`.123456Z`).
 *
 * @example microsecondTimestamp.parse('2026-01-31T08:15:30.123000Z')
 */
export const microsecondTimestamp = z.iso
  .datetime({ precision: 6, error: requiredOr('must be an ISO 8601 UTC timestamp with microseconds') })
  .max(27)
  .meta({ description: 'ISO 8601 UTC timestamp with microseconds.', examples: ['2026-01-31T08:15:30.123000Z'] });

/**
 * A timestamp a client sends (receive's `received_at`): ISO 8601 with `Z` or an offset, any
 * precision, whose instant falls from 1900-01-01T00:00:00Z to 9999-12-31T23:59:59.999Z
 * (docs/input-rules.md#dates-and-times). The output is the text as sent; convert it with `new Date(text)`.
 *
 * @example isoTimestampInput.parse('2026-01-31T15:15:30+07:00')
 */
export const isoTimestampInput = z.iso
  .datetime({ offset: true, error: dateFormatMessage('must be an ISO 8601 timestamp with Z or an offset') })
  .refine(isTimestampInRange, { error: TIMESTAMP_RANGE_ISSUE })
  .meta({
    // Fractions of any length are accepted: the body's size is the bound.
    maxLength: TEXT_LIMITS.echo,
    description: `ISO 8601 timestamp with Z or a UTC offset, from ${EARLIEST_DATE}T00:00:00Z to ${LATEST_DATE}T23:59:59.999Z.`,
    examples: ['2026-01-31T08:15:30Z'],
  });

// ---------------------------------------------------------------------------------------------
// Query-string integers. Query values arrive as text: a plain digit string becomes a number,
// anything else ('2.5', 'abc', '', ['2']) reaches the integer schema unchanged and is refused there.

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

/** `page`: an integer >= 1, default 1. @example pageQuery.parse(undefined) === 1 */
export const pageQuery = queryInteger({ min: 1, defaultValue: 1 }).meta({ description: 'Page number, from 1.' });

/** The most records a page of any list holds: `per_page` is at most 100 (docs/envelopes-and-pagination.md). */
export const MAX_PER_PAGE = 100;

/**
 * `per_page`: an integer from 1 to `max`, default `defaultValue`.
 *
 * @example perPageQuery(20).parse('50') === 50
 */
export function perPageQuery(defaultValue: number, max = MAX_PER_PAGE) {
  return queryInteger({ min: 1, max, defaultValue }).meta({ description: `Records per page, 1 to ${max}.` });
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

/** An integer id in a JSON body: a positive safe integer. @example bodyId.parse(3) === 3 */
export const bodyId = z
  .int({ error: requiredOr('must be a positive integer') })
  .min(1, { error: 'must be a positive integer' })
  .meta({ description: 'A positive integer id.' });

// ---------------------------------------------------------------------------------------------
// Exact decimal inputs

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

/**
 * A product id on input: a digit string (`"1042"`) or a positive integer; the output is the number.
 *
 * @example productIdInput.parse('1042') === 1042
 */
export const productIdInput = z
  .union(
    [
      z.int().min(1, { error: 'must be a positive integer' }),
      z.string().regex(/^\d+$/, { error: 'must be a positive integer or a digit string' }).meta({ maxLength: TEXT_LIMITS.echo }),
    ],
    { error: requiredOr('must be a positive integer or a digit string') },
  )
  .transform((value, ctx) => {
    const id = Number(value);
    if (Number.isSafeInteger(id) && id >= 1) return id;
    ctx.issues.push({ code: 'custom', message: 'must be a positive integer', input: value });
    return z.NEVER;
  })
  .meta({ description: 'A product id: a digit string such as "1042", or a positive integer.' });

/**
 * A line's SKU on input, instead of `product_id`: 1 to 100 characters after trimming, matched
 * exactly (case included) against the tenant's catalogue.
 *
 * @example skuInput.parse(' KOPI-250 ') === 'KOPI-250'
 */
export const skuInput = textField({ trim: true, min: 1, max: TEXT_LIMITS.sku }).meta({
  description: "The product's SKU, instead of product_id (exactly one of the two).",
});

/**
 * The two ways a line names its product (docs/extensions.md#sku-as-a-product-reference): `product_id` or `sku`, exactly one.
 * Spread into a line's object and check the line with `requireOneProductRef`.
 */
export const productRefFields = {
  product_id: productIdInput.optional(),
  sku: skuInput.optional(),
};

/**
 * The refinement of a line with `productRefFields`: naming the product both ways is refused on
 * `sku`, naming it neither way on `product_id`.
 *
 * @example z.object({ ...productRefFields, quantity: quantityInput }).superRefine(requireOneProductRef)
 */
export function requireOneProductRef(line: { product_id?: unknown; sku?: unknown }, ctx: z.RefinementCtx): void {
  const byId = line.product_id !== undefined;
  const bySku = line.sku !== undefined;
  if (byId && bySku) ctx.addIssue({ code: 'custom', path: ['sku'], message: 'must not be given together with product_id' });
  if (!byId && !bySku) ctx.addIssue({ code: 'custom', path: ['product_id'], message: 'is required (or give sku instead)' });
}

/**
 * Adds an issue on every line that names the same product as an earlier line in the same way (the
 * same product_id, or the same sku). A product named once by id and once by SKU is found when the
 * SKU is resolved.
 */
export function refuseRepeatedProducts(items: readonly { product_id?: unknown; sku?: unknown }[], ctx: z.RefinementCtx): void {
  const field = (item: { product_id?: unknown }) => (item.product_id !== undefined ? 'product_id' : 'sku');
  const keys = items.map((item) => (item.product_id !== undefined ? item.product_id : typeof item.sku === 'string' ? `sku:${item.sku}` : undefined));
  for (const { index, first } of repeatedKeys(keys)) {
    const name = field(items[index]!);
    ctx.addIssue({ code: 'custom', path: ['items', index, name], message: `is the same product as items[${first}].${name}` });
  }
}

/** A product id in responses of adjustments, transfers and stock: a digit string. */
export const productIdText = digitText.meta({ description: 'A product id as a digit string.' });

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

// ---------------------------------------------------------------------------------------------
// Envelopes

/**
 * Envelope A (adjustments, transfers, inbound detail and receive, stock):
 * `{status: 'ok', data, errors: null, request_id}`.
 *
 * @example envelopeA(z.object({ adjustment: adjustmentDetail }))
 */
export function envelopeA<T extends z.ZodType>(data: T) {
  return z.strictObject({
    status: z.literal('ok'),
    data,
    errors: z.null(),
    request_id: storedText(36),
  });
}

/**
 * Envelope B (inbound list, tenants, areas): `{status: 200, message: 'Ok', data, errors: null, request_id}`
 * with a UUID `request_id`.
 *
 * @example envelopeB(z.object({ areas: z.array(area), pagination: morePaginationSchema }))
 */
export function envelopeB<T extends z.ZodType>(data: T) {
  return z.strictObject({
    status: z.literal(200),
    message: z.literal('Ok'),
    data,
    errors: z.null(),
    request_id: z.uuid(),
  });
}

/**
 * The JSON Schema keyword (an `x-` extension) that marks answer text which may repeat a client's
 * unchecked input: the OpenAPI document gives it no text pattern, and drops the keyword.
 */
export const UNCHECKED_TEXT = 'x-unchecked-text';

/**
 * Text of an error that can repeat what a client sent (an unknown key of the body): bounded by the
 * body's size alone, and not bound to the text rule, since that input was never checked.
 */
const echoedText = storedText(TEXT_LIMITS.echo).meta({ [UNCHECKED_TEXT]: true });

/** One offending input in an error response. */
export const fieldIssue = z
  .strictObject({ field: echoedText, issue: echoedText })
  .meta({ id: 'FieldIssue', description: 'One offending input: a path such as items[2].quantity, or "" for none.' });

/**
 * The most issues an error lists: one per offending input, so at most the lines of a request and
 * their fields. Nothing caps it below the body's 1 MiB (docs/input-rules.md#sizes): the published
 * bound is one issue per byte of the body.
 */
const MAX_ERROR_ISSUES = 1_048_576;

/**
 * The error envelope: `{status, error: {code, message, details: {field, issue}, issues?}, request_id}`.
 * `issues` lists every offending input when there is more than one.
 */
export const errorEnvelope = z
  .strictObject({
    status: storedText(TEXT_LIMITS.label),
    error: z.strictObject({
      code: z.enum(ERROR_KINDS),
      message: echoedText,
      details: fieldIssue,
      issues: z.array(fieldIssue).max(MAX_ERROR_ISSUES).optional(),
    }),
    request_id: storedText(36),
  })
  .meta({ id: 'ErrorEnvelope', description: 'Every refusal: a textual status, a code, a message and the offending input.' });

// ---------------------------------------------------------------------------------------------
// Pagination objects. Named with a `Schema` suffix: `simplePagination` and its siblings are the
// builders in ../pagination.js.

const pageNumber = z.int().min(1);
const count = z.int().min(0);
const position = z.int().min(1).nullable();

/** Adjustments and transfers lists: `current_page, per_page, total, last_page`. */
export const simplePaginationSchema = z
  .strictObject({ current_page: pageNumber, per_page: pageNumber, total: count, last_page: pageNumber })
  .meta({ id: 'SimplePagination', description: 'Page figures of the adjustments and transfers lists.' });

/** Inbound list: the simple object plus `from` and `to` (1-based positions, null on an empty page). */
export const rangePaginationSchema = simplePaginationSchema
  .extend({ from: position, to: position })
  .meta({ id: 'RangePagination', description: 'Page figures of the inbound list; from/to are null on an empty page.' });

/** Tenants, locations, logistics, areas: the range object plus `has_more_pages`. */
export const morePaginationSchema = rangePaginationSchema
  .extend({ has_more_pages: z.boolean() })
  .meta({ id: 'MorePagination', description: 'Page figures of the tenant and area lists.' });

/** The spec's generic convention: `current_page, per_page, total_pages, total_items, has_next, has_prev`. */
export const genericPaginationSchema = z
  .strictObject({
    current_page: pageNumber,
    per_page: pageNumber,
    total_pages: pageNumber,
    total_items: count,
    has_next: z.boolean(),
    has_prev: z.boolean(),
  })
  .meta({ id: 'GenericPagination', description: 'The generic pagination convention.' });

// ---------------------------------------------------------------------------------------------
// Lines

/**
 * The largest int32. The bound published for a list or count the service does not cap (a partner's
 * webhook endpoints, a delivery's attempts across redeliveries), and the edge past which the
 * OpenAPI document states an integer as int64.
 */
export const INT32_MAX = 2 ** 31 - 1;

/** The most lines an adjustment, transfer or receive body may carry; more is 413 (docs/input-rules.md#sizes). */
export const MAX_ITEMS_PER_REQUEST = 500;

/**
 * Where a line repeats the key of an earlier line, as `{index, first}` pairs. Keys that are not
 * strings or numbers (their line was already refused) are skipped.
 *
 * @example repeatedKeys([7, 8, 7]) // [{ index: 2, first: 0 }]
 */
export function repeatedKeys(keys: readonly unknown[]): { index: number; first: number }[] {
  const firstAt = new Map<string | number, number>();
  const repeats: { index: number; first: number }[] = [];
  keys.forEach((key, index) => {
    if (typeof key !== 'string' && typeof key !== 'number') return;
    const first = firstAt.get(key);
    if (first === undefined) firstAt.set(key, index);
    else repeats.push({ index, first });
  });
  return repeats;
}

/** The acting partner on adjustments and transfers: `{id, name, email}`. */
export const partnerActor = z
  .strictObject({ id: z.int().min(0), name: storedText(TEXT_LIMITS.actor), email: storedText(TEXT_LIMITS.email) })
  .meta({ id: 'Actor', description: 'The acting partner: its id, name and contact email.' });

// ---------------------------------------------------------------------------------------------
// Examples of the reference (/openapi.json and /docs), in the values a partner sees from the demo
// data of `npm start`: the Toko Nusantara tenant, its warehouses in Jakarta (location 1) and
// Surabaya (location 2) and its products 1 to 5. Each area's file holds the examples of its
// schemas, each typed by the schema it illustrates, so the compiler refuses a dropped or renamed
// field; the gateway's reference check validates every example again against the published document.

/** An example of what schema `S` accepts: its input type. */
export type Example<S extends z.ZodType> = z.input<S>;

/** The demo tenant's id. */
export const EXAMPLE_TENANT_ID = '0b6f1c52-3a5e-4d8b-9a51-2f0c7e9d4a11';
/** The tenant the authorize example connects. */
export const EXAMPLE_INVITED_TENANT_ID = '7d2e4f10-8c3b-4a6e-b1d5-93f0a2c6e845';
/** When the demo documents were created, and a later moment at which they were acted on. */
export const EXAMPLE_CREATED_AT = '2026-11-22T09:30:12.481Z';
export const EXAMPLE_LATER_AT = '2026-11-22T10:04:55.120Z';

export const actorExample: Example<typeof partnerActor> = { id: 1, name: 'Demo Partner', email: 'developers@demo-partner.example' };

/** The figures of a first page holding `count` of `total` records. */
export function simplePageExample(total: number, perPage = 10): Example<typeof simplePaginationSchema> {
  return { current_page: 1, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
}
export function rangePageExample(total: number, perPage = 20): Example<typeof rangePaginationSchema> {
  return { ...simplePageExample(total, perPage), from: total === 0 ? null : 1, to: total === 0 ? null : Math.min(total, perPage) };
}
export function morePageExample(total: number, perPage = 10): Example<typeof morePaginationSchema> {
  return { ...rangePageExample(total, perPage), has_more_pages: total > perPage };
}
