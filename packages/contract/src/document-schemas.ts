// What adjustments, transfers and holds (reservations) share as documents: their numbers
// (`ADJ-…`, `TRF-…`, `RSV-…`), the partner who acts on them, the location they name, the trail of
// who created and decided them, the first parameters of their list queries, and the bodies of the
// decisions on them (reject with a reason, and the empty body of approve, ship and receive). Each area's file names its own schemas with these, under its own
// `id`, so the OpenAPI document lists them apart.
import { z } from 'zod';
import type { DocumentPrefix } from '@pits/domain';
import type { Example } from './examples.js';
import { timestamp } from './date-schemas.js';
import { pageQuery, perPageQuery } from './pagination-schemas.js';
import { TEXT_LIMITS, storedText, textField } from './text-schemas.js';

/** The acting partner on adjustments, transfers and holds: `{id, name, email}`. */
export const partnerActor = z
  .strictObject({ id: z.int().min(0), name: storedText(TEXT_LIMITS.actor), email: storedText(TEXT_LIMITS.email) })
  .meta({ id: 'Actor', description: 'The acting partner: its id, name and contact email.' });

/**
 * A location as a document names it, `{id, code, name}`: alone in a list entry, and first in the
 * forms that add its address or contact.
 */
export const documentLocationFields = { id: z.int(), code: storedText(TEXT_LIMITS.code), name: storedText(TEXT_LIMITS.name) };

/**
 * Who created a document and who decided on it, and when, as adjustments and transfers answer
 * them: `created_by` to `rejected_by`, in that order; each decision's fields are null until it is made.
 */
export const decisionTrailFields = {
  created_by: partnerActor,
  created_at: timestamp,
  updated_at: timestamp,
  approved_at: timestamp.nullable(),
  approved_by: partnerActor.nullable(),
  rejected_at: timestamp.nullable(),
  rejected_by: partnerActor.nullable(),
};

/**
 * A document's number in responses, `PFX-YYYYMMDD-NNNNNN` as the domain's `formatDocumentNumber`
 * writes it; the document's id equals it.
 *
 * @example documentNumber('ADJ').parse('ADJ-20261122-000004')
 */
export function documentNumber(prefix: DocumentPrefix) {
  return z.string().max(TEXT_LIMITS.documentNumber).regex(new RegExp(`^${prefix}-\\d{8}-\\d{6,}$`));
}

/**
 * The parameters every document list's query starts with: `page`, `per_page` (default 10, at most
 * 100) and the `status` filter. Spread them first: each list adds its own filters after them.
 *
 * @example z.object({ ...documentListFields(adjustmentStatus), type: adjustmentType.optional() })
 */
export function documentListFields<S extends z.ZodType>(status: S) {
  return { page: pageQuery, per_page: perPageQuery(10), status: status.optional() };
}

/** A reason of 1 to 500 characters, trimmed: an adjustment's, and a rejection's. */
export const reasonText = textField({ trim: true, min: 1, max: TEXT_LIMITS.reason });

/**
 * Body of a document's reject route (`PATCH …/:id/reject`): `reason`, 1 to 500 characters,
 * published as the schema `id`.
 *
 * @example rejectBody('RejectTransferBody', 'transfer')
 */
export function rejectBody(id: string, document: string) {
  return z.object({ reason: reasonText }).meta({ id, description: `Why the ${document} is rejected.` });
}

/**
 * Body of a document's action that takes no input (approve, ship, receive): `{}` or no body;
 * unknown keys ignored. Published as the schema `id`.
 *
 * @example actionBody('ApproveAdjustmentBody')
 */
export function actionBody(id: string) {
  return z.object({}).default({}).meta({ id, description: 'An empty object; the body may be omitted.' });
}

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

export const actorExample: Example<typeof partnerActor> = { id: 1, name: 'Demo Partner', email: 'developers@demo-partner.example' };
