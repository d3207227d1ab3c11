// Checks shared by documents that name a tenant's locations and products: each must exist and
// belong to the tenant, else a VALIDATION_ERROR naming the input.
import { AppError, type FieldIssue, domainError } from '@pits/domain';
import { findTenantLocation, type LocationRecord } from '../repositories/location-repository.js';
import { findTenantProducts, type ProductRecord } from '../repositories/product-repository.js';
import type { Scope } from '../transaction.js';

export async function requireTenantLocation(scope: Scope, tenantId: string, id: number, field: string): Promise<LocationRecord> {
  const location = await findTenantLocation(scope, tenantId, id);
  if (!location) {
    const issue = `location ${id} does not exist for this tenant`;
    throw new AppError(domainError('VALIDATION_ERROR', issue, { field, issue }));
  }
  return location;
}

/** Every line's product, in line order; all unknown lines are reported together. */
export async function requireTenantProducts(
  scope: Scope,
  tenantId: string,
  productIds: readonly number[],
): Promise<ProductRecord[]> {
  const found = await findTenantProducts(scope, tenantId, productIds);
  const issues: FieldIssue[] = [];
  const rows: ProductRecord[] = [];
  productIds.forEach((id, index) => {
    const row = found.get(id);
    if (row) rows.push(row);
    else issues.push({ field: `items[${index}].product_id`, issue: `product ${id} does not exist for this tenant` });
  });
  const first = issues[0];
  if (first) throw new AppError(domainError('VALIDATION_ERROR', first.issue, { field: first.field, issue: first.issue, issues }));
  return rows;
}
