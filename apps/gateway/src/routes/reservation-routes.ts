// Order holds (docs/holds.md): create (201), list and detail, and extend, release and consume of an
// active hold, all under /api/partner/v1/reservations and all answering `data.reservation` (or
// `data.reservations`), shaped by the presenter below. The operations decide by the database's
// clock; these routes only map.
import {
  consumeReservationBody,
  createReservationBody,
  extendReservationBody,
  releaseReservationBody,
  reservationConsumedExample,
  reservationExample,
  reservationExtendedExample,
  reservationListQuery,
  reservationListResponse,
  reservationReleasedExample,
  reservationResponse,
  simplePageExample,
} from '@pits/contract';
import type * as contract from '@pits/contract';
import { pageFacts, simplePagination, toJsonNumber } from '@pits/domain';
import {
  type ReservationItemRecord,
  type ReservationRecord,
  consumeReservation,
  createReservation,
  extendReservation,
  findReservation,
  listReservations,
  releaseReservation,
} from '@pits/persistence';
import { actorOf, notFound, pageOf, presentAllocations } from './route-helpers.js';
import { type PathParameterDoc, type Route, defineRoute } from './route-spec.js';
import type { z } from 'zod';

/** What each path id names, for the reference; Test Request pre-fills it with the sandbox's record. */
const RESERVATION_ID: PathParameterDoc = { description: "The reservation's number, as `id` in its answer (`RSV-YYYYMMDD-NNNNNN`)", example: 'RSV-20261122-000002', sandbox: 'reservation' };

const TAG = 'Reservations';
const BASE = '/api/partner/v1/reservations';

export function reservationRoutes(): Route[] {
  return [
    defineRoute({
      name: 'reservations.create',
      method: 'POST',
      path: BASE,
      summary: 'Hold stock for an order',
      description:
        "Holds every line against the location's available good stock, or nothing: a line that asks for more than is available is 422 INSUFFICIENT_STOCK on items[i].quantity, with every short line in error.issues. Held quantities count in reserved (and reserved_for_orders), so available drops at once. A reference already held by an active reservation is 422 VALIDATION_ERROR on reference. The hold expires after expires_in seconds (default 900) by the service's clock, releasing what it held.",
      tag: TAG,
      tenantScoped: true,
      body: createReservationBody,
      envelope: 'A',
      status: 201,
      response: reservationResponse,
      errors: ['VALIDATION_ERROR', 'INSUFFICIENT_STOCK'],
      example: {
        location_id: 1,
        reference: 'TOKO-ORDER-58213',
        expires_in: 900,
        items: [
          { sku: 'KOPI-ARABICA-250', quantity: 2 },
          { product_id: '2', quantity: 6 },
        ],
      },
      responseExample: { reservation: reservationExample },
      handler: async ({ db, partner, tenantId, body }) => {
        const created = await createReservation(db, {
          tenantId,
          partnerId: partner.partnerId,
          actor: actorOf(partner),
          locationId: body.location_id,
          reference: body.reference,
          expiresIn: body.expires_in,
          items: body.items.map((i) => ({ productId: i.product_id, sku: i.sku, quantity: i.quantity, lotNumber: i.lot_number })),
        });
        return { reservation: presentReservation(created) };
      },
    }),
    defineRoute({
      name: 'reservations.list',
      method: 'GET',
      path: BASE,
      summary: 'List reservations',
      description:
        'Newest first; filters status, location_id, reference, product_id and sku, every one given must match. Status is as of now: an active hold past its expires_at is listed as expired.',
      tag: TAG,
      tenantScoped: true,
      query: reservationListQuery,
      envelope: 'A',
      status: 200,
      response: reservationListResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 10, status: 'active', location_id: 1, reference: 'TOKO-ORDER-58213', product_id: 1, sku: 'KOPI-ARABICA-250' },
      responseExample: { reservations: [reservationExample], pagination: simplePageExample(1) },
      handler: async ({ db, tenantId, query }) => {
        const page = pageOf(query);
        const filters = { status: query.status, locationId: query.location_id, reference: query.reference, productId: query.product_id, sku: query.sku };
        const { rows, total } = await listReservations(db, tenantId, filters, page);
        return { reservations: rows.map(presentReservation), pagination: simplePagination(pageFacts(total, page, rows.length)) };
      },
    }),
    defineRoute({
      name: 'reservations.detail',
      method: 'GET',
      path: `${BASE}/:id`,
      params: { id: RESERVATION_ID },
      summary: 'Get a reservation',
      description: "By its id (the reservation number). Another tenant's or an unknown id is 404.",
      tag: TAG,
      tenantScoped: true,
      envelope: 'A',
      status: 200,
      response: reservationResponse,
      errors: ['NOT_FOUND'],
      responseExample: { reservation: reservationExample },
      handler: async ({ db, tenantId, params }) => {
        const found = await findReservation(db, tenantId, params.id ?? '');
        if (!found) throw notFound('reservation', params.id);
        return { reservation: presentReservation(found) };
      },
    }),
    defineRoute({
      name: 'reservations.extend',
      method: 'POST',
      path: `${BASE}/:id/extend`,
      params: { id: RESERVATION_ID },
      summary: 'Extend a reservation',
      description: 'A new expiry, expires_in seconds from now, for an active hold only; on any other status (an expired one included) 422 INVALID_STATE and nothing changes.',
      tag: TAG,
      tenantScoped: true,
      body: extendReservationBody,
      envelope: 'A',
      status: 200,
      response: reservationResponse,
      errors: ['NOT_FOUND', 'INVALID_STATE', 'VALIDATION_ERROR'],
      example: { expires_in: 3600 },
      responseExample: { reservation: reservationExtendedExample },
      handler: async ({ db, partner, tenantId, params, body }) => {
        const extended = await extendReservation(db, { tenantId, number: params.id ?? '', actor: actorOf(partner), expiresIn: body.expires_in });
        return { reservation: presentReservation(extended) };
      },
    }),
    defineRoute({
      name: 'reservations.release',
      method: 'POST',
      path: `${BASE}/:id/release`,
      params: { id: RESERVATION_ID },
      summary: 'Release a reservation',
      description: 'The order was cancelled: every held quantity becomes available again and the status is released. Active holds only; otherwise 422 INVALID_STATE and nothing changes.',
      tag: TAG,
      tenantScoped: true,
      body: releaseReservationBody,
      envelope: 'A',
      status: 200,
      response: reservationResponse,
      errors: ['NOT_FOUND', 'INVALID_STATE', 'VALIDATION_ERROR'],
      example: { reason: 'Customer cancelled the order' },
      responseExample: { reservation: reservationReleasedExample },
      handler: async ({ db, partner, tenantId, params, body }) => {
        const reason = body.reason === '' ? undefined : body.reason;
        const released = await releaseReservation(db, { tenantId, number: params.id ?? '', actor: actorOf(partner), reason });
        return { reservation: presentReservation(released) };
      },
    }),
    defineRoute({
      name: 'reservations.consume',
      method: 'POST',
      path: `${BASE}/:id/consume`,
      params: { id: RESERVATION_ID },
      summary: 'Consume a reservation',
      description:
        "The order shipped. Without items every line is consumed whole; with items (products of this hold, each at most its held quantity) those quantities are consumed and the rest released. Consumed quantities leave the location's good stock and its held quantity in one step, with ledger rows whose cause is the reservation. Active holds only; otherwise 422 INVALID_STATE and nothing changes.",
      tag: TAG,
      tenantScoped: true,
      body: consumeReservationBody,
      envelope: 'A',
      status: 200,
      response: reservationResponse,
      errors: ['NOT_FOUND', 'INVALID_STATE', 'VALIDATION_ERROR'],
      example: {
        items: [
          { sku: 'KOPI-ARABICA-250', quantity: 2 },
          { sku: 'TEH-MELATI-100', quantity: 4 },
        ],
      },
      responseExample: { reservation: reservationConsumedExample },
      handler: async ({ db, partner, tenantId, params, body }) => {
        const items = body.items?.map((i) => ({ productId: i.product_id, sku: i.sku, quantity: i.quantity }));
        const consumed = await consumeReservation(db, { tenantId, number: params.id ?? '', actor: actorOf(partner), items });
        return { reservation: presentReservation(consumed) };
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Presenters (docs/holds.md#reservations): exact decimals become JSON numbers only here. The return
// type is the response schema's, so a field it does not know fails to compile here.

function reservationItem(item: ReservationItemRecord): z.input<typeof contract.reservationItem> {
  return {
    product_id: String(item.productId),
    sku: item.sku,
    product_name: item.productName,
    quantity: toJsonNumber(item.quantity),
    consumed_quantity: toJsonNumber(item.consumedQuantity),
    allocations: presentAllocations(item.allocations),
  };
}

/** The one form every reservation route answers with; `id` is the reservation number. */
function presentReservation(r: ReservationRecord): z.input<typeof contract.reservation> {
  return {
    id: r.number,
    reservation_number: r.number,
    reference: r.reference,
    location_id: r.locationId,
    status: r.status,
    expires_at: r.expiresAt,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    consumed_at: r.consumedAt,
    released_at: r.releasedAt,
    release_reason: r.releaseReason,
    created_by: r.createdBy,
    items: r.items.map(reservationItem),
  };
}
