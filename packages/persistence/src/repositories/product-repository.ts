// Products of a tenant's catalogue.
import type { Selectable } from 'kysely';
import { toFixedString } from '@pits/domain';
import { boolValue } from '../dialect.js';
import type { Scope } from '../transaction.js';
import type { ProductTable } from '../schema/index.js';

export type ProductRow = Selectable<ProductTable>;

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

const two = (v: string | undefined) => toFixedString(v ?? '0', 2);

export async function createProduct(scope: Scope, tenantId: string, input: NewProduct, actor: string, now: Date): Promise<ProductRow> {
  const at = now.toISOString();
  return scope.db
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
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The tenant's live products among `ids`, by id. Ids of other tenants or unknown ids are absent. */
export async function findTenantProducts(scope: Scope, tenantId: string, ids: readonly number[]): Promise<Map<number, ProductRow>> {
  if (ids.length === 0) return new Map();
  const rows: ProductRow[] = [];
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 500) {
    rows.push(
      ...(await scope.db
        .selectFrom('products')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('id', 'in', unique.slice(i, i + 500))
        .where('deleted_at', 'is', null)
        .execute()),
    );
  }
  return new Map(rows.map((r) => [r.id, r]));
}
