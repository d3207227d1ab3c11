// A small tenant world for tests: a partner with a tenant, two warehouses and a few products.
import type { Actor } from '@pits/domain';
import type { Scope } from '../transaction.js';
import { createPartner, partnerActor, type PartnerRecord } from '../repositories/partner-repository.js';
import { createTenant, type TenantRecord } from '../repositories/tenant-repository.js';
import { createLocation, type LocationRow } from '../repositories/location-repository.js';
import { createProduct, type ProductRow } from '../repositories/product-repository.js';
import { recordOpeningStock } from '../operations/stock-operations.js';

export interface TenantWorld {
  partner: PartnerRecord;
  actor: Actor;
  tenant: TenantRecord;
  locations: [LocationRow, LocationRow];
  products: ProductRow[];
}

/** Seeds a partner, a tenant, two locations and `products` products (default 5), optionally with good stock at the first location. */
export async function seedTenantWorld(
  scope: Scope,
  options: { products?: number; openingGood?: string; label?: string; now?: Date } = {},
): Promise<TenantWorld> {
  const now = options.now ?? new Date('2026-11-22T08:00:00.000Z');
  const label = options.label ?? 'Acme';
  const partner = await createPartner(scope, { name: `${label} Partner`, email: `dev@${label.toLowerCase()}.example`, tier: 'small' }, now);
  const tenant = await createTenant(scope, { name: `${label} Store` }, now);
  const a = await createLocation(scope, tenant.id, { code: 'WH-JKT', name: 'Jakarta Warehouse', address: 'Jl. Sudirman 1', picName: 'Budi', phone: '+62211234' }, 'seed', now);
  const b = await createLocation(scope, tenant.id, { code: 'WH-SBY', name: 'Surabaya Warehouse', address: 'Jl. Pemuda 2', picName: 'Sari', phone: '+62315678' }, 'seed', now);
  const products: ProductRow[] = [];
  for (let i = 1; i <= (options.products ?? 5); i += 1) {
    const product = await createProduct(scope, tenant.id, { sku: `SKU-${i}`, name: `Product ${i}`, costPrice: `${i}.50`, publishedPrice: `${i * 2}.00` }, 'seed', now);
    products.push(product);
    if (options.openingGood) {
      await recordOpeningStock(scope, { tenantId: tenant.id, locationId: a.id, productId: product.id, good: options.openingGood, actor: 'seed', reference: 'opening' }, now);
    }
  }
  return { partner, actor: partnerActor(partner), tenant, locations: [a, b], products };
}
