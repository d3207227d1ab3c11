// The adjustments routes of the v1 contract: create, list, detail, approve and reject bodies and
// queries, and the three forms of an adjustment in responses (create, detail, list entry) with
// the reference's example of each.
import { z } from 'zod';
import { ADJUSTMENT_STATUSES, type PricedLine, inexactTotals, pricedTotals } from '@pits/domain';
import { TEXT_LIMITS, storedText, textField } from './text-schemas.js';
import { calendarDate, timestamp } from './date-schemas.js';
import { queryId } from './query-schemas.js';
import { MAX_PER_PAGE, simplePaginationSchema } from './pagination-schemas.js';
import { parsedDecimal, quantityInput, unitCostInput } from './decimal-schemas.js';
import { MAX_ITEMS_PER_REQUEST, bodyId, productIdText, productRefFields, refuseRepeatedProducts, requireOneProductRef } from './line-schemas.js';
import { envelopeA } from './envelope-schemas.js';
import { actionBody, decisionTrailFields, documentListFields, documentLocationFields, documentNumber, reasonText, rejectBody } from './document-schemas.js';
import { actorExample } from './document-schemas.js';
import { EXAMPLE_CREATED_AT, type Example } from './examples.js';
import { lotLineInputFields, lotNumberText, refuseProductionAfterExpiry } from './lot-schemas.js';

/** `increase` or `decrease`. */
export const adjustmentType = z.enum(['increase', 'decrease']);
/** The stock bucket an adjustment moves: `good` or `damaged`. */
export const stockSource = z.enum(['good', 'damaged']);
/** `pending`, `approved` or `rejected`. */
export const adjustmentStatus = z.enum(ADJUSTMENT_STATUSES);

// ---------------------------------------------------------------------------------------------
// Requests

/** One line of a create-adjustment body, with its lot for a lot-tracked product (docs/lots.md#lines-name-their-lot). Unknown keys are ignored. */
export const adjustmentLineInput = z
  .object({
    ...productRefFields,
    quantity: quantityInput,
    unit_cost: unitCostInput,
    notes: textField({ max: TEXT_LIMITS.notes }).optional(),
    ...lotLineInputFields,
  })
  .superRefine(requireOneProductRef)
  .superRefine(refuseProductionAfterExpiry)
  .meta({ id: 'AdjustmentLineInput', description: 'One product line of a new adjustment: product_id or sku, exactly one; lot_number (and the dates of a new lot) for a lot-tracked product.' });

/**
 * Body of `POST /api/partner/v1/adjustments`. Quantities and costs come out as canonical decimal
 * strings, product ids as numbers; a product given twice is refused on the later line's
 * `items[i].product_id` (one lot per product and adjustment); a line whose total_cost (quantity x unit_cost) would not be exact as a
 * JSON number is refused on its `items[i].quantity`, and a total_amount that would not be on
 * `items` (docs/input-rules.md#quantities-and-totals).
 *
 * @example parseWith(createAdjustmentBody, body)
 */
export const createAdjustmentBody = z
  .object({
    location_id: bodyId,
    type: adjustmentType,
    stock_source: stockSource,
    reason: reasonText,
    items: z.array(adjustmentLineInput).min(1).max(MAX_ITEMS_PER_REQUEST),
  })
  .superRefine((body, ctx) => {
    refuseRepeatedProducts(body.items, ctx);
    const lines: PricedLine[] = [];
    for (const item of body.items) {
      const quantity = parsedDecimal(item.quantity);
      const price = parsedDecimal(item.unit_cost);
      // A line already refused has no total to check.
      if (quantity === undefined || price === undefined) return;
      lines.push({ quantity, price });
    }
    for (const { path, issue } of inexactTotals(pricedTotals(lines), { priceName: 'unit_cost', totalQuantity: false })) {
      ctx.addIssue({ code: 'custom', path, message: issue });
    }
  })
  .meta({ id: 'CreateAdjustmentBody', description: 'A stock correction to create, pending approval.' });
export type CreateAdjustmentBody = z.output<typeof createAdjustmentBody>;

/** Query of `GET /api/engine/v1/adjustments`: page, per_page (default 10, max 100) and filters. */
export const adjustmentListQuery = z
  .object({
    ...documentListFields(adjustmentStatus),
    location_id: queryId.optional(),
    type: adjustmentType.optional(),
  })
  .meta({ id: 'AdjustmentListQuery', description: 'Paging and filters of the adjustments list.' });
export type AdjustmentListQuery = z.output<typeof adjustmentListQuery>;

/** Body of `PATCH /api/partner/v1/adjustments/:id/reject`: `reason`, 1 to 500 characters. */
export const rejectAdjustmentBody = rejectBody('RejectAdjustmentBody', 'adjustment');
export type RejectAdjustmentBody = z.output<typeof rejectAdjustmentBody>;

/** Body of `PATCH /api/partner/v1/adjustments/:id/approve`: `{}` or no body; unknown keys ignored. */
export const approveAdjustmentBody = actionBody('ApproveAdjustmentBody');

// ---------------------------------------------------------------------------------------------
// Responses

/** `ADJ-YYYYMMDD-NNNNNN`; the id equals it. */
export const adjustmentNumber = documentNumber('ADJ');

/** An adjustment line as the create response shows it (no `current_stock`). */
export const adjustmentItem = z
  .strictObject({
    id: z.int(),
    product_id: productIdText,
    product_name: storedText(TEXT_LIMITS.name),
    sku: storedText(TEXT_LIMITS.sku),
    type: adjustmentType.meta({ description: "The line's direction: the adjustment's type, or for a stock count the sign of this line's difference (extension)." }),
    quantity: z.number(),
    unit_cost: z.number(),
    total_cost: z.number(),
    notes: storedText(TEXT_LIMITS.notes),
    lot_number: lotNumberText.nullable().meta({ description: 'The lot the line moves; null for a product without lots.' }),
    expiry_date: calendarDate.nullable().meta({ description: "That lot's expiry date; null for a product without lots or a lot without one." }),
  })
  .meta({ id: 'AdjustmentItem', description: 'A line: total_cost = quantity x unit_cost; notes "" when none; lot_number and expiry_date null for a product without lots.' });

/** An adjustment line in the detail response: with the live `current_stock` of its bucket. */
export const adjustmentDetailItem = adjustmentItem
  .extend({ current_stock: z.number() })
  .meta({ id: 'AdjustmentDetailItem', description: 'A line with the live quantity of the product in the bucket.' });

const adjustmentHead = {
  id: adjustmentNumber,
  adjustment_number: adjustmentNumber,
  location: z.strictObject({ ...documentLocationFields, address: storedText(TEXT_LIMITS.address) }),
  type: adjustmentType,
  stock_source: stockSource,
  reason: storedText(TEXT_LIMITS.reason),
  status: adjustmentStatus,
  total_amount: z.number(),
  item_count: z.int().min(0),
  ...decisionTrailFields,
  rejection_reason: storedText(TEXT_LIMITS.reason).nullable(),
};

/** The adjustment returned by create: the detail form whose items carry no `current_stock`. */
export const adjustmentCreated = z
  .strictObject({ ...adjustmentHead, items: z.array(adjustmentItem).max(MAX_ITEMS_PER_REQUEST) })
  .meta({ id: 'AdjustmentCreated', description: 'A new adjustment, status pending.' });

/** The detail form (`GET /api/engine/v1/adjustments/:id`): items with `current_stock`. */
export const adjustmentDetail = z
  .strictObject({ ...adjustmentHead, items: z.array(adjustmentDetailItem).max(MAX_ITEMS_PER_REQUEST) })
  .meta({ id: 'AdjustmentDetail', description: 'An adjustment with its lines and their live stock.' });

/** A list entry: no address, stock_source, items, created_by or decision fields. */
export const adjustmentListEntry = z
  .strictObject({
    id: adjustmentNumber,
    adjustment_number: adjustmentNumber,
    location: z.strictObject(documentLocationFields),
    type: adjustmentType,
    reason: storedText(TEXT_LIMITS.reason),
    status: adjustmentStatus,
    total_amount: z.number(),
    item_count: z.int().min(0),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'AdjustmentListEntry', description: 'An adjustment as the list shows it.' });

/** 201 of create: envelope A, `data.adjustment`. */
export const createAdjustmentResponse = envelopeA(z.strictObject({ adjustment: adjustmentCreated })).meta({
  id: 'CreateAdjustmentResponse',
  description: 'The created adjustment.',
});

/** 200 of detail: envelope A, `data.adjustment`. */
export const adjustmentDetailResponse = envelopeA(z.strictObject({ adjustment: adjustmentDetail })).meta({
  id: 'AdjustmentDetailResponse',
  description: 'One adjustment.',
});

/** 200 of list: envelope A, `data.adjustments` and the simple pagination object. */
export const adjustmentListResponse = envelopeA(
  z.strictObject({ adjustments: z.array(adjustmentListEntry).max(MAX_PER_PAGE), pagination: simplePaginationSchema }),
).meta({ id: 'AdjustmentListResponse', description: 'A page of adjustments, newest first.' });

/** 200 of approve and reject: envelope A with `data: null`. */
export const adjustmentActionResponse = envelopeA(z.null()).meta({
  id: 'AdjustmentActionResponse',
  description: 'The decision was recorded.',
});

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

/** The demo's Jakarta warehouse as adjustments and transfers name it, and with its address. */
export const jakartaRefExample = { id: 1, code: 'WH-JKT-01', name: 'Gudang Jakarta Barat' };
export const jakartaWithAddressExample = { ...jakartaRefExample, address: 'Jl. Daan Mogot KM 12 No. 8' };

/** A pending adjustment's state fields: created by the demo partner, not yet decided. */
const pendingAdjustment = {
  status: 'pending',
  created_by: actorExample,
  created_at: EXAMPLE_CREATED_AT,
  updated_at: EXAMPLE_CREATED_AT,
  approved_at: null,
  approved_by: null,
  rejected_at: null,
  rejected_by: null,
  rejection_reason: null,
} as const;

export const adjustmentCreatedExample: Example<typeof adjustmentCreated> = {
  id: 'ADJ-20261122-000004',
  adjustment_number: 'ADJ-20261122-000004',
  location: jakartaWithAddressExample,
  type: 'increase',
  stock_source: 'good',
  reason: 'Cycle count correction',
  total_amount: 144000,
  item_count: 1,
  ...pendingAdjustment,
  items: [{ id: 5, product_id: '2', product_name: 'Teh Melati 100 g', sku: 'TEH-MELATI-100', type: 'increase', quantity: 12, unit_cost: 12000, total_cost: 144000, notes: 'rak B4', lot_number: null, expiry_date: null }],
};

export const adjustmentDetailExample: Example<typeof adjustmentDetail> = {
  id: 'ADJ-20261122-000003',
  adjustment_number: 'ADJ-20261122-000003',
  location: jakartaWithAddressExample,
  type: 'decrease',
  stock_source: 'good',
  reason: 'Cycle count: fewer on the shelf than recorded',
  total_amount: 150000,
  item_count: 2,
  ...pendingAdjustment,
  items: [
    { id: 3, product_id: '2', product_name: 'Teh Melati 100 g', sku: 'TEH-MELATI-100', type: 'decrease', quantity: 5, unit_cost: 12000, total_cost: 60000, notes: '', lot_number: null, expiry_date: null, current_stock: 340 },
    { id: 4, product_id: '1', product_name: 'Kopi Arabica Gayo 250 g', sku: 'KOPI-ARABICA-250', type: 'decrease', quantity: 2, unit_cost: 45000, total_cost: 90000, notes: 'torn bags', lot_number: null, expiry_date: null, current_stock: 120 },
  ],
};

export const adjustmentListExample: Example<typeof adjustmentListEntry>[] = [
  {
    id: 'ADJ-20261122-000003',
    adjustment_number: 'ADJ-20261122-000003',
    location: jakartaRefExample,
    type: 'decrease',
    reason: 'Cycle count: fewer on the shelf than recorded',
    status: 'pending',
    total_amount: 150000,
    item_count: 2,
    created_at: EXAMPLE_CREATED_AT,
    updated_at: EXAMPLE_CREATED_AT,
  },
];
