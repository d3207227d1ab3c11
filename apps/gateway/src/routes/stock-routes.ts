// Stock reads for partners (extension): levels per location and product, and the complete ledger
// of movements with their causes, cursor-paged newest first.
import { AppError, domainError, pageFacts, simplePagination, stockLevelsResponse, stockMovementsQuery, stockMovementsResponse, stockQuery } from '@pits/domain';
import { listStockLevels, listStockMovements } from '@pits/persistence';
import * as p from './inventory-presenters.js';
import { pageOf } from './route-helpers.js';
import * as ex from './reference-examples.js';
import { type Route, defineRoute } from './route-spec.js';

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
      description: 'good, damaged, reserved and available (good - reserved) per location and product.',
      tag: 'Stock',
      tenantScoped: true,
      query: stockQuery,
      envelope: 'A',
      status: 200,
      response: stockLevelsResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 10, location_id: 1, product_id: 1, sku: 'KOPI-ARABICA-250' },
      responseExample: { stock: [ex.stockLevelExample], pagination: ex.simplePage(1) },
      handler: async ({ db, tenantId, query }) => {
        const page = pageOf(query);
        const { rows, total } = await listStockLevels(db, tenantId, { locationId: query.location_id, productId: query.product_id, sku: query.sku }, page);
        return { stock: rows.map(p.presentStockLevel), pagination: simplePagination(pageFacts(total, page, rows.length)) };
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
      responseExample: { movements: [ex.stockMovementExample], next_cursor: 'MjAyNi0xMS0yMlQwOTozMDoxMi40ODFafDc' },
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
        return { movements: rows.map(p.presentStockMovement), next_cursor: nextCursor };
      },
    }),
  ];
}
