// Input that is never accepted (docs/input-rules.md), as plain checks that every edge shares:
// the gateway's schemas and body parser, the internal API's inputs and the importer's rows.

/** Why text with U+0000 is refused: not every database can store it in text, and full-text search stops at it. */
export const NUL_ISSUE = 'must not contain the NUL character';
/** Why text with a lone UTF-16 surrogate is refused: it is not Unicode, and a store would alter it. */
export const UNPAIRED_SURROGATE_ISSUE = 'must not contain unpaired surrogates (invalid Unicode)';

// Without the `u` flag a regular expression sees UTF-16 code units, so a high surrogate not
// followed by a low one, or a low one not preceded by a high one, is found as it is.
const UNPAIRED_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * The reason a text may not be accepted, or `undefined` when it may: no U+0000 and no unpaired
 * surrogate. A pair that encodes one character (an emoji) is fine.
 *
 * @example textIssue('a\u0000b') === NUL_ISSUE; textIssue('caf\u00e9 \ud83d\ude00') === undefined
 */
export function textIssue(text: string): string | undefined {
  if (text.includes('\u0000')) return NUL_ISSUE;
  if (UNPAIRED_SURROGATE.test(text)) return UNPAIRED_SURROGATE_ISSUE;
  return undefined;
}

/** The deepest nesting of arrays and objects a request body (or an imported JSON row) may have. */
export const MAX_NESTING_DEPTH = 32;

/** Why a body nested deeper than MAX_NESTING_DEPTH is refused. */
export const NESTING_ISSUE = `must not be nested more than ${MAX_NESTING_DEPTH} levels deep`;

/**
 * True when `value` nests arrays and objects more than `limit` levels deep (`{}` is one level,
 * `{"items":[{}]}` three; a string or number none). It walks with its own stack, never recursing,
 * so a body 200,000 levels deep is measured without overflowing the call stack; it stops at the
 * first path past the limit, which also ends a walk through an object that contains itself.
 *
 * @example exceedsNestingDepth(JSON.parse('[[[]]]'), 2) === true
 */
export function exceedsNestingDepth(value: unknown, limit: number = MAX_NESTING_DEPTH): boolean {
  const pending: unknown[] = [value];
  const depths: number[] = [0];
  while (pending.length > 0) {
    const current = pending.pop();
    const depth = depths.pop()! + 1;
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    // Object.values lists own keys only, `__proto__` included when JSON.parse made it one.
    for (const child of Array.isArray(current) ? current : Object.values(current)) {
      if (typeof child === 'object' && child !== null) {
        pending.push(child);
        depths.push(depth);
      }
    }
  }
  return false;
}

/** The first and last calendar dates accepted anywhere. */
export const EARLIEST_DATE = '1900-01-01';
export const LATEST_DATE = '9999-12-31';
/** Why a date outside them is refused. */
export const DATE_RANGE_ISSUE = `must be a date from ${EARLIEST_DATE} to ${LATEST_DATE}`;
/** Why a timestamp outside them is refused. */
export const TIMESTAMP_RANGE_ISSUE = `must be a time from ${EARLIEST_DATE}T00:00:00Z to ${LATEST_DATE}T23:59:59.999Z`;

const EARLIEST_INSTANT = Date.UTC(1900, 0, 1);
const LATEST_INSTANT = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/**
 * True for a `YYYY-MM-DD` text from 1900-01-01 to 9999-12-31 (the text is compared, so check
 * it is a real date first).
 *
 * @example isDateInRange('1899-12-31') === false
 */
export function isDateInRange(date: string): boolean {
  return /^\d{4}-\d{2}-\d{2}$/.test(date) && date >= EARLIEST_DATE && date <= LATEST_DATE;
}

/**
 * True for an ISO 8601 timestamp whose instant, in UTC, falls from 1900-01-01T00:00:00Z to
 * 9999-12-31T23:59:59.999Z. An offset counts: `9999-12-31T23:00:00-05:00` is already year 10000.
 *
 * @example isTimestampInRange('1900-01-01T00:30:00+01:00') === false
 */
export function isTimestampInRange(timestamp: string): boolean {
  const at = Date.parse(timestamp);
  return Number.isFinite(at) && at >= EARLIEST_INSTANT && at <= LATEST_INSTANT;
}
