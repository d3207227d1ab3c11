// Transfers: create (201), list and detail under /api/engine/v1, approve (reserves), reject, and
// the documented ship and receive extensions; and the presenters of a transfer's forms.
import {
  actorExample,
  approveTransferResponse,
  createTransferBody,
  createTransferResponse,
  receiveTransferResponse,
  rejectTransferBody,
  rejectTransferResponse,
  shipTransferResponse,
  simplePageExample,
  transferActionBody,
  transferCreatedExample,
  transferDetailExample,
  transferDetailResponse,
  transferListExample,
  transferListQuery,
  transferListResponse,
} from '@pits/contract';
import type * as contract from '@pits/contract';
import { type Dec, ZERO, availableQuantity, pageFacts, simplePagination, toJsonNumber, withFields } from '@pits/domain';
import {
  type Scope,
  type TransferRecord,
  type TransferWithItems,
  approveTransfer,
  createTransfer,
  findTransfer,
  listTransfers,
  listStockLevels,
  receiveTransfer,
  rejectTransfer,
  shipTransfer,
} from '@pits/persistence';
import { actorOf, notFound, pageOf, presentAllocations } from './route-helpers.js';
import { type PathParameterDoc, type Route, defineRoute } from './route-spec.js';
import type { z } from 'zod';

/** What each path id names, for the reference; Test Request pre-fills it with the sandbox's record. */
const TRANSFER_ID: PathParameterDoc = { description: "The transfer's number, as `id` in its answer (`TRF-YYYYMMDD-NNNNNN`)", example: 'TRF-20261122-000001', sandbox: 'transfer' };
const TRANSFER_TO_SHIP_ID: PathParameterDoc = { description: 'The number of an approved transfer, as `id` in its answer (`TRF-YYYYMMDD-NNNNNN`)', example: 'TRF-20261122-000002', sandbox: 'transfer_to_ship' };
const TRANSFER_TO_RECEIVE_ID: PathParameterDoc = { description: 'The number of a transfer in transit, as `id` in its answer (`TRF-YYYYMMDD-NNNNNN`)', example: 'TRF-20261122-000003', sandbox: 'transfer_to_receive' };

export function transferRoutes(): Route[] {
  /** Each line's live available quantity at the source, as GET /stock reports it (short-dated units left out). */
  async function availableAtSource(db: Scope, transfer: TransferWithItems): Promise<(productId: number) => Dec> {
    const source = transfer.fromLocation.id;
    const productIds = transfer.items.map((i) => i.productId);
    const { rows } = await listStockLevels(db, transfer.tenantId, { locationId: source, productIds }, { page: 1, perPage: Math.max(productIds.length, 1) });
    const levels = new Map(rows.map((r) => [r.productId, availableQuantity(r).minus(r.shortDated)]));
    return (productId) => levels.get(productId) ?? ZERO;
  }
  const actionSpec = (action: 'ship' | 'receive') => ({
    method: 'PATCH' as const,
    alsoMethods: ['POST' as const],
    path: `/api/partner/v1/transfers/:id/${action}`,
    params: { id: action === 'ship' ? TRANSFER_TO_SHIP_ID : TRANSFER_TO_RECEIVE_ID },
    tag: 'Transfers',
    tenantScoped: true,
    body: transferActionBody,
    envelope: 'A' as const,
    status: 200 as const,
    errors: ['NOT_FOUND' as const, 'INVALID_STATE' as const, 'INSUFFICIENT_STOCK' as const],
    example: {},
  });
  return [
    defineRoute({
      name: 'transfers.create',
      method: 'POST',
      path: '/api/partner/v1/transfers',
      summary: 'Create a stock transfer',
      description: 'A request to move stock between two of the tenant\'s locations, pending approval. unit_price is the product\'s cost price.',
      tag: 'Transfers',
      tenantScoped: true,
      body: createTransferBody,
      envelope: 'A',
      status: 201,
      response: createTransferResponse,
      errors: ['VALIDATION_ERROR'],
      example: {
        from_location_id: 1,
        to_location_id: 2,
        transfer_date: '2026-11-22',
        expected_arrival_date: '2026-11-25',
        reference_number: 'REPL-SBY-0001',
        notes: 'Weekly replenishment for Surabaya',
        items: [
          { product_id: '1', quantity: 20 },
          { product_id: '2', quantity: 40, notes: 'keep dry' },
        ],
      },
      responseExample: { transfer: transferCreatedExample },
      handler: async ({ db, partner, tenantId, body, now }) => {
        const created = await createTransfer(
          db,
          {
            tenantId,
            partnerId: partner.partnerId,
            actor: actorOf(partner),
            fromLocationId: body.from_location_id,
            toLocationId: body.to_location_id,
            transferDate: body.transfer_date,
            expectedArrivalDate: body.expected_arrival_date,
            referenceNumber: body.reference_number,
            notes: body.notes,
            items: body.items.map((i) => ({ productId: i.product_id, sku: i.sku, quantity: i.quantity, notes: i.notes, lotNumber: i.lot_number })),
          },
          now,
        );
        return { transfer: presentCreatedTransfer(created, await availableAtSource(db, created)) };
      },
    }),
    defineRoute({
      name: 'transfers.list',
      method: 'GET',
      path: '/api/engine/v1/transfers',
      summary: 'List transfers',
      description: 'Newest first; transfer_date_from and transfer_date_to are inclusive.',
      tag: 'Transfers',
      tenantScoped: true,
      query: transferListQuery,
      envelope: 'A',
      status: 200,
      response: transferListResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 10, status: 'pending', from_location_id: 1, to_location_id: 2, transfer_date_from: '2026-11-01', transfer_date_to: '2026-11-30' },
      responseExample: { transfers: transferListExample, pagination: simplePageExample(1) },
      handler: async ({ db, tenantId, query }) => {
        const page = pageOf(query);
        const { rows, total } = await listTransfers(
          db,
          tenantId,
          {
            status: query.status,
            fromLocationId: query.from_location_id,
            toLocationId: query.to_location_id,
            transferDateFrom: query.transfer_date_from,
            transferDateTo: query.transfer_date_to,
          },
          page,
        );
        return { transfers: rows.map(presentTransferListEntry), pagination: simplePagination(pageFacts(total, page, rows.length)) };
      },
    }),
    defineRoute({
      name: 'transfers.detail',
      method: 'GET',
      path: '/api/engine/v1/transfers/:id',
      params: { id: TRANSFER_ID },
      summary: 'Get a transfer',
      description: "One transfer of the tenant by its number (`TRF-…`), with its lines; another tenant's or an unknown number is 404.",
      tag: 'Transfers',
      tenantScoped: true,
      envelope: 'A',
      status: 200,
      response: transferDetailResponse,
      errors: ['NOT_FOUND'],
      responseExample: { transfer: transferDetailExample },
      handler: async ({ db, tenantId, params }) => {
        const transfer = await findTransfer(db, tenantId, params.id ?? '');
        if (!transfer) throw notFound('transfer', params.id);
        return { transfer: presentTransferDetail(transfer, await availableAtSource(db, transfer)) };
      },
    }),
    defineRoute({
      name: 'transfers.approve',
      method: 'PATCH',
      alsoMethods: ['POST'],
      path: '/api/partner/v1/transfers/:id/approve',
      params: { id: TRANSFER_ID },
      summary: 'Approve a pending transfer',
      description: 'Reserves every line at the source, or nothing: a line above what is available is INSUFFICIENT_STOCK and the transfer stays pending.',
      tag: 'Transfers',
      tenantScoped: true,
      body: transferActionBody,
      envelope: 'A',
      status: 200,
      response: approveTransferResponse,
      errors: ['NOT_FOUND', 'INVALID_STATE', 'INSUFFICIENT_STOCK'],
      example: {},
      responseExample: { transfer: { id: 'TRF-20261122-000001', transfer_number: 'TRF-20261122-000001', status: 'approved', approved_at: '2026-11-22T10:12:40.606Z', approved_by: actorExample } },
      handler: async ({ db, partner, tenantId, params, now }) => {
        return { transfer: presentTransferApproval(await approveTransfer(db, { tenantId, number: params.id ?? '', actor: actorOf(partner) }, now)) };
      },
    }),
    defineRoute({
      name: 'transfers.reject',
      method: 'PATCH',
      alsoMethods: ['POST'],
      path: '/api/partner/v1/transfers/:id/reject',
      params: { id: TRANSFER_ID },
      summary: 'Reject a pending transfer',
      description: 'Rejects a pending transfer with a `reason` (1 to 500 characters); nothing is reserved. Answers PATCH and POST alike; any other status is `INVALID_STATE`.',
      tag: 'Transfers',
      tenantScoped: true,
      body: rejectTransferBody,
      envelope: 'A',
      status: 200,
      response: rejectTransferResponse,
      errors: ['NOT_FOUND', 'INVALID_STATE', 'VALIDATION_ERROR'],
      example: { reason: 'Surabaya is closed for stock take this week' },
      responseExample: {
        transfer: {
          id: 'TRF-20261122-000001',
          transfer_number: 'TRF-20261122-000001',
          status: 'rejected',
          rejected_at: '2026-11-22T10:12:40.606Z',
          rejected_by: actorExample,
          rejection_reason: 'Surabaya is closed for stock take this week',
        },
      },
      handler: async ({ db, partner, tenantId, params, body, now }) => {
        return { transfer: presentTransferRejection(await rejectTransfer(db, { tenantId, number: params.id ?? '', actor: actorOf(partner), reason: body.reason }, now)) };
      },
    }),
    defineRoute({
      name: 'transfers.ship',
      summary: 'Ship an approved transfer (extension)',
      description: 'The reserved quantities leave the source: reserved and good stock both go down. Status becomes in_transit.',
      response: shipTransferResponse,
      responseExample: { transfer: { id: 'TRF-20261122-000002', transfer_number: 'TRF-20261122-000002', status: 'in_transit', shipped_at: '2026-11-22T13:05:00.000Z', shipped_by: actorExample } },
      handler: async ({ db, partner, tenantId, params, now }) => {
        return { transfer: presentTransferShipment(await shipTransfer(db, { tenantId, number: params.id ?? '', actor: actorOf(partner) }, now)) };
      },
      // Last: the action's common facts; none of them is set above.
      ...actionSpec('ship'),
    }),
    defineRoute({
      name: 'transfers.receive',
      summary: 'Receive a transfer in transit (extension)',
      description: "The shipped quantities arrive as good stock at the destination. Status becomes completed and actual_arrival_date is set.",
      response: receiveTransferResponse,
      responseExample: { transfer: { id: 'TRF-20261122-000003', transfer_number: 'TRF-20261122-000003', status: 'completed', received_at: '2026-11-24T08:47:31.220Z', received_by: actorExample } },
      handler: async ({ db, partner, tenantId, params, now }) => {
        return { transfer: presentTransferReceipt(await receiveTransfer(db, { tenantId, number: params.id ?? '', actor: actorOf(partner) }, now)) };
      },
      // Last: the action's common facts; none of them is set above.
      ...actionSpec('receive'),
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Presenters: exact decimals become JSON numbers only here, at the edge. Each presenter's return
// type is its part of the response schema, so a field the schema does not know fails to compile
// here.

function transferHead(t: TransferRecord): Omit<z.input<typeof contract.transferListEntry>, 'from_location' | 'to_location'> {
  return {
    id: t.number,
    transfer_number: t.number,
    transfer_date: t.transferDate,
    expected_arrival_date: t.expectedArrivalDate,
    actual_arrival_date: t.actualArrivalDate,
    reference_number: t.referenceNumber,
    status: t.status,
    notes: t.notes,
    total_items: t.totalItems,
    total_quantity: toJsonNumber(t.totalQuantity),
    created_by: t.createdBy,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    approved_at: t.approvedAt,
    approved_by: t.approvedBy,
    rejected_at: t.rejectedAt,
    rejected_by: t.rejectedBy,
    shipped_at: t.shippedAt,
    shipped_by: t.shippedBy,
    received_at: t.receivedAt,
    received_by: t.receivedBy,
    rejection_reason: t.rejectionReason,
  };
}

const fullLocation = (l: TransferRecord['fromLocation']): z.input<typeof contract.transferLocation> => ({ id: l.id, code: l.code, name: l.name, address: l.address, contact_person: l.contactPerson, phone: l.phone });
const addressedLocation = (l: z.input<typeof contract.transferLocation>): z.input<typeof contract.transferCreatedLocation> => ({ id: l.id, code: l.code, name: l.name, address: l.address });
const shortLocation = (l: TransferRecord['fromLocation']) => ({ id: l.id, code: l.code, name: l.name });

/** Create: the full form, locations with their address only; `available(productId)` as in the detail. */
function presentCreatedTransfer(t: TransferWithItems, available: (productId: number) => Dec): z.input<typeof contract.transferCreated> {
  const { from_location: from, to_location: to, ...rest } = presentTransferDetail(t, available);
  return withFields(rest, { from_location: addressedLocation(from), to_location: addressedLocation(to) });
}

/** Detail: full form, locations with contact person and phone; `available(productId)` is the live available quantity at the source. */
function presentTransferDetail(t: TransferWithItems, available: (productId: number) => Dec): z.input<typeof contract.transferDetail> {
  return withFields(transferHead(t), {
    from_location: fullLocation(t.fromLocation),
    to_location: fullLocation(t.toLocation),
    total_value: toJsonNumber(t.totalValue),
    items: t.items.map((i) => ({
      id: i.id,
      product_id: String(i.productId),
      product_name: i.productName,
      sku: i.sku,
      quantity: toJsonNumber(i.quantity),
      available_stock: toJsonNumber(available(i.productId)),
      allocations: presentAllocations(i.allocations),
      unit_price: toJsonNumber(i.unitPrice),
      total_value: toJsonNumber(i.totalValue),
      notes: i.notes,
    })),
  });
}

function presentTransferListEntry(t: TransferRecord): z.input<typeof contract.transferListEntry> {
  return withFields(transferHead(t), { from_location: shortLocation(t.fromLocation), to_location: shortLocation(t.toLocation) });
}

/**
 * A transfer an operation has just moved, whose record must show the move. The response schemas
 * promise the new status with its time and actor; a record without them is a bug (500), never a
 * response that breaks the contract.
 */
function notRecorded(t: TransferRecord, expected: TransferRecord['status']): Error {
  return new Error(`transfer ${t.number} is ${t.status} after being moved to ${expected}, or lacks its time or actor`);
}

/** `data.transfer` of approve. */
function presentTransferApproval(t: TransferRecord): z.input<typeof contract.approveTransferResponse>['data']['transfer'] {
  if (t.status !== 'approved' || t.approvedAt === null || t.approvedBy === null) throw notRecorded(t, 'approved');
  return { id: t.number, transfer_number: t.number, status: t.status, approved_at: t.approvedAt, approved_by: t.approvedBy };
}

/** `data.transfer` of reject. */
function presentTransferRejection(t: TransferRecord): z.input<typeof contract.rejectTransferResponse>['data']['transfer'] {
  if (t.status !== 'rejected' || t.rejectedAt === null || t.rejectedBy === null || t.rejectionReason === null) throw notRecorded(t, 'rejected');
  return { id: t.number, transfer_number: t.number, status: t.status, rejected_at: t.rejectedAt, rejected_by: t.rejectedBy, rejection_reason: t.rejectionReason };
}

/** `data.transfer` of ship. */
function presentTransferShipment(t: TransferRecord): z.input<typeof contract.shipTransferResponse>['data']['transfer'] {
  if (t.status !== 'in_transit' || t.shippedAt === null || t.shippedBy === null) throw notRecorded(t, 'in_transit');
  return { id: t.number, transfer_number: t.number, status: t.status, shipped_at: t.shippedAt, shipped_by: t.shippedBy };
}

/** `data.transfer` of receive. */
function presentTransferReceipt(t: TransferRecord): z.input<typeof contract.receiveTransferResponse>['data']['transfer'] {
  if (t.status !== 'completed' || t.receivedAt === null || t.receivedBy === null) throw notRecorded(t, 'completed');
  return { id: t.number, transfer_number: t.number, status: t.status, received_at: t.receivedAt, received_by: t.receivedBy };
}
