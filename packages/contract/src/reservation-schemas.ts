// The order holds routes (docs/holds.md#reservations): create, list, detail, extend, release and
// consume bodies and queries, and the one form of a reservation that every response carries, with
// the reference's examples of it.
import { z } from 'zod';
import { RESERVATION_EXPIRY, RESERVATION_STATUSES } from '@pits/domain';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS, storedText, textField } from './text-schemas.js';
import { timestamp } from './date-schemas.js';
import { queryId } from './query-schemas.js';
import { MAX_PER_PAGE, simplePaginationSchema } from './pagination-schemas.js';
import { MAX_QUANTITY, quantityInput } from './decimal-schemas.js';
import {
  MAX_ITEMS_PER_REQUEST,
  bodyId,
  productIdText,
  productRefFields,
  refuseRepeatedProducts,
  requireOneProductRef,
  skuInput,
} from './line-schemas.js';
import { envelopeA } from './envelope-schemas.js';
import { actorExample, documentListFields, documentNumber, partnerActor } from './document-schemas.js';
import { EXAMPLE_CREATED_AT, EXAMPLE_LATER_AT, type Example } from './examples.js';
import { lotAllocations, lotAllocationsExample, lotPinInputField } from './lot-schemas.js';

/** `active`, `consumed`, `released` or `expired` (an active hold past its expiry reads as expired). */
export const reservationStatus = z.enum(RESERVATION_STATUSES);

const { min: MIN_EXPIRY, max: MAX_EXPIRY, default: DEFAULT_EXPIRY } = RESERVATION_EXPIRY;

// ---------------------------------------------------------------------------------------------
// Requests

/** How long a hold lasts: whole seconds from 60 to 604800 (7 days), counted from the database's clock. */
const expiresIn = z
  .int({ error: requiredOr('must be an integer number of seconds') })
  .min(MIN_EXPIRY, { error: `must be at least ${MIN_EXPIRY}` })
  .max(MAX_EXPIRY, { error: `must be at most ${MAX_EXPIRY}` });

/** The partner's order id: 1 to 100 characters after trimming. */
const reference = textField({ trim: true, min: 1, max: TEXT_LIMITS.code });

/**
 * One line of a create body: product_id or sku (exactly one), a quantity, and optionally the lot it
 * is pinned to (docs/lots.md#holds-and-transfers). Unknown keys are ignored.
 */
export const reservationLineInput = z
  .object({ ...productRefFields, quantity: quantityInput, ...lotPinInputField })
  .superRefine(requireOneProductRef)
  .meta({
    id: 'ReservationLineInput',
    description: 'One product line of a hold: product_id or sku, exactly one, and a quantity; lot_number pins a lot-tracked product to one lot.',
  });

/** One line of a consume body: product_id or sku (exactly one) and a quantity; it takes from the line's allocations in their order. Unknown keys are ignored. */
export const consumeLineInput = z
  .object({ ...productRefFields, quantity: quantityInput })
  .superRefine(requireOneProductRef)
  .meta({ id: 'ConsumeLineInput', description: 'One shipped product line of a hold: product_id or sku, exactly one, and the quantity shipped.' });

/**
 * Body of `POST /api/partner/v1/reservations`: the location, the order's `reference`, `expires_in`
 * (default 900) and 1 to 500 lines, no product twice (refused on the later line).
 *
 * @example parseWith(createReservationBody, { location_id: 1, reference: 'ORD-1001', items: [{ sku: 'KOPI-250', quantity: 2 }] })
 */
export const createReservationBody = z
  .object({
    location_id: bodyId,
    reference: reference.meta({ description: `Your order id, 1 to ${TEXT_LIMITS.code} characters; one active hold per reference.` }),
    expires_in: expiresIn.default(DEFAULT_EXPIRY).meta({ description: `Seconds until the hold expires, ${MIN_EXPIRY} to ${MAX_EXPIRY}; default ${DEFAULT_EXPIRY}.` }),
    items: z.array(reservationLineInput).min(1).max(MAX_ITEMS_PER_REQUEST),
  })
  .superRefine((body, ctx) => refuseRepeatedProducts(body.items, ctx))
  .meta({ id: 'CreateReservationBody', description: 'Stock to hold for an order at one location, all lines or none.' });
export type CreateReservationBody = z.output<typeof createReservationBody>;

/**
 * Query of `GET /api/partner/v1/reservations`: page, per_page (default 10, max 100) and filters,
 * all of which must match; `product_id` and `sku` each name one product held by a line.
 *
 * @example parseWith(reservationListQuery, { status: 'active', sku: 'KOPI-250' })
 */
export const reservationListQuery = z
  .object({
    ...documentListFields(reservationStatus),
    location_id: queryId.optional(),
    reference: reference.optional(),
    product_id: queryId.optional().meta({ description: 'Holds with a line of this product.' }),
    sku: skuInput.optional().meta({ description: 'Holds with a line of the product of this SKU.' }),
  })
  .meta({ id: 'ReservationListQuery', description: 'Paging and filters of the reservations list; every filter given must match.' });
export type ReservationListQuery = z.output<typeof reservationListQuery>;

/** Body of `POST /api/partner/v1/reservations/:id/extend`: `expires_in`, required. */
export const extendReservationBody = z
  .object({ expires_in: expiresIn.meta({ description: `Seconds from now until the hold expires, ${MIN_EXPIRY} to ${MAX_EXPIRY}.` }) })
  .meta({ id: 'ExtendReservationBody', description: 'A new expiry, counted from now.' });
export type ExtendReservationBody = z.output<typeof extendReservationBody>;

/** Body of `POST /api/partner/v1/reservations/:id/release`: an optional `reason` of at most 500 characters; the body may be omitted. */
export const releaseReservationBody = z
  .object({
    reason: textField({ trim: true, max: TEXT_LIMITS.reason }).optional().meta({ description: `Why the order was cancelled, at most ${TEXT_LIMITS.reason} characters; "" is none.` }),
  })
  .default({})
  .meta({ id: 'ReleaseReservationBody', description: 'The order was cancelled; the body may be omitted.' });
export type ReleaseReservationBody = z.output<typeof releaseReservationBody>;

/**
 * Body of `POST /api/partner/v1/reservations/:id/consume`: without `items` every line is consumed
 * whole; with them (1 to 500 lines, products of this hold, no product twice) those quantities are
 * consumed and the rest released; a lot-tracked line's quantity comes from its allocations in
 * their order (docs/lots.md#holds-and-transfers). The body may be omitted.
 *
 * @example parseWith(consumeReservationBody, { items: [{ sku: 'KOPI-250', quantity: 1 }] })
 */
export const consumeReservationBody = z
  .object({ items: z.array(consumeLineInput).min(1).max(MAX_ITEMS_PER_REQUEST).optional() })
  .default({})
  .superRefine((body, ctx) => {
    if (body.items) refuseRepeatedProducts(body.items, ctx);
  })
  .meta({ id: 'ConsumeReservationBody', description: 'The order shipped: all of the hold, or the quantities given (the rest is released).' });
export type ConsumeReservationBody = z.output<typeof consumeReservationBody>;

// ---------------------------------------------------------------------------------------------
// Responses

/** `RSV-YYYYMMDD-NNNNNN`; the id equals it. */
export const reservationNumber = documentNumber('RSV');

const heldQuantity = z.number().min(0).max(Number(MAX_QUANTITY));

/** A held line: what it holds, and what consume took out of it (0 until consumed). */
export const reservationItem = z
  .strictObject({
    product_id: productIdText,
    sku: storedText(TEXT_LIMITS.sku),
    product_name: storedText(TEXT_LIMITS.name),
    quantity: heldQuantity,
    consumed_quantity: heldQuantity,
    allocations: lotAllocations,
  })
  .meta({ id: 'ReservationItem', description: 'A held product line; consumed_quantity is 0 until the hold is consumed; allocations [] for a product without lots.' });

/** A reservation as every route answers it (docs/holds.md#reservations). */
export const reservation = z
  .strictObject({
    id: reservationNumber,
    reservation_number: reservationNumber,
    reference: storedText(TEXT_LIMITS.code),
    location_id: z.int().min(1),
    status: reservationStatus,
    expires_at: timestamp,
    created_at: timestamp,
    updated_at: timestamp,
    consumed_at: timestamp.nullable(),
    released_at: timestamp.nullable().meta({ description: 'When the hold was released or expired; null until then.' }),
    release_reason: storedText(TEXT_LIMITS.reason).nullable(),
    created_by: partnerActor,
    items: z.array(reservationItem).min(1).max(MAX_ITEMS_PER_REQUEST),
  })
  .meta({ id: 'Reservation', description: 'An order hold; status is as of now, so an active hold past expires_at reads as expired.' });

/** 201 of create, and 200 of detail, extend, release and consume: envelope A, `data.reservation`. */
export const reservationResponse = envelopeA(z.strictObject({ reservation })).meta({
  id: 'ReservationResponse',
  description: 'One reservation.',
});

/** 200 of list: envelope A, `data.reservations` (newest first) and the simple pagination object. */
export const reservationListResponse = envelopeA(
  z.strictObject({ reservations: z.array(reservation).max(MAX_PER_PAGE), pagination: simplePaginationSchema }),
).meta({ id: 'ReservationListResponse', description: 'A page of reservations, newest first.' });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

/** An active hold of 15 minutes (the default expiry) for a marketplace order. */
export const reservationExample: Example<typeof reservation> = {
  id: 'RSV-20261122-000001',
  reservation_number: 'RSV-20261122-000001',
  reference: 'TOKO-ORDER-58213',
  location_id: 1,
  status: 'active',
  expires_at: '2026-11-22T09:45:12.481Z',
  created_at: EXAMPLE_CREATED_AT,
  updated_at: EXAMPLE_CREATED_AT,
  consumed_at: null,
  released_at: null,
  release_reason: null,
  created_by: actorExample,
  items: [
    { product_id: '1', sku: 'KOPI-ARABICA-250', product_name: 'Kopi Arabica Gayo 250 g', quantity: 2, consumed_quantity: 0, allocations: [] },
    { product_id: '2', sku: 'TEH-MELATI-100', product_name: 'Teh Melati 100 g', quantity: 6, consumed_quantity: 0, allocations: [] },
  ],
};

/**
 * A held line of a lot-tracked product (the demo's Sambal Bawang as one): 3 units from two lots,
 * the earlier expiry first, as a create line `{ sku: 'SAMBAL-BAWANG-200', quantity: 3 }` holds them.
 */
export const reservationLotItemExample: Example<typeof reservationItem> = {
  product_id: '3',
  sku: 'SAMBAL-BAWANG-200',
  product_name: 'Sambal Bawang 200 ml',
  quantity: 3,
  consumed_quantity: 0,
  allocations: lotAllocationsExample,
};

/** The same hold, given a new expiry an hour after the call. */
export const reservationExtendedExample: Example<typeof reservation> = {
  ...reservationExample,
  expires_at: '2026-11-22T11:04:55.120Z',
  updated_at: EXAMPLE_LATER_AT,
};

/** The same hold after the order was cancelled. */
export const reservationReleasedExample: Example<typeof reservation> = {
  ...reservationExample,
  status: 'released',
  updated_at: EXAMPLE_LATER_AT,
  released_at: EXAMPLE_LATER_AT,
  release_reason: 'Customer cancelled the order',
};

/** The same hold after a partial shipment: 4 of the 6 tea packs shipped, the other 2 released. */
export const reservationConsumedExample: Example<typeof reservation> = {
  ...reservationExample,
  status: 'consumed',
  updated_at: EXAMPLE_LATER_AT,
  consumed_at: EXAMPLE_LATER_AT,
  items: [
    { product_id: '1', sku: 'KOPI-ARABICA-250', product_name: 'Kopi Arabica Gayo 250 g', quantity: 2, consumed_quantity: 2, allocations: [] },
    { product_id: '2', sku: 'TEH-MELATI-100', product_name: 'Teh Melati 100 g', quantity: 6, consumed_quantity: 4, allocations: [] },
  ],
};
