// Calendar dates and timestamps: the forms responses carry, and the ranges a client may send
// (docs/input-rules.md#dates-and-times).
import { z } from 'zod';
import { DATE_RANGE_ISSUE, EARLIEST_DATE, LATEST_DATE, TIMESTAMP_RANGE_ISSUE, isDateInRange, isTimestampInRange } from '@pits/domain';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS } from './text-schemas.js';

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
