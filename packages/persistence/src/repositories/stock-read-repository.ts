// Reads of stock for partners: levels per (location, product) and the ledger of movements,
// newest first with an opaque cursor (so pages stay stable while new movements arrive).
import { AppError, type Dec, type PageRequest, type StockBucket, domainError, fromScaled, pageOffset } from '@pits/domain';
import type { StockCauseType } from '../schema/index.js';
import type { Scope } from '../transaction.js';
import { execute, executeTakeFirstOrThrow } from '../execution/execute.js';

export interface StockLevelView {
  locationId: number;
  productId: number;
  sku: string;
  productName: string;
  good: Dec;
  damaged: Dec;
  reserved: Dec;
  /** The part of `reserved` order holds keep; the rest is approved transfers'. */
  reservedForOrders: Dec;
  /** Grows with every change of the row (stock.level_changed carries the same number). */
  version: number;
}

export interface StockLevelFilters {
  locationId?: number | undefined;
  /** Any of these products (up to 100). */
  productIds?: readonly number[] | undefined;
  /** Any of these exact SKUs (up to 100). */
  skus?: readonly string[] | undefined;
}

/** A page of the tenant's stock levels by location, then product; each filter given narrows it. */
export async function listStockLevels(scope: Scope, tenantId: string, filters: StockLevelFilters, page: PageRequest): Promise<{ rows: StockLevelView[]; total: number }> {
  let base = scope.db.selectFrom('stock_levels').innerJoin('products', 'products.id', 'stock_levels.product_id').where('stock_levels.tenant_id', '=', tenantId);
  if (filters.locationId !== undefined) base = base.where('stock_levels.location_id', '=', filters.locationId);
  if (filters.productIds?.length === 0 || filters.skus?.length === 0) return { rows: [], total: 0 };
  if (filters.productIds !== undefined) base = base.where('stock_levels.product_id', 'in', [...new Set(filters.productIds)]);
  if (filters.skus !== undefined) base = base.where('products.sku', 'in', [...new Set(filters.skus)]);
  const [rows, count] = await Promise.all([
    execute(scope, base
      .select(['stock_levels.location_id', 'stock_levels.product_id', 'products.sku', 'products.name', 'stock_levels.good', 'stock_levels.damaged', 'stock_levels.reserved', 'stock_levels.reserved_for_orders', 'stock_levels.version'])
      .orderBy('stock_levels.location_id')
      .orderBy('stock_levels.product_id')
      .limit(page.perPage)
      .offset(pageOffset(page))),
    executeTakeFirstOrThrow(scope, base.select((eb) => eb.fn.countAll<number>().as('n'))),
  ]);
  return {
    rows: rows.map((r) => ({
      locationId: r.location_id,
      productId: r.product_id,
      sku: r.sku,
      productName: r.name,
      good: fromScaled(r.good),
      damaged: fromScaled(r.damaged),
      reserved: fromScaled(r.reserved),
      reservedForOrders: fromScaled(r.reserved_for_orders),
      version: Number(r.version),
    })),
    total: Number(count.n),
  };
}

export interface StockMovementView {
  id: number;
  locationId: number;
  productId: number;
  sku: string;
  bucket: StockBucket;
  change: Dec;
  before: Dec;
  after: Dec;
  causeType: StockCauseType;
  causeId: string;
  documentNumber: string | null;
  actor: string;
  occurredAt: string;
}

export interface StockMovementFilters {
  locationId?: number | undefined;
  productId?: number | undefined;
  /** Inclusive lower bound, ISO timestamp. */
  from?: string | undefined;
  /** Exclusive upper bound, ISO timestamp. */
  before?: string | undefined;
}

/** The opaque cursor of a movement page: the last id seen, base64url. */
export function encodeMovementCursor(id: number): string {
  return Buffer.from(`m:${id}`, 'utf8').toString('base64url');
}

export function decodeMovementCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^m:(\d{1,15})$/.exec(text);
  if (!match) throw new AppError(domainError('VALIDATION_ERROR', 'cursor is not one this API returned', { field: 'cursor', issue: 'is not a cursor this API returned' }));
  return Number(match[1]);
}

/** Movements newest first; `nextCursor` is null on the last page. */
export async function listStockMovements(
  scope: Scope,
  tenantId: string,
  filters: StockMovementFilters,
  page: { limit: number; cursor?: string | undefined },
): Promise<{ rows: StockMovementView[]; nextCursor: string | null }> {
  let query = scope.db
    .selectFrom('stock_ledger')
    .innerJoin('products', 'products.id', 'stock_ledger.product_id')
    .select([
      'stock_ledger.id', 'stock_ledger.location_id', 'stock_ledger.product_id', 'products.sku', 'stock_ledger.bucket', 'stock_ledger.delta',
      'stock_ledger.quantity_before', 'stock_ledger.quantity_after', 'stock_ledger.cause_type', 'stock_ledger.cause_id',
      'stock_ledger.document_number', 'stock_ledger.actor', 'stock_ledger.occurred_at',
    ])
    .where('stock_ledger.tenant_id', '=', tenantId);
  if (filters.locationId !== undefined) query = query.where('stock_ledger.location_id', '=', filters.locationId);
  if (filters.productId !== undefined) query = query.where('stock_ledger.product_id', '=', filters.productId);
  if (filters.from !== undefined) query = query.where('stock_ledger.occurred_at', '>=', filters.from);
  if (filters.before !== undefined) query = query.where('stock_ledger.occurred_at', '<', filters.before);
  if (page.cursor !== undefined) query = query.where('stock_ledger.id', '<', decodeMovementCursor(page.cursor));
  const rows = await execute(scope, query.orderBy('stock_ledger.id', 'desc').limit(page.limit + 1));
  const more = rows.length > page.limit;
  const shown = more ? rows.slice(0, page.limit) : rows;
  return {
    rows: shown.map((r) => ({
      id: r.id,
      locationId: r.location_id,
      productId: r.product_id,
      sku: r.sku,
      bucket: r.bucket,
      change: fromScaled(r.delta),
      before: fromScaled(r.quantity_before),
      after: fromScaled(r.quantity_after),
      causeType: r.cause_type,
      causeId: r.cause_id,
      documentNumber: r.document_number,
      actor: r.actor,
      occurredAt: r.occurred_at,
    })),
    nextCursor: more ? encodeMovementCursor(shown[shown.length - 1]!.id) : null,
  };
}
