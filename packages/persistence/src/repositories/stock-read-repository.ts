// Reads of stock for partners: levels per (location, product) and the ledger of movements,
// newest first with an opaque cursor (so pages stay stable while new movements arrive).
import { AppError, type Dec, type PageRequest, type StockBucket, ZERO, domainError, fromScaled, lotFigures, pageOffset, rowLotFigures, stockKey } from '@pits/domain';
import { sql } from 'kysely';
import { databaseToday, lotPolicyOf, lotsByRow, readLotLevels } from './lot-repository.js';
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
  /** Good units of the row's unsellable lots that are not reserved (docs/lots.md#short-dated-stock); 0 without lots. */
  shortDated: Dec;
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
      .select(['stock_levels.location_id', 'stock_levels.product_id', 'products.sku', 'products.name', 'stock_levels.good', 'stock_levels.damaged', 'stock_levels.reserved', 'stock_levels.reserved_for_orders', 'stock_levels.version', 'products.production_batch', 'products.inbound_expired', 'products.outbound_expired'])
      .orderBy('stock_levels.location_id')
      .orderBy('stock_levels.product_id')
      .limit(page.perPage)
      .offset(pageOffset(page))),
    executeTakeFirstOrThrow(scope, base.select((eb) => eb.fn.countAll<number>().as('n'))),
  ]);
  const shortDated = await shortDatedOf(scope, rows.filter((r) => lotPolicyOf(r).lotTracked).map((r) => ({ locationId: r.location_id, productId: r.product_id, outboundExpired: Number(r.outbound_expired) })));
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
      shortDated: shortDated.get(stockKey({ locationId: r.location_id, productId: r.product_id })) ?? ZERO,
      version: Number(r.version),
    })),
    total: Number(count.n),
  };
}

/** The short-dated units of lot-tracked rows today, by `stockKey`; nothing is read for none. */
async function shortDatedOf(scope: Scope, rows: readonly { locationId: number; productId: number; outboundExpired: number }[]): Promise<Map<string, Dec>> {
  const found = new Map<string, Dec>();
  if (rows.length === 0) return found;
  const [levels, today] = [await readLotLevels(scope, rows), await databaseToday(scope)];
  const lots = lotsByRow(levels.values());
  for (const row of rows) found.set(stockKey(row), rowLotFigures(lots.get(stockKey(row)) ?? [], today, row.outboundExpired).shortDated);
  return found;
}

/** A lot at a location as `GET /stock/lots` shows it, on the service's today. */
export interface StockLotView {
  locationId: number;
  productId: number;
  sku: string;
  lotNumber: string;
  expiryDate: string | null;
  productionDate: string | null;
  good: Dec;
  damaged: Dec;
  reserved: Dec;
  /** 0 when the lot is not sellable. */
  available: Dec;
  daysLeft: number | null;
  sellable: boolean;
}

export interface StockLotFilters extends StockLevelFilters {
  /** Lots whose expiry date is before this day (YYYY-MM-DD); lots without one never are. */
  expiringBefore?: string | undefined;
  /** Only lots that are (true) or are not (false) sellable today. */
  sellable?: boolean | undefined;
}

/**
 * A page of the tenant's lots with units at each location, first expiring first (lots without an
 * expiry date last), then by lot number and location (docs/lots.md#reading-lots).
 */
export async function listStockLots(scope: Scope, tenantId: string, filters: StockLotFilters, page: PageRequest): Promise<{ rows: StockLotView[]; total: number; today: string }> {
  const today = await databaseToday(scope);
  let base = scope.db
    .selectFrom('lot_stock')
    .innerJoin('lots', 'lots.id', 'lot_stock.lot_id')
    .innerJoin('products', 'products.id', 'lot_stock.product_id')
    .where('lot_stock.tenant_id', '=', tenantId)
    .where((eb) => eb.or([eb('lot_stock.good', '>', 0), eb('lot_stock.damaged', '>', 0), eb('lot_stock.reserved', '>', 0)]));
  if (filters.productIds?.length === 0 || filters.skus?.length === 0) return { rows: [], total: 0, today };
  if (filters.locationId !== undefined) base = base.where('lot_stock.location_id', '=', filters.locationId);
  if (filters.productIds !== undefined) base = base.where('lot_stock.product_id', 'in', [...new Set(filters.productIds)]);
  if (filters.skus !== undefined) base = base.where('products.sku', 'in', [...new Set(filters.skus)]);
  if (filters.expiringBefore !== undefined) base = base.where('lots.expiry_date', '<', filters.expiringBefore);
  // A lot is sellable until its `unsellable_from` (dated from the product's outbound_expired).
  if (filters.sellable === true) base = base.where((eb) => eb.or([eb('lots.unsellable_from', 'is', null), eb('lots.unsellable_from', '>', today)]));
  if (filters.sellable === false) base = base.where('lots.unsellable_from', '<=', today);
  const rows = await execute(
    scope,
    base
      .select([
        'lot_stock.location_id',
        'lot_stock.product_id',
        'products.sku',
        'products.outbound_expired',
        'lots.lot_number',
        'lots.expiry_date',
        'lots.production_date',
        'lot_stock.good',
        'lot_stock.damaged',
        'lot_stock.reserved',
      ])
      .orderBy(sql`case when lots.expiry_date is null then 1 else 0 end`)
      .orderBy('lots.expiry_date')
      .orderBy('lots.lot_number')
      .orderBy('lot_stock.location_id')
      .limit(page.perPage)
      .offset(pageOffset(page)),
  );
  const count = await executeTakeFirstOrThrow(scope, base.select((eb) => eb.fn.countAll<number>().as('n')));
  return {
    rows: rows.map((r) => {
      const lot = { lotNumber: r.lot_number, expiryDate: r.expiry_date, good: fromScaled(r.good), reserved: fromScaled(r.reserved) };
      const figures = lotFigures(lot, today, Number(r.outbound_expired));
      return {
        locationId: r.location_id,
        productId: r.product_id,
        sku: r.sku,
        lotNumber: r.lot_number,
        expiryDate: r.expiry_date,
        productionDate: r.production_date,
        good: lot.good,
        damaged: fromScaled(r.damaged),
        reserved: lot.reserved,
        available: figures.available,
        daysLeft: figures.daysLeft,
        sellable: figures.sellable,
      };
    }),
    total: Number(count.n),
    today,
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
  /** The lot the units moved in; null for a product without lots. */
  lotNumber: string | null;
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
      'stock_ledger.document_number', 'stock_ledger.actor', 'stock_ledger.occurred_at', 'stock_ledger.lot_number',
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
      lotNumber: r.lot_number,
    })),
    nextCursor: more ? encodeMovementCursor(shown[shown.length - 1]!.id) : null,
  };
}
