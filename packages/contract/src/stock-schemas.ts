// The stock reads (extension, docs/extensions.md#stock-reads): levels per location and product, the
// ledger of movements, cursor-paged newest first, and the lots of lot-tracked products
// (docs/lots.md#reading-lots). Envelope A. With the reference's examples.
import { z } from 'zod';
import {
  DATE_RANGE_ISSUE,
  type Dec,
  STOCK_BUCKETS,
  type StockLevel,
  TIMESTAMP_RANGE_ISSUE,
  availableQuantity,
  isDateInRange,
  isTimestampInRange,
  reservedForTransfers,
  toJsonNumber,
} from '@pits/domain';
import { adjustmentDetail, stockSource } from './adjustment-schemas.js';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS, digitText, storedText, textField } from './text-schemas.js';
import { calendarDate, calendarDateInput, timestamp } from './date-schemas.js';
import { queryBoolean, queryId, queryIdList, queryInteger, skuList } from './query-schemas.js';
import { MAX_PER_PAGE, pageQuery, perPageQuery, simplePaginationSchema } from './pagination-schemas.js';
import { countedQuantityInput } from './decimal-schemas.js';
import { MAX_ITEMS_PER_REQUEST, bodyId, productIdText, productRefFields, refuseRepeatedProducts, requireOneProductRef } from './line-schemas.js';
import { envelopeA } from './envelope-schemas.js';
import { EXAMPLE_CREATED_AT, type Example } from './examples.js';
import { lotLineInputFields, lotNumberText, refuseProductionAfterExpiry } from './lot-schemas.js';

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

/**
 * Query of `GET /api/partner/v1/stock/lots` (docs/lots.md#reading-lots): the filters of stock levels
 * (`location_id`, up to 100 comma-separated `product_id` or `sku` values), `expiring_before` (a
 * date: lots expiring before that day), `sellable` (`true` or `false`), and page, per_page
 * (default 20, max 100). Every filter given must match.
 *
 * @example parseWith(stockLotsQuery, { sku: 'SAMBAL-BAWANG-200', expiring_before: '2027-01-01', sellable: 'true' })
 */
export const stockLotsQuery = z
  .object({
    location_id: queryId.optional(),
    product_id: queryIdList.optional(),
    sku: skuList.optional(),
    expiring_before: calendarDateInput.optional().meta({ description: 'Only lots whose expiry_date is before this day (YYYY-MM-DD); lots without an expiry date are left out.' }),
    sellable: queryBoolean.optional().meta({ description: '`true`: only lots that can still be held, transferred or shipped; `false`: only those too close to their expiry date.' }),
    page: pageQuery,
    per_page: perPageQuery(20),
  })
  .meta({ id: 'StockLotsQuery', description: 'Filters and paging of the lots; product_id and sku each take up to 100 comma-separated values; every filter given must match.' });
export type StockLotsQuery = z.output<typeof stockLotsQuery>;

/**
 * One line of a stock count: the product (product_id or sku), what was counted, and what was read;
 * for a lot-tracked product, the lot counted (one lot per line, docs/lots.md#lines-name-their-lot).
 */
export const stockCountLineInput = z
  .object({
    ...productRefFields,
    counted: countedQuantityInput,
    expected: countedQuantityInput.nullable().meta({
      description:
        "The quantity of the bucket (of the line's lot, for a lot-tracked product) when it was read before counting; the count is refused (409 STALE_QUANTITY) if it changed since. null skips the check for this line.",
    }),
    ...lotLineInputFields,
  })
  .superRefine(requireOneProductRef)
  .superRefine(refuseProductionAfterExpiry)
  .meta({ id: 'StockCountLineInput', description: 'One counted product: product_id or sku (exactly one), counted, expected; lot_number for a lot-tracked product.' });

/**
 * Body of `POST /api/partner/v1/stock/counts`: a location, the bucket counted (`good` or
 * `damaged`) and 1 to 500 lines, no product twice (so one lot per product and count).
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

/** The stock of one product at one location; `available = good - reserved - short_dated` (docs/lots.md#short-dated-stock). */
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
    short_dated: quantity.describe('Good units of lots that are no longer sellable (too close to their expiry date) and not reserved; 0 for a product without lots.'),
    available: quantity.describe('What can still be held or transferred: good - reserved - short_dated.'),
    version: z.int().min(0).describe("Grows by one with every change of this row; the `version` of stock.level_changed events."),
  })
  .meta({ id: 'StockLevel', description: 'Quantities of one product at one location.' });

/** The quantities of a stock row on the wire: what the stock routes and stock.level_changed both give. */
export type StockLevelFigures = Pick<z.output<typeof stockLevelEntry>, 'good' | 'damaged' | 'reserved' | 'reserved_for_transfers' | 'reserved_for_orders' | 'short_dated' | 'available'>;
/** What a stock row on the wire starts with: where and which product. */
type StockRowHead = Pick<z.output<typeof stockLevelEntry>, 'location_id' | 'product_id' | 'sku'>;

/**
 * Completes a stock row on the wire, the one mapping of the stock routes' rows and of the
 * stock.level_changed event's data: after the fields `head` holds (location, product, sku, and the
 * routes' product name), the quantities as JSON numbers (exact decimals become numbers only here,
 * at the edge; `available` leaves out the short-dated units), then the event's `cause` when given,
 * then `version`, in the order the wire gives them. It writes into `head` and returns it: a page
 * of rows is presented without a copy of each.
 *
 * @example stockLevelRow({ location_id: 1, product_id: '2', sku: 'TEH-100' }, level, ZERO, 3)
 */
export function stockLevelRow(head: StockRowHead & { product_name: string }, level: StockLevel, shortDated: Dec, version: number): z.output<typeof stockLevelEntry>;
export function stockLevelRow<Cause>(head: StockRowHead, level: StockLevel, shortDated: Dec, version: number, cause: Cause): StockRowHead & StockLevelFigures & { cause: Cause; version: number };
export function stockLevelRow(head: StockRowHead, level: StockLevel, shortDated: Dec, version: number, cause?: unknown): StockRowHead & StockLevelFigures & { cause?: unknown; version: number } {
  const row = head as StockRowHead & StockLevelFigures & { cause?: unknown; version: number };
  row.good = toJsonNumber(level.good);
  row.damaged = toJsonNumber(level.damaged);
  row.reserved = toJsonNumber(level.reserved);
  row.reserved_for_transfers = toJsonNumber(reservedForTransfers(level));
  row.reserved_for_orders = toJsonNumber(level.reservedForOrders);
  row.short_dated = toJsonNumber(shortDated);
  row.available = toJsonNumber(availableQuantity(level).minus(shortDated));
  if (cause !== undefined) row.cause = cause;
  row.version = version;
  return row;
}

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
    lot_number: lotNumberText.nullable().meta({ description: 'The lot the units moved in; null for a product without lots.' }),
  })
  .meta({ id: 'StockMovement', description: 'An immutable change of one stock bucket.' });

/** One lot of a product at one location, with its figures on today's WIB date (docs/lots.md#short-dated-stock). */
export const stockLotEntry = z
  .strictObject({
    location_id: z.int(),
    product_id: productIdText,
    sku: storedText(TEXT_LIMITS.sku),
    lot_number: lotNumberText,
    expiry_date: calendarDate.nullable().meta({ description: "The lot's expiry date, a WIB calendar day; null for a lot without one (such as LEGACY)." }),
    production_date: calendarDate.nullable().meta({ description: "The lot's production date; null when not given." }),
    good: quantity,
    damaged: quantity,
    reserved: quantity.describe('Units of the lot held by order holds and approved transfers.'),
    available: quantity.describe('good - reserved while the lot is sellable; 0 when it is not.'),
    days_left: z.int().nullable().describe('expiry_date minus today (WIB), negative once expired; null for a lot without an expiry date.'),
    sellable: z.boolean().describe("Whether the lot can be held, transferred or shipped today: no expiry date, or days_left at least the product's outbound_expired (and at least 1)."),
  })
  .meta({ id: 'StockLot', description: 'The quantities of one lot of a product at one location, and how long it keeps.' });

/** 201 of a stock count: envelope A, `data.adjustment`, the approved adjustment it wrote, in detail form. */
export const stockCountResponse = envelopeA(z.strictObject({ adjustment: adjustmentDetail })).meta({
  id: 'StockCountResponse',
  description: 'The approved adjustment that records the differences of the count.',
});

/** 200 of stock levels: envelope A, `data.stock` and the simple pagination object. */
export const stockLevelsResponse = envelopeA(
  z.strictObject({ stock: z.array(stockLevelEntry).max(MAX_PER_PAGE), pagination: simplePaginationSchema }),
).meta({ id: 'StockLevelsResponse', description: 'A page of stock levels.' });

/** 200 of the lots: envelope A, `data.lots` (earliest expiry first, lots without one last, then lot number, then location) and the simple pagination object. */
export const stockLotsResponse = envelopeA(
  z.strictObject({ lots: z.array(stockLotEntry).max(MAX_PER_PAGE), pagination: simplePaginationSchema }),
).meta({ id: 'StockLotsResponse', description: 'A page of lots, earliest expiry first.' });

/** 200 of movements: envelope A, `data.movements` newest first and `data.next_cursor` (null at the end). */
export const stockMovementsResponse = envelopeA(
  z.strictObject({ movements: z.array(stockMovementEntry).max(MAX_PER_PAGE), next_cursor: storedText(CURSOR_LENGTH).nullable() }),
).meta({ id: 'StockMovementsResponse', description: 'A page of stock movements, newest first.' });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

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
  short_dated: 0,
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
  lot_number: null,
};

/** The lots query of the reference, every parameter given: Sambal Bawang's sellable lots at Jakarta expiring before June 2027. */
export const stockLotsQueryExample: Example<typeof stockLotsQuery> = {
  page: 1,
  per_page: 10,
  location_id: 1,
  product_id: '3',
  sku: 'SAMBAL-BAWANG-200',
  expiring_before: '2027-06-01',
  sellable: 'true',
};

/**
 * The demo's Sambal Bawang 200 ml (product 3) as a lot-tracked product with outbound_expired 30,
 * on 2026-11-22 (WIB): a sellable lot, and one of its holds' lots (`lotAllocationsExample`).
 */
export const stockLotExamples: Example<typeof stockLotEntry>[] = [
  {
    location_id: 1,
    product_id: '3',
    sku: 'SAMBAL-BAWANG-200',
    lot_number: 'SB-261001-C',
    expiry_date: '2027-01-31',
    production_date: '2026-10-01',
    good: 30,
    damaged: 0,
    reserved: 2,
    available: 28,
    days_left: 70,
    sellable: true,
  },
  {
    location_id: 1,
    product_id: '3',
    sku: 'SAMBAL-BAWANG-200',
    lot_number: 'SB-261028-A',
    expiry_date: '2027-04-28',
    production_date: '2026-10-28',
    good: 45.5,
    damaged: 2,
    reserved: 1,
    available: 44.5,
    days_left: 157,
    sellable: true,
  },
];

/** A lot past the product's outbound minimum: not sellable, so nothing of it is available; its free units are short-dated. */
export const shortDatedLotExample: Example<typeof stockLotEntry> = {
  location_id: 1,
  product_id: '3',
  sku: 'SAMBAL-BAWANG-200',
  lot_number: 'SB-260901-B',
  expiry_date: '2026-12-21',
  production_date: '2026-09-01',
  good: 5,
  damaged: 0,
  reserved: 2,
  available: 0,
  days_left: 29,
  sellable: false,
};
