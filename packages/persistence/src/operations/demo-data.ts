// Demo data for a newcomer's first run: one partner with an API key, one tenant connected to it,
// two warehouses, products with stock, and two logistics accounts; a second tenant that granted
// the partner access but is not connected yet. Only into an empty database.
import type { CredentialCipher } from '../credential-cipher.js';
import { createApiKey } from '../repositories/api-key-repository.js';
import { authorizeTenant } from '../repositories/installation-repository.js';
import { grantAccess } from '../repositories/installation-grant-repository.js';
import { createLocation } from '../repositories/location-repository.js';
import { createLogisticPreference } from '../repositories/logistic-preference-repository.js';
import { createPartner } from '../repositories/partner-repository.js';
import { createProduct } from '../repositories/product-repository.js';
import { createTenant } from '../repositories/tenant-repository.js';
import type { Scope } from '../transaction.js';
import { recordOpeningStock } from './stock-operations.js';

export interface DemoData {
  partnerId: number;
  tenantId: string;
  /** A tenant that granted the demo partner access, not yet authorized. */
  invitedTenantId: string;
  apiKey: string;
  locationIds: number[];
  productIds: number[];
}

const PRODUCTS = [
  { sku: 'KOPI-ARABICA-250', name: 'Kopi Arabica Gayo 250 g', costPrice: '45000.00', publishedPrice: '65000.00', weight: '0.25', good: '120' },
  { sku: 'TEH-MELATI-100', name: 'Teh Melati 100 g', costPrice: '12000.00', publishedPrice: '18500.00', weight: '0.10', good: '340' },
  { sku: 'SAMBAL-BAWANG-200', name: 'Sambal Bawang 200 ml', costPrice: '21000.00', publishedPrice: '32000.00', weight: '0.20', good: '75.5' },
  { sku: 'BERAS-PANDAN-5KG', name: 'Beras Pandan Wangi 5 kg', costPrice: '68000.00', publishedPrice: '82000.00', weight: '5.00', good: '40' },
  { sku: 'KERUPUK-UDANG-500', name: 'Kerupuk Udang 500 g', costPrice: '27500.00', publishedPrice: '39900.00', weight: '0.50', good: '0' },
];

/** True when nothing has been set up yet (no partner). */
export async function isDatabaseEmpty(scope: Scope): Promise<boolean> {
  const row = await scope.db.selectFrom('partners').select('id').limit(1).executeTakeFirst();
  return row === undefined;
}

/**
 * Seeds the demo world and returns its ids and the API key (shown only here).
 *
 * @example
 * if (await isDatabaseEmpty(db)) console.log((await seedDemoData(db, cipher, new Date())).apiKey);
 */
export async function seedDemoData(scope: Scope, cipher: CredentialCipher, now: Date): Promise<DemoData> {
  const partner = await createPartner(scope, { name: 'Demo Partner', email: 'developers@demo-partner.example', tier: 'small' }, now);
  const { secret } = await createApiKey(scope, partner.id, { environment: 'test', label: 'demo' }, now);
  const tenant = await createTenant(scope, { name: 'Toko Nusantara (demo)' }, now);
  await grantAccess(scope, { tenantId: tenant.id, partnerId: partner.id }, now);
  await authorizeTenant(scope, { partnerId: partner.id, tenantId: tenant.id, daysConnected: 14, installationType: 'custom' }, now);
  // A second merchant that granted the demo partner access but is not connected yet: authorize it to try consent.
  const invited = await createTenant(scope, { name: 'Warung Sejahtera (demo, not connected)' }, now);
  await grantAccess(scope, { tenantId: invited.id, partnerId: partner.id }, now);
  const jakarta = await createLocation(scope, tenant.id, {
    code: 'WH-JKT-01', name: 'Gudang Jakarta Barat', address: 'Jl. Daan Mogot KM 12 No. 8', city: 'Kota Jakarta Barat',
    state: 'Daerah Khusus Ibukota Jakarta', zip: '11730', subdistrict: 'Cengkareng Barat', picName: 'Budi Santoso', phone: '+62 21 5555 0101',
    latitude: '-6.14590000', longitude: '106.72910000', isDefault: true, isPickup: true,
  }, 'demo', now);
  const surabaya = await createLocation(scope, tenant.id, {
    code: 'WH-SBY-01', name: 'Gudang Surabaya', address: 'Jl. Rungkut Industri III No. 21', city: 'Kota Surabaya',
    state: 'Jawa Timur', zip: '60293', subdistrict: 'Kali Rungkut', picName: 'Sari Wulandari', phone: '+62 31 5555 0202',
    latitude: '-7.32910000', longitude: '112.76630000', isPickup: true, isReturn: true,
  }, 'demo', now);
  const productIds: number[] = [];
  for (const p of PRODUCTS) {
    const product = await createProduct(scope, tenant.id, { sku: p.sku, name: p.name, costPrice: p.costPrice, publishedPrice: p.publishedPrice, weight: p.weight, brand: 'Nusantara' }, 'demo', now);
    productIds.push(product.id);
    await recordOpeningStock(scope, { tenantId: tenant.id, locationId: jakarta.id, productId: product.id, good: p.good, actor: 'demo', reference: 'demo-opening' }, now);
  }
  await createLogisticPreference(scope, cipher, tenant.id, {
    logisticProviderId: 1, logisticProviderName: 'JNE', availableServiceTypes: { Reguler: true, Cargo: true, Crossborder: false },
    username: 'toko-nusantara', password: 'demo-password-123', apiKey: 'jne-demo-api-key-0042', apiSecret: 'jne-demo-secret-7781', isDefault: true,
    accountId: 'JNE-88120', accountName: 'Toko Nusantara',
  }, 'demo', now);
  await createLogisticPreference(scope, cipher, tenant.id, {
    logisticProviderId: 2, logisticProviderName: 'SiCepat', availableServiceTypes: { Reguler: true, Cargo: false, Crossborder: false },
    username: 'nusantara-sc', password: 'another-demo-pass', apiKey: 'sicepat-demo-key-5521', apiSecret: 'sicepat-demo-secret-1180',
  }, 'demo', now);
  return { partnerId: partner.id, tenantId: tenant.id, invitedTenantId: invited.id, apiKey: secret, locationIds: [jakarta.id, surabaya.id], productIds };
}
