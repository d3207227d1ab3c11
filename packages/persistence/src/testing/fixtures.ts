// A small tenant world for tests: a partner with a tenant, two warehouses and a few products.
import type { Actor } from '@pits/domain';
import type { Scope } from '../transaction.js';
import { createPartner, partnerActor, type PartnerRecord } from '../repositories/partner-repository.js';
import { createTenant, type TenantRecord } from '../repositories/tenant-repository.js';
import { createLocation, type LocationRecord } from '../repositories/location-repository.js';
import { createProduct, type ProductRecord } from '../repositories/product-repository.js';
import { recordOpeningStock } from '../use-cases/stock-operations.js';
import { grantAccess } from '../repositories/installation-grant-repository.js';
import { type InstallationRecord, authorizeTenant } from '../repositories/installation-repository.js';
import type { InstallationType } from '../schema/index.js';

/**
 * Connects a partner to a tenant the way it happens in production: the merchant grants access,
 * then the partner authorizes.
 *
 * @example await connectTenant(db, { partnerId: w.partner.id, tenantId: w.tenant.id }, new Date());
 */
export async function connectTenant(
  scope: Scope,
  input: { partnerId: number; tenantId: string; daysConnected?: number; installationType?: InstallationType },
  now: Date,
): Promise<InstallationRecord> {
  await grantAccess(scope, { tenantId: input.tenantId, partnerId: input.partnerId }, now);
  return authorizeTenant(scope, { partnerId: input.partnerId, tenantId: input.tenantId, daysConnected: input.daysConnected ?? 1, installationType: input.installationType ?? 'custom' }, now);
}

export interface TenantWorld {
  partner: PartnerRecord;
  actor: Actor;
  tenant: TenantRecord;
  locations: [LocationRecord, LocationRecord];
  products: ProductRecord[];
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
  const products: ProductRecord[] = [];
  for (let i = 1; i <= (options.products ?? 5); i += 1) {
    const product = await createProduct(scope, tenant.id, { sku: `SKU-${i}`, name: `Product ${i}`, costPrice: `${i}.50`, publishedPrice: `${i * 2}.00` }, 'seed', now);
    products.push(product);
    if (options.openingGood) {
      await recordOpeningStock(scope, { tenantId: tenant.id, locationId: a.id, productId: product.id, good: options.openingGood, actor: 'seed', reference: 'opening' }, now);
    }
  }
  return { partner, actor: partnerActor(partner), tenant, locations: [a, b], products };
}
