// Adjustments: create (201), list and detail under /api/engine/v1, approve and reject (PATCH, and
// POST as the spec's example request uses); and the presenters of an adjustment's three forms.
import {
  adjustmentActionResponse,
  adjustmentCreatedExample,
  adjustmentDetailExample,
  adjustmentDetailResponse,
  adjustmentListExample,
  adjustmentListQuery,
  adjustmentListResponse,
  approveAdjustmentBody,
  createAdjustmentBody,
  createAdjustmentResponse,
  rejectAdjustmentBody,
  simplePageExample,
} from '@pits/contract';
import type * as contract from '@pits/contract';
import { type Dec, pageFacts, simplePagination, toJsonNumber, withFields, ZERO } from '@pits/domain';
import {
  type AdjustmentItemRecord,
  type AdjustmentRecord,
  type AdjustmentSummary,
  type AdjustmentWithItems,
  approveAdjustment,
  createAdjustment,
  findAdjustment,
  listAdjustments,
  rejectAdjustment,
} from '@pits/persistence';
import { actorOf, lotOf, notFound, pageOf } from './route-helpers.js';
import { type PathParameterDoc, type Route, defineRoute } from './route-spec.js';
import type { z } from 'zod';

/** What each path id names, for the reference; Test Request pre-fills it with the sandbox's record. */
const ADJUSTMENT_ID: PathParameterDoc = { description: "The adjustment's number, as `id` in its answer (`ADJ-YYYYMMDD-NNNNNN`)", example: 'ADJ-20261122-000002', sandbox: 'adjustment' };

export function adjustmentRoutes(): Route[] {
  return [
    defineRoute({
      name: 'adjustments.create',
      method: 'POST',
      path: '/api/partner/v1/adjustments',
      summary: 'Create a stock adjustment',
      description: 'A stock correction, pending approval. total_cost = quantity x unit_cost, exact; total_amount is their sum.',
      tag: 'Adjustments',
      tenantScoped: true,
      body: createAdjustmentBody,
      envelope: 'A',
      status: 201,
      response: createAdjustmentResponse,
      errors: ['VALIDATION_ERROR'],
      example: {
        location_id: 1,
        type: 'increase',
        stock_source: 'good',
        reason: 'Cycle count correction',
        items: [{ product_id: '2', quantity: 12, unit_cost: 12000, notes: 'rak B4' }],
      },
      responseExample: { adjustment: adjustmentCreatedExample },
      handler: async ({ db, partner, tenantId, body, now }) => {
        const created = await createAdjustment(
          db,
          {
            tenantId,
            partnerId: partner.partnerId,
            actor: actorOf(partner),
            locationId: body.location_id,
            type: body.type,
            stockSource: body.stock_source,
            reason: body.reason,
            items: body.items.map((i) => ({ productId: i.product_id, sku: i.sku, quantity: i.quantity, unitCost: i.unit_cost, notes: i.notes, ...lotOf(i) })),
          },
          now,
        );
        return { adjustment: presentCreatedAdjustment(created) };
      },
    }),
    defineRoute({
      name: 'adjustments.list',
      method: 'GET',
      path: '/api/engine/v1/adjustments',
      summary: 'List adjustments',
      description: 'Newest first; filters status, location_id and type.',
      tag: 'Adjustments',
      tenantScoped: true,
      query: adjustmentListQuery,
      envelope: 'A',
      status: 200,
      response: adjustmentListResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 10, status: 'pending', location_id: 1, type: 'decrease' },
      responseExample: { adjustments: adjustmentListExample, pagination: simplePageExample(1) },
      handler: async ({ db, tenantId, query }) => {
        const page = pageOf(query);
        const { rows, total } = await listAdjustments(db, tenantId, { status: query.status, locationId: query.location_id, type: query.type }, page);
        return { adjustments: rows.map(presentAdjustmentListEntry), pagination: simplePagination(pageFacts(total, page, rows.length)) };
      },
    }),
    defineRoute({
      name: 'adjustments.detail',
      method: 'GET',
      path: '/api/engine/v1/adjustments/:id',
      params: { id: ADJUSTMENT_ID },
      summary: 'Get an adjustment',
      description: "Items carry current_stock: the live quantity of the product in the adjustment's bucket at its location.",
      tag: 'Adjustments',
      tenantScoped: true,
      envelope: 'A',
      status: 200,
      response: adjustmentDetailResponse,
      errors: ['NOT_FOUND'],
      responseExample: { adjustment: adjustmentDetailExample },
      handler: async ({ db, tenantId, params }) => {
        // One statement: the adjustment, its lines and their products' stock rows.
        const adjustment = await findAdjustment(db, tenantId, params.id ?? '');
        if (!adjustment) throw notFound('adjustment', params.id);
        return { adjustment: presentAdjustmentDetail(adjustment, (productId) => adjustment.currentStock.get(productId) ?? ZERO) };
      },
    }),
    defineRoute({
      name: 'adjustments.approve',
      method: 'PATCH',
      alsoMethods: ['POST'],
      path: '/api/partner/v1/adjustments/:id/approve',
      params: { id: ADJUSTMENT_ID },
      summary: 'Approve a pending adjustment',
      description: 'Applies the stock change, all lines or none. A decrease that would take stock below zero (or good stock below what is reserved) is INSUFFICIENT_STOCK and the adjustment stays pending.',
      tag: 'Adjustments',
      tenantScoped: true,
      body: approveAdjustmentBody,
      envelope: 'A',
      status: 200,
      response: adjustmentActionResponse,
      errors: ['NOT_FOUND', 'INVALID_STATE', 'INSUFFICIENT_STOCK'],
      example: {},
      responseExample: null,
      handler: async ({ db, partner, tenantId, params, now }) => {
        await approveAdjustment(db, { tenantId, number: params.id ?? '', actor: actorOf(partner) }, now);
        return null;
      },
    }),
    defineRoute({
      name: 'adjustments.reject',
      method: 'PATCH',
      alsoMethods: ['POST'],
      path: '/api/partner/v1/adjustments/:id/reject',
      params: { id: ADJUSTMENT_ID },
      summary: 'Reject a pending adjustment',
      description: 'Rejects a pending adjustment with a `reason` (1 to 500 characters); no stock moves. Answers PATCH and POST alike; any other status is `INVALID_STATE`.',
      tag: 'Adjustments',
      tenantScoped: true,
      body: rejectAdjustmentBody,
      envelope: 'A',
      status: 200,
      response: adjustmentActionResponse,
      errors: ['NOT_FOUND', 'INVALID_STATE', 'VALIDATION_ERROR'],
      example: { reason: 'Counted twice: the damaged cans were already written off' },
      responseExample: null,
      handler: async ({ db, partner, tenantId, params, body, now }) => {
        await rejectAdjustment(db, { tenantId, number: params.id ?? '', actor: actorOf(partner), reason: body.reason }, now);
        return null;
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Presenters: exact decimals become JSON numbers only here, at the edge. Each presenter's return
// type is its part of the response schema, so a field the schema does not know fails to compile
// here. The detail is also what a stock count answers (stock-routes.ts).

function adjustmentItem(item: AdjustmentItemRecord): z.input<typeof contract.adjustmentItem> {
  return {
    id: item.id,
    product_id: String(item.productId),
    product_name: item.productName,
    sku: item.sku,
    type: item.type,
    quantity: toJsonNumber(item.quantity),
    unit_cost: toJsonNumber(item.unitCost),
    lot_number: item.lotNumber,
    expiry_date: item.expiryDate,
    total_cost: toJsonNumber(item.totalCost),
    notes: item.notes,
  };
}

function adjustmentHead(a: AdjustmentRecord): Omit<z.input<typeof contract.adjustmentDetail>, 'items'> {
  return {
    id: a.number,
    adjustment_number: a.number,
    location: { id: a.location.id, code: a.location.code, name: a.location.name, address: a.location.address },
    type: a.type,
    stock_source: a.stockSource,
    reason: a.reason,
    status: a.status,
    total_amount: toJsonNumber(a.totalAmount),
    item_count: a.itemCount,
    created_by: a.createdBy,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    approved_at: a.approvedAt,
    approved_by: a.approvedBy,
    rejected_at: a.rejectedAt,
    rejected_by: a.rejectedBy,
    rejection_reason: a.rejectionReason,
  };
}

/** Create response: detail form, items without current_stock. */
function presentCreatedAdjustment(a: AdjustmentWithItems): z.input<typeof contract.adjustmentCreated> {
  return withFields(adjustmentHead(a), { items: a.items.map(adjustmentItem) });
}

/** Detail: items with the live quantity of their bucket (`currentStock(productId)`). */
export function presentAdjustmentDetail(a: AdjustmentWithItems, currentStock: (productId: number) => Dec): z.input<typeof contract.adjustmentDetail> {
  return withFields(adjustmentHead(a), { items: a.items.map((i) => withFields(adjustmentItem(i), { current_stock: toJsonNumber(currentStock(i.productId)) })) });
}

function presentAdjustmentListEntry(a: AdjustmentSummary): z.input<typeof contract.adjustmentListEntry> {
  return {
    id: a.number,
    adjustment_number: a.number,
    location: { id: a.location.id, code: a.location.code, name: a.location.name },
    type: a.type,
    reason: a.reason,
    status: a.status,
    total_amount: toJsonNumber(a.totalAmount),
    item_count: a.itemCount,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}
