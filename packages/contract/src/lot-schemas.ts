// Lots and expiry dates on the wire (docs/lots.md; the rules are @pits/domain's lot.ts): the lot
// fields a request line carries, a lot number in answers, and the allocations of a hold or transfer
// line, first expired first out. The stock lots read is in stock-schemas.ts.
import { z } from 'zod';
import { LOT_NUMBER_ISSUE, LOT_NUMBER_MAX_LENGTH, LOT_NUMBER_PATTERN, lotDateIssues, lotLineFields } from '@pits/domain';
import { requiredOr } from './field-messages.js';
import { calendarDate, calendarDateInput } from './date-schemas.js';
import { MAX_QUANTITY } from './decimal-schemas.js';
import { INT32_MAX } from './envelope-schemas.js';
import type { Example } from './examples.js';

// ---------------------------------------------------------------------------------------------
// Requests

/**
 * A lot number on input: 1 to 64 ASCII letters, digits, `.`, `_`, `/` and `-`, matched exactly
 * (case counts, nothing is trimmed); anything else is refused with the domain's LOT_NUMBER_ISSUE.
 *
 * @example lotNumberInput.parse('SB-2611/A.1') === 'SB-2611/A.1'
 */
export const lotNumberInput = z
  .string({ error: requiredOr(LOT_NUMBER_ISSUE) })
  .regex(LOT_NUMBER_PATTERN, { error: LOT_NUMBER_ISSUE })
  .meta({ minLength: 1, maxLength: LOT_NUMBER_MAX_LENGTH, description: 'A lot number: 1 to 64 letters, digits, ".", "_", "/" and "-"; case counts.' });

/**
 * The refinement of a line with `lotLineInputFields`: a production date after the expiry date is
 * refused on `production_date`, worded as the server words it (`lotDateIssues`). Malformed dates
 * are their fields' own issues.
 *
 * @example z.object({ ...lotLineInputFields, quantity: quantityInput }).superRefine(refuseProductionAfterExpiry)
 */
export function refuseProductionAfterExpiry(line: { expiry_date?: unknown; production_date?: unknown }, ctx: z.RefinementCtx): void {
  const { expiry_date: expiryDate, production_date: productionDate } = line;
  if (typeof expiryDate !== 'string' || typeof productionDate !== 'string') return;
  for (const { field, issue } of lotDateIssues({ expiryDate, productionDate }, lotLineFields(''))) {
    ctx.addIssue({ code: 'custom', path: [field], message: issue });
  }
}

/**
 * The lot of an adjustment, stock-count or inbound receipt line (docs/lots.md#lines-name-their-lot).
 * All optional here: whether a line must name a lot, and must date a new one, depends on its
 * product, which the server checks (`resolveLineLot`). Spread into the line's object and refine it
 * with `refuseProductionAfterExpiry`.
 */
export const lotLineInputFields = {
  lot_number: lotNumberInput.optional().meta({
    description:
      'The lot of the units: required for a lot-tracked product (production_batch true), refused for any other (422 VALIDATION_ERROR on this field). A lot number the product does not have yet creates the lot.',
  }),
  expiry_date: calendarDateInput.optional().meta({
    description:
      "The lot's expiry date, a calendar day in WIB (Asia/Jakarta). Required when the lot is new and the product has inbound_expired or outbound_expired above 0; for a known lot it may be left out, and must be the lot's own when given.",
  }),
  production_date: calendarDateInput.optional().meta({ description: "The lot's production date, when the lot is new; not after its expiry date. Optional." }),
};

/**
 * The lot a hold or transfer line may name: it pins the line to that lot instead of first expired
 * first out.
 */
export const lotPinInputField = {
  lot_number: lotNumberInput.optional().meta({
    description:
      'Takes the units from this lot only, instead of the sellable lots first expired first out. Only for a lot-tracked product (refused on this field for any other); what the lot cannot cover is 422 INSUFFICIENT_STOCK on the line.',
  }),
};

// ---------------------------------------------------------------------------------------------
// Responses

/**
 * A lot number in answers (the lot `LEGACY` holds stock a product had before lots existed).
 *
 * @example lotNumberText.parse('LEGACY')
 */
export const lotNumberText = z
  .string()
  .max(LOT_NUMBER_MAX_LENGTH)
  .regex(LOT_NUMBER_PATTERN)
  .meta({ description: 'A lot number; LEGACY for stock a product held before it was lot-tracked.' });

/** Units of one lot that a hold or transfer line takes. */
export const lotAllocation = z
  .strictObject({
    lot_number: lotNumberText,
    expiry_date: calendarDate.nullable().meta({ description: "The lot's expiry date; null for a lot without one." }),
    quantity: z.number().min(0).max(Number(MAX_QUANTITY)).meta({ description: 'Units of the line taken from this lot.' }),
  })
  .meta({ id: 'LotAllocation', description: 'Units of one lot that a line takes.' });

/**
 * The lots a hold or transfer line takes, in the order taken: earliest expiry first, lots without
 * one last, then by lot number; empty for a product without lots (docs/lots.md#holds-and-transfers).
 */
export const lotAllocations = z
  .array(lotAllocation)
  // Lots per line are not capped: the bound published for a list the service does not cap.
  .max(INT32_MAX)
  .meta({ description: 'The lots the line takes, first expired first out (or the one lot it names), with their quantities; [] for a product without lots.' });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts): the demo's Sambal Bawang 200 ml (product 3) as a
// lot-tracked product, with two sellable lots on 2026-11-22.

/** The two lots of a hold line of 3 units, the earlier expiry taken first. */
export const lotAllocationsExample: Example<typeof lotAllocations> = [
  { lot_number: 'SB-261001-C', expiry_date: '2027-01-31', quantity: 2 },
  { lot_number: 'SB-261028-A', expiry_date: '2027-04-28', quantity: 1 },
];
