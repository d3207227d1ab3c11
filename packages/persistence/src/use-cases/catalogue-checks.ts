// Checks shared by documents that name a tenant's locations and products: each must exist and
// belong to the tenant, else a VALIDATION_ERROR naming the input.
import { AppError, type FieldIssue, domainError } from '@pits/domain';
import { findTenantLocation, type LocationRecord, toLocationRecord } from '../repositories/location-repository.js';
import {
  type LineProduct,
  PRODUCTS_WITH_LOCATION,
  findTenantLocationWithProducts,
  findTenantProducts,
  findTenantProductsBySku,
} from '../repositories/product-repository.js';
import type { Scope } from '../transaction.js';

function unknownLocation(id: number, field: string): AppError {
  const issue = `location ${id} does not exist for this tenant`;
  return new AppError(domainError('VALIDATION_ERROR', issue, { field, issue }));
}

export async function requireTenantLocation(scope: Scope, tenantId: string, id: number, field: string): Promise<LocationRecord> {
  const location = await findTenantLocation(scope, tenantId, id);
  if (!location) throw unknownLocation(id, field);
  return location;
}

/** Every line's product, in line order; all unknown lines are reported together. */
export async function requireTenantProducts(
  scope: Scope,
  tenantId: string,
  productIds: readonly number[],
): Promise<LineProduct[]> {
  const found = await findTenantProducts(scope, tenantId, productIds);
  const issues: FieldIssue[] = [];
  const rows: LineProduct[] = [];
  productIds.forEach((id, index) => {
    const row = found.get(id);
    if (row) rows.push(row);
    else issues.push({ field: `items[${index}].product_id`, issue: `product ${id} does not exist for this tenant` });
  });
  const first = issues[0];
  if (first) throw new AppError(domainError('VALIDATION_ERROR', first.issue, { field: first.field, issue: first.issue, issues }));
  return rows;
}

/** How a document line names its product: by `productId` or by `sku`, exactly one (docs/extensions.md#sku-as-a-product-reference). */
export interface ProductRef {
  productId?: number | undefined;
  sku?: string | undefined;
}

function refused(issues: FieldIssue[]): AppError {
  const first = issues[0]!;
  return new AppError(domainError('VALIDATION_ERROR', first.issue, { field: first.field, issue: first.issue, issues }));
}

/**
 * Every line's product, in line order, whether the line names it by id or by SKU (resolved in the
 * caller's transaction). An unknown id or SKU is VALIDATION_ERROR on that line's `product_id` or
 * `sku`; a product that two lines name (one by id, one by SKU) on the later line; all together.
 *
 * @example const products = await requireLineProducts(tx, tenantId, [{ productId: 7 }, { sku: 'KOPI-250' }]);
 */
export async function requireLineProducts(scope: Scope, tenantId: string, refs: readonly ProductRef[]): Promise<LineProduct[]> {
  const ids = refs.flatMap((r) => (r.productId === undefined ? [] : [r.productId]));
  const skus = refs.flatMap((r) => (r.productId === undefined && r.sku !== undefined ? [r.sku] : []));
  // One after the other: in a transaction the statements share one connection anyway.
  const byId = ids.length === 0 ? new Map<number, LineProduct>() : await findTenantProducts(scope, tenantId, ids);
  const bySku = skus.length === 0 ? new Map<string, LineProduct>() : await findTenantProductsBySku(scope, tenantId, skus);
  return lineProductsOf(refs, byId, bySku);
}

/** Each line's product from those found, in line order, or every unknown and repeated line refused together. */
function lineProductsOf(refs: readonly ProductRef[], byId: ReadonlyMap<number, LineProduct>, bySku: ReadonlyMap<string, LineProduct>): LineProduct[] {
  const issues: FieldIssue[] = [];
  const rows: LineProduct[] = [];
  const firstLine = new Map<number, number>();
  refs.forEach((ref, index) => {
    const field = ref.productId === undefined ? 'sku' : 'product_id';
    const product = ref.productId === undefined ? (ref.sku === undefined ? undefined : bySku.get(ref.sku)) : byId.get(ref.productId);
    if (!product) {
      const issue = ref.productId === undefined ? `product with sku ${JSON.stringify(ref.sku ?? '')} does not exist for this tenant` : `product ${ref.productId} does not exist for this tenant`;
      issues.push({ field: `items[${index}].${field}`, issue });
      return;
    }
    const first = firstLine.get(product.id);
    if (first === undefined) firstLine.set(product.id, index);
    else issues.push({ field: `items[${index}].${field}`, issue: `is the same product as items[${first}]` });
    rows.push(product);
  });
  if (issues.length > 0) throw refused(issues);
  return rows;
}

/**
 * `requireTenantLocation` then `requireLineProducts`, refusing as they do (the location first).
 * Lines that all name their product by id (at most PRODUCTS_WITH_LOCATION lines) are read with
 * the location in one statement.
 *
 * @example const { location, products } = await requireLocationAndLineProducts(tx, tenantId, 3, 'location_id', [{ productId: 7 }]);
 */
export async function requireLocationAndLineProducts(
  scope: Scope,
  tenantId: string,
  locationId: number,
  field: string,
  refs: readonly ProductRef[],
): Promise<{ location: LocationRecord; products: LineProduct[] }> {
  const ids = refs.flatMap((r) => (r.productId === undefined ? [] : [r.productId]));
  if (ids.length === 0 || ids.length < refs.length || ids.length > PRODUCTS_WITH_LOCATION) {
    const location = await requireTenantLocation(scope, tenantId, locationId, field);
    return { location, products: await requireLineProducts(scope, tenantId, refs) };
  }
  const found = await findTenantLocationWithProducts(scope, tenantId, locationId, ids);
  if (!found) throw unknownLocation(locationId, field);
  return { location: toLocationRecord(found.location), products: lineProductsOf(refs, found.products, new Map()) };
}
