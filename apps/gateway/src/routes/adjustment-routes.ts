// Adjustments: create (201), list and detail under /api/engine/v1, approve and reject (PATCH, and
// POST as the spec's example request uses).
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
import { pageFacts, simplePagination, stockKey, ZERO } from '@pits/domain';
import {
  approveAdjustment,
  createAdjustment,
  findAdjustment,
  listAdjustments,
  readStockLevels,
  rejectAdjustment,
} from '@pits/persistence';
import { actorOf, notFound, pageOf } from './route-helpers.js';
import * as p from './inventory-presenters.js';
import { type Route, defineRoute } from './route-spec.js';

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
            items: body.items.map((i) => ({ productId: i.product_id, sku: i.sku, quantity: i.quantity, unitCost: i.unit_cost, notes: i.notes })),
          },
          now,
        );
        return { adjustment: p.presentCreatedAdjustment(created) };
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
        return { adjustments: rows.map(p.presentAdjustmentListEntry), pagination: simplePagination(pageFacts(total, page, rows.length)) };
      },
    }),
    defineRoute({
      name: 'adjustments.detail',
      method: 'GET',
      path: '/api/engine/v1/adjustments/:id',
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
        const adjustment = await findAdjustment(db, tenantId, params.id ?? '');
        if (!adjustment) throw notFound('adjustment', params.id);
        const levels = await readStockLevels(db, adjustment.items.map((i) => ({ locationId: adjustment.location.id, productId: i.productId })));
        const current = (productId: number) => levels.get(stockKey({ locationId: adjustment.location.id, productId }))?.[adjustment.stockSource] ?? ZERO;
        return { adjustment: p.presentAdjustmentDetail(adjustment, current) };
      },
    }),
    defineRoute({
      name: 'adjustments.approve',
      method: 'PATCH',
      alsoMethods: ['POST'],
      path: '/api/partner/v1/adjustments/:id/approve',
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
