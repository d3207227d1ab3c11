// Stock for partners (extension): levels per location and product, the complete ledger of
// movements with their causes (cursor-paged newest first), and physical counts (compare-and-set);
// and the presenters of levels and movements.
import {
  simplePageExample,
  stockCountBody,
  stockCountResponse,
  stockLevelExample,
  stockLevelRow,
  stockLevelsResponse,
  shortDatedLotExample,
  stockLotExamples,
  stockLotsQuery,
  stockLotsQueryExample,
  stockLotsResponse,
  stockMovementExample,
  stockMovementsQuery,
  stockMovementsResponse,
  stockQuery,
} from '@pits/contract';
import type * as contract from '@pits/contract';
import { AppError, ZERO, domainError, pageFacts, simplePagination, stockKey, toJsonNumber } from '@pits/domain';
import { type StockLevelView, type StockLotView, type StockMovementView, listStockLevels, listStockLots, listStockMovements, recordStockCount } from '@pits/persistence';
import { presentAdjustmentDetail } from './adjustment-routes.js';
import { actorOf, lotOf, pageOf } from './route-helpers.js';
import { type Route, defineRoute } from './route-spec.js';
import type { z } from 'zod';

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** A date means that whole UTC day: `from` its start, `to` up to the next day's start. */
function lowerBound(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  return DAY.test(value) ? `${value}T00:00:00.000Z` : new Date(value).toISOString();
}
/**
 * The exclusive end of the range. Past 9999-12-31 (to=9999-12-31, the last day accepted) there is
 * none: no stored time reaches it, and ISO text would write it `+010000-…`, which sorts first.
 */
function upperBound(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const end = DAY.test(value) ? new Date(`${value}T00:00:00.000Z`) : new Date(new Date(value).getTime() + 1);
  if (DAY.test(value)) end.setUTCDate(end.getUTCDate() + 1);
  return end.getUTCFullYear() > 9999 ? undefined : end.toISOString();
}

export function stockRoutes(): Route[] {
  return [
    defineRoute({
      name: 'stock.levels',
      method: 'GET',
      path: '/api/partner/v1/stock',
      summary: 'Stock levels (extension)',
      description: 'good, damaged, reserved, short_dated and available (good - reserved - short_dated) per location and product.',
      tag: 'Stock',
      tenantScoped: true,
      query: stockQuery,
      envelope: 'A',
      status: 200,
      response: stockLevelsResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 10, location_id: 1, product_id: '1,2', sku: 'KOPI-ARABICA-250,TEH-MELATI-100' },
      responseExample: { stock: [stockLevelExample], pagination: simplePageExample(1) },
      handler: async ({ db, tenantId, query }) => {
        const page = pageOf(query);
        const { rows, total } = await listStockLevels(db, tenantId, { locationId: query.location_id, productIds: query.product_id, skus: query.sku }, page);
        return { stock: rows.map(presentStockLevel), pagination: simplePagination(pageFacts(total, page, rows.length)) };
      },
    }),
    defineRoute({
      name: 'stock.lots',
      method: 'GET',
      path: '/api/partner/v1/stock/lots',
      summary: 'Lots and their expiry dates (extension)',
      description:
        'The lots of lot-tracked products with units at each location, first expiring first (lots without an expiry date last), then by lot number and location. days_left counts WIB calendar days from today; a lot is sellable while days_left is at least max(outbound_expired, 1), and an unsellable lot has available 0 (docs/lots.md#reading-lots).',
      tag: 'Stock',
      tenantScoped: true,
      query: stockLotsQuery,
      envelope: 'A',
      status: 200,
      response: stockLotsResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: stockLotsQueryExample,
      responseExample: { lots: [...stockLotExamples, shortDatedLotExample], pagination: simplePageExample(3) },
      handler: async ({ db, tenantId, query }) => {
        const page = pageOf(query);
        const { rows, total } = await listStockLots(
          db,
          tenantId,
          { locationId: query.location_id, productIds: query.product_id, skus: query.sku, expiringBefore: query.expiring_before, sellable: query.sellable },
          page,
        );
        return { lots: rows.map(presentStockLot), pagination: simplePagination(pageFacts(total, page, rows.length)) };
      },
    }),
    defineRoute({
      name: 'stock.movements',
      method: 'GET',
      path: '/api/partner/v1/stock/movements',
      summary: 'Stock movements (extension)',
      description:
        'Every change of every stock bucket with its cause (adjustment, transfer, inbound, opening), the document number, the quantity before and after, who and when; newest first. Pass next_cursor as cursor for the next page.',
      tag: 'Stock',
      tenantScoped: true,
      query: stockMovementsQuery,
      envelope: 'A',
      status: 200,
      response: stockMovementsResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { location_id: 1, product_id: 5, from: '2026-11-01', to: '2026-11-30', limit: 1, cursor: 'MjAyNi0xMS0yMlQwOTozMDoxMi40ODFafDc' },
      responseExample: { movements: [stockMovementExample], next_cursor: 'MjAyNi0xMS0yMlQwOTozMDoxMi40ODFafDc' },
      handler: async ({ db, tenantId, query }) => {
        const from = lowerBound(query.from);
        const before = upperBound(query.to);
        if (from !== undefined && before !== undefined && from >= before) {
          throw new AppError(domainError('VALIDATION_ERROR', 'to must not be before from', { field: 'to', issue: 'must not be before from' }));
        }
        const { rows, nextCursor } = await listStockMovements(
          db,
          tenantId,
          { locationId: query.location_id, productId: query.product_id, from, before },
          { limit: query.limit, cursor: query.cursor },
        );
        return { movements: rows.map(presentStockMovement), next_cursor: nextCursor };
      },
    }),
    defineRoute({
      name: 'stock.counts',
      method: 'POST',
      path: '/api/partner/v1/stock/counts',
      summary: 'Record a stock count (extension)',
      description:
        'A physical count of one bucket (stock_source good or damaged) at one location, compare-and-set: each line gives what was counted and what was read before counting (expected). If any expected no longer equals the current quantity, the whole count is refused with 409 STALE_QUANTITY naming every stale line: read again and recount. expected null skips the check for that line. The differences are written as one approved adjustment (reason "stock count", a type per line, the adjustment\'s type the sign of the net), with ledger rows and an adjustment.status_changed event. Lines whose count equals the stock change nothing; if none differs the answer is 422.',
      tag: 'Stock',
      tenantScoped: true,
      body: stockCountBody,
      envelope: 'A',
      status: 201,
      response: stockCountResponse,
      errors: ['VALIDATION_ERROR', 'STALE_QUANTITY', 'INSUFFICIENT_STOCK'],
      example: {
        location_id: 1,
        stock_source: 'good',
        items: [
          { sku: 'KOPI-GAYO-250', counted: 46, expected: 48 },
          { product_id: '1043', counted: 12, expected: 10 },
          { sku: 'TEH-MELATI-100', counted: 30, expected: null },
        ],
      },
      responseExample: {
        adjustment: {
          id: 'ADJ-20260131-000042',
          adjustment_number: 'ADJ-20260131-000042',
          location: { id: 1, code: 'WH-JKT', name: 'Jakarta Warehouse', address: 'Jl. Sudirman 1, Jakarta' },
          type: 'increase',
          stock_source: 'good',
          reason: 'stock count',
          status: 'approved',
          total_amount: 220000,
          item_count: 2,
          items: [
            { id: 311, product_id: '1042', product_name: 'Kopi Arabika Gayo 250 g', sku: 'KOPI-GAYO-250', type: 'decrease', quantity: 2, unit_cost: 61500, total_cost: 123000, notes: '', lot_number: null, expiry_date: null, current_stock: 46 },
            { id: 312, product_id: '1043', product_name: 'Kopi Robusta Lampung 250 g', sku: 'KOPI-LPG-250', type: 'increase', quantity: 2, unit_cost: 48500, total_cost: 97000, notes: '', lot_number: null, expiry_date: null, current_stock: 12 },
          ],
          created_by: { id: 3, name: 'Acme Integrations', email: 'ops@acme.example' },
          created_at: '2026-01-31T08:15:30.123Z',
          updated_at: '2026-01-31T08:15:30.123Z',
          approved_at: '2026-01-31T08:15:30.123Z',
          approved_by: { id: 3, name: 'Acme Integrations', email: 'ops@acme.example' },
          rejected_at: null,
          rejected_by: null,
          rejection_reason: null,
        },
      },
      handler: async ({ db, partner, tenantId, body, now }) => {
        const { adjustment, levels } = await recordStockCount(
          db,
          {
            tenantId,
            partnerId: partner.partnerId,
            actor: actorOf(partner),
            locationId: body.location_id,
            stockSource: body.stock_source,
            items: body.items.map((i) => ({ productId: i.product_id, sku: i.sku, counted: i.counted, expected: i.expected, ...lotOf(i) })),
          },
          now,
        );
        const current = (productId: number) => levels.get(stockKey({ locationId: adjustment.location.id, productId }))?.[adjustment.stockSource] ?? ZERO;
        return { adjustment: presentAdjustmentDetail(adjustment, current) };
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Presenters: exact decimals become JSON numbers only here, at the edge. Each presenter's return
// type is its part of the response schema, so a field the schema does not know fails to compile
// here.

function presentStockLevel(s: StockLevelView): z.input<typeof contract.stockLevelEntry> {
  return stockLevelRow({ location_id: s.locationId, product_id: String(s.productId), sku: s.sku, product_name: s.productName }, s, s.shortDated, s.version);
}

function presentStockLot(l: StockLotView): z.input<typeof contract.stockLotEntry> {
  return {
    location_id: l.locationId,
    product_id: String(l.productId),
    sku: l.sku,
    lot_number: l.lotNumber,
    expiry_date: l.expiryDate,
    production_date: l.productionDate,
    good: toJsonNumber(l.good),
    damaged: toJsonNumber(l.damaged),
    reserved: toJsonNumber(l.reserved),
    available: toJsonNumber(l.available),
    days_left: l.daysLeft,
    sellable: l.sellable,
  };
}

function presentStockMovement(m: StockMovementView): z.input<typeof contract.stockMovementEntry> {
  return {
    id: String(m.id),
    location_id: m.locationId,
    product_id: String(m.productId),
    sku: m.sku,
    bucket: m.bucket,
    quantity_change: toJsonNumber(m.change),
    quantity_before: toJsonNumber(m.before),
    quantity_after: toJsonNumber(m.after),
    cause_type: m.causeType,
    cause_id: m.causeId,
    document_number: m.documentNumber,
    actor: m.actor,
    occurred_at: m.occurredAt,
    lot_number: m.lotNumber,
  };
}
