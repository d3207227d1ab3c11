// Inbound shipments for partners: list (envelope B), detail (envelope A) and receive, and the
// presenters of a shipment. Each route has its own 200-per-minute rate-limit bucket besides the
// partner's tier.
import {
  inboundDetailExample,
  inboundDetailResponse,
  inboundListExample,
  inboundListQuery,
  inboundListResponse,
  rangePageExample,
  receiveInboundBody,
  receiveInboundResponse,
} from '@pits/contract';
import type * as contract from '@pits/contract';
import { isoMicros, pageFacts, pendingQuantity, rangePagination, toJsonNumber, withFields } from '@pits/domain';
import { type InboundDetailRecord, type InboundRecord, type LocationRecord, findInbound, listInbounds, receiveInbound } from '@pits/persistence';
import { presentProduct } from './product-routes.js';
import { actorOf, lotOf, notFound, numericId, pageOf } from './route-helpers.js';
import { type PathParameterDoc, type Route, defineRoute } from './route-spec.js';
import { presentTenantLocation } from './tenant-routes.js';
import type { z } from 'zod';

/** What each path id names, for the reference; Test Request pre-fills it with the sandbox's record. */
const INBOUND_ID: PathParameterDoc = { description: "The inbound shipment's id, as `id` in its answer and in the list", example: '1', sandbox: 'inbound' };

export function inboundRoutes(): Route[] {
  return [
    defineRoute({
      name: 'inbound.list',
      method: 'GET',
      path: '/api/partner/v1/inbound',
      summary: 'List inbound shipments',
      description: 'Newest first; filters status and location_id. Each entry embeds its location, its lines (details and inbound_details, the same content) and their products.',
      tag: 'Inbound',
      tenantScoped: true,
      query: inboundListQuery,
      envelope: 'B',
      status: 200,
      response: inboundListResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 20, status: 'pending', location_id: 1 },
      responseExample: { inbounds: inboundListExample, pagination: rangePageExample(1) },
      handler: async ({ db, tenantId, query }) => {
        const page = pageOf(query);
        const { rows, total } = await listInbounds(db, tenantId, { status: query.status, locationId: query.location_id }, page);
        return { inbounds: rows.map(presentInboundListEntry), pagination: rangePagination(pageFacts(total, page, rows.length)) };
      },
    }),
    defineRoute({
      name: 'inbound.detail',
      method: 'GET',
      path: '/api/partner/v1/inbound/:id',
      params: { id: INBOUND_ID },
      summary: 'Get an inbound shipment',
      description: "id is the list's inbound_id; items[].id is the item_id that receive takes; quantity is the line's ordered quantity.",
      tag: 'Inbound',
      tenantScoped: true,
      envelope: 'A',
      status: 200,
      response: inboundDetailResponse,
      errors: ['NOT_FOUND'],
      responseExample: { inbound: inboundDetailExample },
      handler: async ({ db, tenantId, params }) => {
        const shipment = await findInbound(db, tenantId, numericId(params.id));
        if (!shipment) throw notFound('inbound shipment', params.id);
        return { inbound: presentInboundDetail(shipment) };
      },
    }),
    defineRoute({
      name: 'inbound.receive',
      method: 'POST',
      path: '/api/partner/v1/inbound/:id/receive',
      params: { id: INBOUND_ID },
      summary: 'Receive items of an inbound shipment',
      description:
        'Cumulative received quantities may not exceed what is expected (422 on that line). condition (good, default, or damaged) and grid_id are extensions. The shipment becomes partial while anything is pending and received when nothing is; a webhook inbound.status_changed follows each change. A line of a lot-tracked product names its lot (lot_number, with expiry_date and production_date for a new lot); a lot with fewer days left than the inbound_expired of its product is refused with 422 SHELF_LIFE_TOO_SHORT and nothing of the receipt is applied (docs/lots.md#receiving).',
      tag: 'Inbound',
      tenantScoped: true,
      body: receiveInboundBody,
      envelope: 'A',
      status: 200,
      response: receiveInboundResponse,
      errors: ['NOT_FOUND', 'VALIDATION_ERROR', 'INVALID_STATE', 'SHELF_LIFE_TOO_SHORT'],
      example: {
        items: [
          { item_id: '1', received_quantity: 60, received_by: 'Budi Santoso', grid_id: 'A-01-03' },
          { item_id: '2', received_quantity: 18, received_at: '2026-11-22T17:04:55+07:00', received_by: 'Budi Santoso', lot_number: 'SB-261120-D', expiry_date: '2027-05-20', production_date: '2026-11-20' },
        ],
      },
      responseExample: {
        inbound: {
          id: '1',
          status: 'partial',
          updated_at: '2026-11-22T10:04:55.120Z',
          items: [
            { id: '1', product_id: 1, sku: 'KOPI-ARABICA-250', received_quantity: 60, pending_quantity: 0, grid_id: 'A-01-03', received_at: '2026-11-22T10:04:55.120Z', received_by: 'Budi Santoso' },
            { id: '2', product_id: 3, sku: 'SAMBAL-BAWANG-200', received_quantity: 18, pending_quantity: 6, grid_id: 'RCV-01', received_at: '2026-11-22T10:04:55.000Z', received_by: 'Budi Santoso' },
          ],
        },
      },
      handler: async ({ db, partner, tenantId, params, body, now }) => {
        const result = await receiveInbound(
          db,
          {
            tenantId,
            id: numericId(params.id),
            actor: actorOf(partner),
            receipts: body.items.map((i) => ({
              itemId: i.item_id === undefined ? undefined : Number(i.item_id),
              sku: i.sku,
              quantity: i.received_quantity,
              condition: i.condition,
              gridId: i.grid_id,
              receivedAt: i.received_at === undefined ? undefined : new Date(i.received_at),
              receivedBy: i.received_by,
              ...lotOf(i),
            })),
          },
          now,
        );
        return { inbound: presentReceipt(result.shipment, result.touched) };
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Presenters: the contract's two shapes of a shipment, which agree on the same shipment: the list's
// integer inbound_id is the detail's string id, code is reference_number, inbound_details[].id is
// the detail's items[].id and the item_id that receive takes.

/** The tenant-location object plus the fields only the inbound embedding carries. */
function inboundLocation(l: LocationRecord): z.input<typeof contract.inboundLocation> {
  return withFields(presentTenantLocation(l), {
    is_return: l.isReturn,
    updated_by: l.updatedBy,
    deleted_by: l.deletedBy,
    deleted_at: l.deletedAt,
    updated_at: l.updatedAt,
  });
}

const received = (line: InboundDetailRecord) => line.receivedGood.plus(line.receivedDamaged);

/** An entry of `data.inbounds`. */
function presentInboundListEntry(s: InboundRecord): z.input<typeof contract.inboundListEntry> {
  const details = s.details.map((line): z.input<typeof contract.inboundDetailLine> => ({
    inbound_detail_id: line.id,
    inbound_id: line.inboundId,
    product_id: line.productId,
    expected_quantity: toJsonNumber(line.expectedQuantity),
    notes: line.notes,
    created_by: line.createdBy,
    updated_by: line.updatedBy,
    deleted_by: line.deletedBy,
    received_by: line.receivedBy,
    deleted_at: line.deletedAt,
    created_at: line.createdAt,
    updated_at: line.updatedAt,
    product: presentProduct(line.product),
  }));
  return {
    inbound_id: s.id,
    code: s.code,
    inbound_date: isoMicros(new Date(s.inboundDate)),
    source_type: s.sourceType,
    source_id: s.sourceId,
    source_code: s.sourceCode,
    location_id: s.locationId,
    status: s.status,
    received_at: s.receivedAt,
    cancelled_at: s.cancelledAt,
    notes: s.notes,
    created_by: s.createdBy,
    updated_by: s.updatedBy,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    details,
    details_count: details.length,
    location: inboundLocation(s.location),
    inbound_details: details,
  };
}

/** `data.inbound` of the detail. `quantity` is the line's ordered (expected) quantity. */
function presentInboundDetail(s: InboundRecord): z.input<typeof contract.inboundDetail> {
  return {
    id: String(s.id),
    reference_number: s.code,
    status: s.status,
    location: { id: String(s.location.id), code: s.location.code, name: s.location.name, address: s.location.address },
    items: s.details.map((line) => ({
      id: String(line.id),
      product_id: line.productId,
      sku: line.product.sku,
      name: line.product.name,
      quantity: toJsonNumber(line.expectedQuantity),
      unit: line.unit,
      unit_price: toJsonNumber(line.unitPrice),
      expected_quantity: toJsonNumber(line.expectedQuantity),
      good_received_quantity: toJsonNumber(line.receivedGood),
      damaged_received_quantity: toJsonNumber(line.receivedDamaged),
      grid_id: line.gridId ?? s.location.receivingGrid,
      received_at: line.receivedAt,
      received_by: line.receivedBy,
    })),
    notes: s.notes,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** `data.inbound` of a receipt: the lines it touched, with cumulative figures. */
function presentReceipt(s: InboundRecord, touched: readonly number[]): z.input<typeof contract.receiveInboundResponse>['data']['inbound'] {
  const byId = new Map(s.details.map((line) => [line.id, line]));
  return {
    id: String(s.id),
    status: s.status,
    updated_at: s.updatedAt,
    items: touched.map((id) => {
      const line = byId.get(id)!;
      return {
        id: String(id),
        product_id: line.productId,
        sku: line.product.sku,
        received_quantity: toJsonNumber(received(line)),
        pending_quantity: toJsonNumber(pendingQuantity({ expected: line.expectedQuantity, received: received(line) })),
        grid_id: line.gridId ?? s.location.receivingGrid,
        received_at: line.receivedAt!,
        received_by: line.receivedBy!,
      };
    }),
  };
}
