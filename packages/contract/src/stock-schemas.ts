// The stock reads (extension, docs/extensions.md#stock-reads): levels per location and product, and the
// ledger of movements, cursor-paged newest first. Envelope A. With the reference's examples.
import { z } from 'zod';
import { DATE_RANGE_ISSUE, STOCK_BUCKETS, TIMESTAMP_RANGE_ISSUE, isDateInRange, isTimestampInRange } from '@pits/domain';
import { adjustmentDetail, stockSource } from './adjustment-schemas.js';
import {
  MAX_ITEMS_PER_REQUEST,
  bodyId,
  countedQuantityInput,
  envelopeA,
  pageQuery,
  perPageQuery,
  productIdText,
  queryId,
  queryIdList,
  queryInteger,
  productRefFields,
  refuseRepeatedProducts,
  requireOneProductRef,
  requiredOr,
  simplePaginationSchema,
  skuList,
  textField,
  timestamp,
} from './common-schemas.js';
import { MAX_PER_PAGE, TEXT_LIMITS, digitText, storedText } from './common-schemas.js';
import { EXAMPLE_CREATED_AT, type Example } from './common-schemas.js';

/** What caused a movement. */
export const movementCause = z.enum(['adjustment', 'transfer', 'inbound', 'reservation', 'opening', 'correction']);

// ---------------------------------------------------------------------------------------------
// Requests

/** Query of `GET /api/partner/v1/stock`: filters and page, per_page (default 20, max 100). */
export const stockQuery = z
  .object({
    location_id: queryId.optional(),
    product_id: queryIdList.optional(),
    sku: skuList.optional(),
    page: pageQuery,
    per_page: perPageQuery(20),
  })
  .meta({ id: 'StockQuery', description: 'Filters and paging of the stock levels; product_id and sku each take up to 100 comma-separated values.' });
export type StockQuery = z.output<typeof stockQuery>;

/**
 * A bound of the movements date range: a calendar date (that whole day) or a timestamp, each in
 * years 1900 to 9999 (docs/input-rules.md#dates-and-times).
 */
export const dateOrTimestamp = z
  // A timestamp's fraction may have any length: the request head bounds it.
  .union([z.iso.date(), z.iso.datetime({ offset: true }).meta({ maxLength: TEXT_LIMITS.head })], {
    error: requiredOr('must be a date (YYYY-MM-DD) or an ISO 8601 timestamp'),
  })
  .superRefine((text, ctx) => {
    const isDate = !text.includes('T');
    if (isDate ? !isDateInRange(text) : !isTimestampInRange(text)) {
      ctx.addIssue({ code: 'custom', message: isDate ? DATE_RANGE_ISSUE : TIMESTAMP_RANGE_ISSUE, input: text });
    }
  })
  .meta({ description: 'A calendar date or an ISO 8601 timestamp, in years 1900 to 9999.' });

/** The longest movements cursor: what `next_cursor` answers and `cursor` takes back. */
const CURSOR_LENGTH = 200;

/** Query of `GET /api/partner/v1/stock/movements`: filters, `limit` (1 to 100, default 20) and an opaque `cursor`. */
export const stockMovementsQuery = z
  .object({
    location_id: queryId.optional(),
    product_id: queryId.optional(),
    from: dateOrTimestamp.optional(),
    to: dateOrTimestamp.optional(),
    limit: queryInteger({ min: 1, max: MAX_PER_PAGE, defaultValue: 20 }),
    cursor: textField({ min: 1, max: CURSOR_LENGTH }).optional(),
  })
  .meta({ id: 'StockMovementsQuery', description: 'Filters of the stock ledger; pass next_cursor back as cursor.' });
export type StockMovementsQuery = z.output<typeof stockMovementsQuery>;

/** One line of a stock count: the product (product_id or sku), what was counted, and what was read. */
export const stockCountLineInput = z
  .object({
    ...productRefFields,
    counted: countedQuantityInput,
    expected: countedQuantityInput.nullable().meta({
      description: 'The quantity of the bucket when it was read before counting; the count is refused (409 STALE_QUANTITY) if it changed since. null skips the check for this line.',
    }),
  })
  .superRefine(requireOneProductRef)
  .meta({ id: 'StockCountLineInput', description: 'One counted product: product_id or sku (exactly one), counted, expected.' });

/**
 * Body of `POST /api/partner/v1/stock/counts`: a location, the bucket counted (`good` or
 * `damaged`) and 1 to 500 lines, no product twice.
 *
 * @example parseWith(stockCountBody, { location_id: 1, stock_source: 'good', items: [{ sku: 'KOPI-250', counted: 8, expected: 10 }] })
 */
export const stockCountBody = z
  .object({
    location_id: bodyId,
    stock_source: stockSource,
    items: z.array(stockCountLineInput).min(1).max(MAX_ITEMS_PER_REQUEST),
  })
  .superRefine((body, ctx) => refuseRepeatedProducts(body.items, ctx))
  .meta({ id: 'StockCountBody', description: 'A physical count of one bucket at one location, compare-and-set.' });
export type StockCountBody = z.output<typeof stockCountBody>;

// ---------------------------------------------------------------------------------------------
// Responses

const quantity = z.number().min(0);

/** The stock of one product at one location; `available = good - reserved`. */
export const stockLevelEntry = z
  .strictObject({
    location_id: z.int(),
    product_id: productIdText,
    sku: storedText(TEXT_LIMITS.sku),
    product_name: storedText(TEXT_LIMITS.name),
    good: quantity,
    damaged: quantity,
    reserved: quantity,
    reserved_for_transfers: quantity.describe('The part of `reserved` held for approved transfers not yet shipped.'),
    reserved_for_orders: quantity.describe('The part of `reserved` held by active order holds (reservations).'),
    available: quantity,
    version: z.int().min(0).describe("Grows by one with every change of this row; the `version` of stock.level_changed events."),
  })
  .meta({ id: 'StockLevel', description: 'Quantities of one product at one location.' });

/** One ledger row: which bucket moved, by how much, why, and who did it when. */
export const stockMovementEntry = z
  .strictObject({
    id: digitText,
    location_id: z.int(),
    product_id: productIdText,
    sku: storedText(TEXT_LIMITS.sku),
    bucket: z.enum(STOCK_BUCKETS),
    quantity_change: z.number(),
    quantity_before: quantity,
    quantity_after: quantity,
    cause_type: movementCause,
    cause_id: storedText(TEXT_LIMITS.code),
    document_number: storedText(TEXT_LIMITS.code).nullable(),
    actor: storedText(TEXT_LIMITS.actor),
    occurred_at: timestamp,
  })
  .meta({ id: 'StockMovement', description: 'An immutable change of one stock bucket.' });

/** 201 of a stock count: envelope A, `data.adjustment`, the approved adjustment it wrote, in detail form. */
export const stockCountResponse = envelopeA(z.strictObject({ adjustment: adjustmentDetail })).meta({
  id: 'StockCountResponse',
  description: 'The approved adjustment that records the differences of the count.',
});

/** 200 of stock levels: envelope A, `data.stock` and the simple pagination object. */
export const stockLevelsResponse = envelopeA(
  z.strictObject({ stock: z.array(stockLevelEntry).max(MAX_PER_PAGE), pagination: simplePaginationSchema }),
).meta({ id: 'StockLevelsResponse', description: 'A page of stock levels.' });

/** 200 of movements: envelope A, `data.movements` newest first and `data.next_cursor` (null at the end). */
export const stockMovementsResponse = envelopeA(
  z.strictObject({ movements: z.array(stockMovementEntry).max(MAX_PER_PAGE), next_cursor: storedText(CURSOR_LENGTH).nullable() }),
).meta({ id: 'StockMovementsResponse', description: 'A page of stock movements, newest first.' });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in common-schemas.ts)

export const stockLevelExample: Example<typeof stockLevelEntry> = {
  location_id: 1,
  product_id: '1',
  sku: 'KOPI-ARABICA-250',
  product_name: 'Kopi Arabica Gayo 250 g',
  good: 120,
  damaged: 0,
  reserved: 20,
  reserved_for_transfers: 12,
  reserved_for_orders: 8,
  available: 100,
  version: 14,
};

export const stockMovementExample: Example<typeof stockMovementEntry> = {
  id: '7',
  location_id: 1,
  product_id: '5',
  sku: 'KERUPUK-UDANG-500',
  bucket: 'good',
  quantity_change: 48,
  quantity_before: 0,
  quantity_after: 48,
  cause_type: 'adjustment',
  cause_id: 'ADJ-20261122-000001',
  document_number: 'ADJ-20261122-000001',
  actor: 'partner:1:Demo Partner',
  occurred_at: EXAMPLE_CREATED_AT,
};
