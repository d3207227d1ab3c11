// Text of the v1 contract: the text rule every string a client sends obeys (docs/input-rules.md#text),
// and the longest text each stored field can hold, which the response schemas state.
import { z } from 'zod';
import { textIssue } from '@pits/domain';

// ---------------------------------------------------------------------------------------------
// Text a client sends

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
