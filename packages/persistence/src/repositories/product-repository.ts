// Products of a tenant's catalogue: rows, their mapping to records, and the queries over them.
import type { Compilable, Selectable } from 'kysely';
import { AppError, type LotPolicy, type PageRequest, domainError, pageOffset, toFixedString } from '@pits/domain';
import { lotPolicyOf, redateLots } from './lot-repository.js';
import { boolValue, fromBoolValue } from './boolean-values.js';
import { changedColumns, storedValue, stampedUpdate } from './row-changes.js';
import { type ParamRef, markedList, preparedQuery } from '../parameterised-query.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import type { ProductTable } from '../schema/index.js';
import type { LocationRow } from './location-repository.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow } from '../execution/execute.js';

export type ProductRow = Selectable<ProductTable>;

/** A product as this package hands it out. */
export interface ProductRecord {
  id: number;
  tenantId: string;
  categoryId: number;
  name: string;
  sku: string;
  barcode: string;
  description: string;
  brand: string | null;
  productType: string;
  /** Prices and dimensions: decimal strings with exactly two places (`"19.90"`). */
  publishedPrice: string;
  costPrice: string;
  weight: string;
  width: string;
  height: string;
  length: string;
  status: string;
  isBundle: boolean;
  isManagedByFulfillment: boolean;
  advanceQc: boolean;
  productionBatch: boolean;
  coldStorage: boolean;
  fulfillmentManageBy: string | null;
  outboundExpired: number;
  inboundExpired: number;
  outerBarcode: string | null;
  createdBy: string;
  updatedBy: string;
  deletedBy: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

const two = (v: string | undefined) => toFixedString(v ?? '0', 2);

export function toProductRecord(row: ProductRow): ProductRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    categoryId: row.category_id,
    name: row.name,
    sku: row.sku,
    barcode: row.barcode,
    description: row.description,
    brand: row.brand,
    productType: row.product_type,
    // Stored with two places; a money column may print more (trailing zeros), never a different value.
    publishedPrice: two(row.published_price),
    costPrice: two(row.cost_price),
    weight: two(row.weight),
    width: two(row.width),
    height: two(row.height),
    length: two(row.length),
    status: row.status,
    isBundle: fromBoolValue(row.is_bundle),
    isManagedByFulfillment: fromBoolValue(row.is_managed_by_fulfillment),
    advanceQc: fromBoolValue(row.advance_qc),
    productionBatch: fromBoolValue(row.production_batch),
    coldStorage: fromBoolValue(row.cold_storage),
    fulfillmentManageBy: row.fulfillment_manage_by,
    outboundExpired: row.outbound_expired,
    inboundExpired: row.inbound_expired,
    outerBarcode: row.outer_barcode,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    deletedBy: row.deleted_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

export interface NewProduct {
  sku: string;
  name: string;
  categoryId?: number;
  barcode?: string;
  description?: string;
  brand?: string | null;
  productType?: string;
  /** Decimal strings or numbers; stored with two places. */
  publishedPrice?: string;
  costPrice?: string;
  weight?: string;
  width?: string;
  height?: string;
  length?: string;
  status?: string;
  isBundle?: boolean;
  isManagedByFulfillment?: boolean;
  advanceQc?: boolean;
  productionBatch?: boolean;
  coldStorage?: boolean;
  fulfillmentManageBy?: string | null;
  outboundExpired?: number;
  inboundExpired?: number;
  outerBarcode?: string | null;
}

export async function createProduct(scope: Scope, tenantId: string, input: NewProduct, actor: string, now: Date): Promise<ProductRecord> {
  const at = now.toISOString();
  const row = await executeTakeFirstOrThrow(scope, scope.dialect
    .insertReturningAll(
      scope.db
        .insertInto('products')
        .values({
          tenant_id: tenantId,
          category_id: input.categoryId ?? 0,
          name: input.name,
          sku: input.sku,
          barcode: input.barcode ?? '',
          description: input.description ?? '',
          brand: input.brand ?? null,
          product_type: input.productType ?? 'physical',
          published_price: two(input.publishedPrice),
          cost_price: two(input.costPrice),
          weight: two(input.weight),
          width: two(input.width),
          height: two(input.height),
          length: two(input.length),
          status: input.status ?? 'published',
          is_bundle: boolValue(input.isBundle ?? false),
          is_managed_by_fulfillment: boolValue(input.isManagedByFulfillment ?? true),
          advance_qc: boolValue(input.advanceQc ?? false),
          production_batch: boolValue(input.productionBatch ?? false),
          cold_storage: boolValue(input.coldStorage ?? false),
          fulfillment_manage_by: input.fulfillmentManageBy ?? null,
          outbound_expired: input.outboundExpired ?? 0,
          inbound_expired: input.inboundExpired ?? 0,
          outer_barcode: input.outerBarcode ?? null,
          created_by: actor,
          updated_by: actor,
          created_at: at,
          updated_at: at,
        }),
    ));
  return toProductRecord(row);
}

/**
 * What a document line takes from its product: the id, the name and SKU copied onto the line, and
 * the cost price (as stored: a decimal string with two places) that a stock count or a transfer
 * values the line at. The line checks read only these columns, not the whole catalogue row.
 */
export interface LineProduct {
  id: number;
  name: string;
  sku: string;
  costPrice: string;
  /** Whether the product is lot-tracked, and its shelf-life minimums (docs/lots.md). */
  policy: LotPolicy;
}

type LineProductRow = Pick<ProductRow, 'id' | 'name' | 'sku' | 'cost_price' | 'production_batch' | 'inbound_expired' | 'outbound_expired'>;

const toLineProduct = (row: LineProductRow): LineProduct => ({ id: row.id, name: row.name, sku: row.sku, costPrice: row.cost_price, policy: lotPolicyOf(row) });

/** The tenant's live products, as the columns a line reads; the caller adds which ones. */
const liveLineProducts = (scope: Scope, tenantId: string) =>
  scope.db.selectFrom('products').select(['id', 'name', 'sku', 'cost_price', 'production_batch', 'inbound_expired', 'outbound_expired']).where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);

/** `read` over the distinct `values`, 500 at a time (one `in` list per statement), as line products. */
async function lineProductsIn<V>(values: readonly V[], read: (chunk: V[]) => Promise<LineProductRow[]>): Promise<LineProduct[]> {
  const unique = [...new Set(values)];
  const rows: LineProductRow[] = [];
  for (let i = 0; i < unique.length; i += 500) rows.push(...(await read(unique.slice(i, i + 500))));
  return rows.map(toLineProduct);
}

const tenantProducts = preparedQuery({
  shape: (p: { tenantId: string; ids: number[] }) => p.ids.length,
  build: (scope, param: ParamRef<{ tenantId: string; ids: number[] }>, count) =>
    liveLineProducts(scope, param('tenantId')).where('id', 'in', markedList(param, 'ids', count)),
});

/** The tenant's live products among `ids`, by id. Ids of other tenants or unknown ids are absent. */
export async function findTenantProducts(scope: Scope, tenantId: string, ids: readonly number[]): Promise<Map<number, LineProduct>> {
  const products = await lineProductsIn(ids, (chunk) => execute(scope, tenantProducts.with({ tenantId, ids: chunk })));
  return new Map(products.map((p) => [p.id, p]));
}

/**
 * A live location of the tenant with the tenant's live products among `ids` (one row per product
 * found, one row with null product columns when none is): what a document's lines check in one
 * statement. No row: the location is not the tenant's, or deleted.
 */
const tenantLocationWithProducts = preparedQuery({
  shape: (p: { tenantId: string; locationId: number; ids: number[] }) => p.ids.length,
  build: (scope, param: ParamRef<{ tenantId: string; locationId: number; ids: number[] }>, count) =>
    scope.db
      .selectFrom('locations')
      .leftJoin('products', (join) =>
        join
          .onRef('products.tenant_id', '=', 'locations.tenant_id')
          .on('products.id', 'in', markedList(param, 'ids', count))
          .on('products.deleted_at', 'is', null),
      )
      .selectAll('locations')
      .select([
        'products.id as product_id',
        'products.name as product_name',
        'products.sku as product_sku',
        'products.cost_price as product_cost_price',
        'products.production_batch as product_production_batch',
        'products.inbound_expired as product_inbound_expired',
        'products.outbound_expired as product_outbound_expired',
      ])
      .where('locations.tenant_id', '=', param('tenantId'))
      .where('locations.id', '=', param('locationId'))
      .where('locations.deleted_at', 'is', null),
});

/** At most this many products are read with their location in one statement (`findTenantLocationWithProducts`). */
export const PRODUCTS_WITH_LOCATION = 500;

/**
 * The tenant's live location `locationId` and its live products among `ids` (at most
 * PRODUCTS_WITH_LOCATION distinct), by id, in one statement; undefined when the location is not a
 * live one of the tenant's.
 */
export async function findTenantLocationWithProducts(
  scope: Scope,
  tenantId: string,
  locationId: number,
  ids: readonly number[],
): Promise<{ location: LocationRow; products: Map<number, LineProduct> } | undefined> {
  const unique = [...new Set(ids)];
  if (unique.length === 0 || unique.length > PRODUCTS_WITH_LOCATION) throw new Error(`findTenantLocationWithProducts: 1 to ${PRODUCTS_WITH_LOCATION} products, got ${unique.length}`);
  const rows = await execute(scope, tenantLocationWithProducts.with({ tenantId, locationId, ids: unique }));
  if (rows[0] === undefined) return undefined;
  const products = new Map<number, LineProduct>();
  for (const row of rows) {
    if (row.product_id === null) continue;
    const product = toLineProduct({
      id: Number(row.product_id),
      name: row.product_name!,
      sku: row.product_sku!,
      cost_price: row.product_cost_price!,
      production_batch: row.product_production_batch!,
      inbound_expired: row.product_inbound_expired!,
      outbound_expired: row.product_outbound_expired!,
    });
    products.set(product.id, product);
  }
  return { location: rows[0], products };
}

const tenantProductsBySku = preparedQuery({
  shape: (p: { tenantId: string; skus: string[] }) => p.skus.length,
  build: (scope, param: ParamRef<{ tenantId: string; skus: string[] }>, count) =>
    liveLineProducts(scope, param('tenantId')).where('sku', 'in', markedList(param, 'skus', count)),
});

/** The tenant's live products among `skus` (exact), by SKU. SKUs of other tenants or unknown ones are absent. */
export async function findTenantProductsBySku(scope: Scope, tenantId: string, skus: readonly string[]): Promise<Map<string, LineProduct>> {
  const products = await lineProductsIn(skus, (chunk) => execute(scope, tenantProductsBySku.with({ tenantId, skus: chunk })));
  return new Map(products.map((p) => [p.sku, p]));
}

/** A live product of the tenant by id, or undefined (another tenant's product is undefined too). */
export async function findProduct(scope: Scope, tenantId: string, id: number): Promise<ProductRecord | undefined> {
  const row = await executeTakeFirst(scope, scope.db
    .selectFrom('products')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null));
  return row && toProductRecord(row);
}

/** A live product of the tenant by its SKU (exact match), or undefined. */
export async function findProductBySku(scope: Scope, tenantId: string, sku: string): Promise<ProductRecord | undefined> {
  const row = await executeTakeFirst(scope, scope.db
    .selectFrom('products')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('sku', '=', sku)
    .where('deleted_at', 'is', null));
  return row && toProductRecord(row);
}

/** Fields internal teams may change on a product; absent fields stay as they are. */
export type ProductChanges = Partial<NewProduct>;

const PRODUCT_COLUMNS: Record<keyof NewProduct, keyof ProductRow> = {
  sku: 'sku', name: 'name', categoryId: 'category_id', barcode: 'barcode', description: 'description', brand: 'brand',
  productType: 'product_type', publishedPrice: 'published_price', costPrice: 'cost_price', weight: 'weight', width: 'width',
  height: 'height', length: 'length', status: 'status', isBundle: 'is_bundle', isManagedByFulfillment: 'is_managed_by_fulfillment',
  advanceQc: 'advance_qc', productionBatch: 'production_batch', coldStorage: 'cold_storage', fulfillmentManageBy: 'fulfillment_manage_by',
  outboundExpired: 'outbound_expired', inboundExpired: 'inbound_expired', outerBarcode: 'outer_barcode',
};

/** Prices and dimensions: stored with two places, as `createProduct` stores them. */
const TWO_PLACE_FIELDS = new Set<keyof NewProduct>(['publishedPrice', 'costPrice', 'weight', 'width', 'height', 'length']);

/**
 * Changes the given fields of a live product of the tenant; prices and dimensions are stored with
 * two places. Unknown or another tenant's product: NOT_FOUND on `id`. A SKU taken for the tenant
 * throws the driver's unique violation (see `isUniqueViolation`). The lot settings follow
 * docs/lots.md#lot-tracked-products, in the same transaction as the change, under the product's
 * row lock: a change of `productionBatch` while the product has stock or open documents is
 * INVALID_STATE on `productionBatch` (`lotTrackingInUse`), and a new `outboundExpired` redates
 * the product's lots (`redateLots`).
 *
 * @example
 * await updateProduct(database, tenantId, 7, { name: 'Kopi 250 g', costPrice: '41.5' }, 'internal-api', new Date());
 */
export async function updateProduct(scope: Scope, tenantId: string, id: number, changes: ProductChanges, actor: string, now: Date): Promise<ProductRecord> {
  const set = changedColumns(changes, PRODUCT_COLUMNS, (field, value) => (TWO_PLACE_FIELDS.has(field) ? two(value as string) : storedValue(value)));
  return withTransaction(scope, async (tx) => {
    const current = await lockProduct(tx, tenantId, id);
    if (!current) throw new AppError(domainError('NOT_FOUND', `product ${id} does not exist for tenant ${tenantId}`, { field: 'id' }));
    if (changes.productionBatch !== undefined && changes.productionBatch !== fromBoolValue(current.production_batch)) {
      const issue = await lotTrackingInUse(tx, tenantId, id);
      if (issue !== undefined) throw new AppError(domainError('INVALID_STATE', `productionBatch ${issue}`, { field: 'productionBatch', issue }));
    }
    // The row is locked live above, so the update matches it without `deleted_at`.
    const row = await executeTakeFirstOrThrow(tx, stampedUpdate(tx, 'products', { tenantId, id, set, actor, now, live: false }));
    if (changes.outboundExpired !== undefined && changes.outboundExpired !== current.outbound_expired) await redateLots(tx, id, changes.outboundExpired);
    return toProductRecord(row);
  });
}

/** A live product's row of the tenant, locked for the rest of the transaction; undefined when there is none. */
async function lockProduct(tx: Tx, tenantId: string, id: number): Promise<Pick<ProductRow, 'production_batch' | 'outbound_expired'> | undefined> {
  return executeTakeFirst(
    tx,
    tx.dialect.lockRows(tx.db.selectFrom('products').select(['production_batch', 'outbound_expired']).where('tenant_id', '=', tenantId).where('id', '=', id).where('deleted_at', 'is', null)),
  );
}

/**
 * Why a product's lot tracking (`production_batch`) may not change now, or undefined when it may:
 * its units and open documents were counted, held or checked under the other rule
 * (docs/lots.md#lot-tracked-products). In the way are stock at any location (good, damaged or
 * reserved above 0), active holds, open transfers (pending, approved or in transit) and pending
 * adjustments; the answer names each kind found. Run it in the transaction that changes the flag.
 *
 * @example await lotTrackingInUse(tx, tenantId, 7) // 'cannot change while the product has stock and open transfers'
 */
export async function lotTrackingInUse(scope: Scope, tenantId: string, productId: number): Promise<string | undefined> {
  const found = async (query: Compilable<unknown>) => (await executeTakeFirst(scope, query)) !== undefined;
  const uses: string[] = [];
  const stock = scope.db
    .selectFrom('stock_levels')
    .select('product_id')
    .where('tenant_id', '=', tenantId)
    .where('product_id', '=', productId)
    .where((eb) => eb.or([eb('good', '>', 0), eb('damaged', '>', 0), eb('reserved', '>', 0)]))
    .limit(1);
  if (await found(stock)) uses.push('stock');
  const holds = scope.db
    .selectFrom('reservations')
    .innerJoin('reservation_items', 'reservation_items.reservation_id', 'reservations.id')
    .select('reservations.id')
    .where('reservations.tenant_id', '=', tenantId)
    .where('reservations.status', '=', 'active')
    .where('reservation_items.product_id', '=', productId)
    .limit(1);
  if (await found(holds)) uses.push('active holds');
  const transfers = scope.db
    .selectFrom('transfers')
    .innerJoin('transfer_items', 'transfer_items.transfer_id', 'transfers.id')
    .select('transfers.id')
    .where('transfers.tenant_id', '=', tenantId)
    .where('transfers.status', 'in', ['pending', 'approved', 'in_transit'])
    .where('transfer_items.product_id', '=', productId)
    .limit(1);
  if (await found(transfers)) uses.push('open transfers');
  const adjustments = scope.db
    .selectFrom('adjustments')
    .innerJoin('adjustment_items', 'adjustment_items.adjustment_id', 'adjustments.id')
    .select('adjustments.id')
    .where('adjustments.tenant_id', '=', tenantId)
    .where('adjustments.status', '=', 'pending')
    .where('adjustment_items.product_id', '=', productId)
    .limit(1);
  if (await found(adjustments)) uses.push('pending adjustments');
  if (uses.length === 0) return undefined;
  const listed = uses.length === 1 ? uses[0]! : `${uses.slice(0, -1).join(', ')} and ${uses.at(-1)!}`;
  return `cannot change while the product has ${listed}`;
}

export interface ProductFilters {
  /** Exact SKUs: a product with any of them. */
  skus?: readonly string[] | undefined;
  /** Exact barcode. */
  barcode?: string | undefined;
  /** Case-insensitive substring of the name or the SKU; LIKE wildcards in it match themselves. */
  search?: string | undefined;
}

/**
 * A page of the tenant's live products by id ascending, and the total. A product is listed
 * whether or not it has stock anywhere.
 *
 * @example
 * const { rows, total } = await listProducts(database, tenantId, { skus: ['SKU-1'], search: 'kopi' }, { page: 1, perPage: 20 });
 */
export async function listProducts(scope: Scope, tenantId: string, filters: ProductFilters, page: PageRequest): Promise<{ rows: ProductRecord[]; total: number }> {
  let base = scope.db.selectFrom('products').where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);
  if (filters.skus !== undefined) {
    if (filters.skus.length === 0) return { rows: [], total: 0 };
    base = base.where('sku', 'in', [...new Set(filters.skus)]);
  }
  if (filters.barcode !== undefined) base = base.where('barcode', '=', filters.barcode);
  if (filters.search !== undefined) {
    const needle = filters.search.toLowerCase();
    const { dialect } = scope;
    base = base.where(({ or, ref }) => or([ref('name'), ref('sku')].map((column) => dialect.containsLowerCase(dialect.lowerCase(column), needle))));
  }
  const [rows, count] = await Promise.all([
    execute(scope, base.selectAll().orderBy('id').limit(page.perPage).offset(pageOffset(page))),
    executeTakeFirstOrThrow(scope, base.select((eb) => eb.fn.countAll<number>().as('n'))),
  ]);
  return { rows: rows.map(toProductRecord), total: Number(count.n) };
}

// For the benchmarks' bare routes (bench/bench-statements.ts).
const skusOf = preparedQuery({
  shape: (p: { ids: number[] }) => p.ids.length,
  build: (scope, param: ParamRef<{ ids: number[] }>, count) =>
    scope.db
      .selectFrom('products')
      .select(['id', 'sku'])
      .where('id', 'in', markedList(param, 'ids', count)),
});

/** The SKUs of products by id, whatever their tenant (stock.level_changed names each row's product); an unknown id is absent. */
export async function productSkus(scope: Scope, productIds: readonly number[]): Promise<Map<number, string>> {
  const ids = [...new Set(productIds)];
  const skus = new Map<number, string>();
  for (let i = 0; i < ids.length; i += 500) {
    for (const row of await execute(scope, skusOf.with({ ids: ids.slice(i, i + 500) }))) skus.set(row.id, row.sku);
  }
  return skus;
}

export { tenantLocationWithProducts as tenantLocationWithProductsQuery };
