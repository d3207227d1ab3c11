// What every answer is wrapped in: the success envelopes A and B and the error envelope
// (docs/envelopes-and-pagination.md), and the bound published for what the service does not cap.
import { z } from 'zod';
import { ERROR_KINDS } from '@pits/domain';
import { TEXT_LIMITS, storedText } from './text-schemas.js';

/**
 * The largest int32. The bound published for a list or count the service does not cap (a partner's
 * webhook endpoints, a delivery's attempts across redeliveries), and the edge past which the
 * OpenAPI document states an integer as int64.
 */
export const INT32_MAX = 2 ** 31 - 1;

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
