// Demo data for a newcomer's first run: one partner with an API key, one tenant connected to it,
// two warehouses, products with stock (one of them in lots, one lot short-dated), and two
// logistics accounts; a second tenant that granted the partner access but is not connected yet;
// documents in every state a guide flow starts from (pending adjustments, transfers pending,
// approved and in transit, pending inbound shipments, an order hold active and one consumed) and,
// when given a URL, a webhook endpoint. Only into an empty database.
import { createHash } from 'node:crypto';
import { webhookEventType } from '@pits/contract';
import { addDays } from '@pits/domain';
import type { CredentialCipher } from '../credential-cipher.js';
import { type DatabaseConfig, databaseIdentity } from '../database-config.js';
import { createApiKey, resolveApiKey } from '../repositories/api-key-repository.js';
import { authorizeTenant } from '../repositories/installation-repository.js';
import { grantAccess } from '../repositories/installation-grant-repository.js';
import { createLocation } from '../repositories/location-repository.js';
import { createLogisticPreference } from '../repositories/logistic-preference-repository.js';
import { databaseToday } from '../repositories/lot-repository.js';
import { anyPartnerExists, createPartner, partnerActor } from '../repositories/partner-repository.js';
import { createProduct } from '../repositories/product-repository.js';
import { createTenant } from '../repositories/tenant-repository.js';
import { createWebhookEndpoint } from '../repositories/webhook-endpoint-repository.js';
import type { Scope } from '../transaction.js';
import { approveAdjustment, createAdjustment } from './adjustment-operations.js';
import { createInbound, receiveInbound } from './inbound-operations.js';
import { announceLotBoundaries } from './lot-boundary-operations.js';
import { consumeReservation, createReservation } from './reservation-operations.js';
import { recordOpeningStock } from './stock-operations.js';
import { approveTransfer, createTransfer, shipTransfer } from './transfer-operations.js';

export interface DemoData {
  partnerId: number;
  tenantId: string;
  /** A tenant that granted the demo partner access, not yet authorized. */
  invitedTenantId: string;
  apiKey: string;
  locationIds: number[];
  productIds: number[];
  /** Adjustment numbers by state: approve or reject the pending ones. */
  adjustments: { approved: string; pendingIncrease: string; pendingDecrease: string };
  /** Transfer numbers by state: approve or reject `pending`, ship `approved`, receive `inTransit`. */
  transfers: { pending: string; approved: string; inTransit: string };
  /** Inbound shipment ids: two pending, one partly received. */
  inboundIds: { pending: number[]; partial: number };
  /** Order hold numbers: `active` (expires 7 days after seeding: extend, release or consume it) and `consumed`. */
  reservations: { active: string; consumed: string };
  /** The demo webhook endpoint and its signing secret (shown only here), when a URL was given. */
  webhook?: { id: number; url: string; secret: string };
}

/** What the seed may add besides the fixed demo world. */
export interface DemoOptions {
  /**
   * Registers a webhook endpoint for every event type at this URL (a local receiver needs the
   * operator's WEBHOOK_ALLOW_PRIVATE_URLS at delivery time). Without it, no endpoint is registered.
   */
  webhookUrl?: string;
}

/**
 * A lot of the demo's lot-tracked product at Jakarta, dated in days from the day it is seeded (the
 * database clock's WIB date, as every lot rule reads it), so that the same lots are sellable or
 * short-dated whenever the demo is seeded. Its number is the product's prefix, the production
 * date as YYMMDD and `suffix`: seeded on 2026-11-22, the lots of the reference's examples.
 */
export interface DemoLot {
  suffix: string;
  producedDaysAgo: number;
  expiresInDays: number;
  good: string;
}

/** How a demo product is lot-tracked (docs/lots.md): its shelf-life minimums and its lots at Jakarta. */
export interface DemoLotTracking {
  lotPrefix: string;
  inboundExpired: number;
  outboundExpired: number;
  lots: readonly DemoLot[];
}

/**
 * Sambal Bawang's lots: a lot is sellable with 30 days left and received with 60. Lot B, 29 days
 * from its expiry date, is short-dated from the start; C and A are sellable, C expiring first.
 */
export const DEMO_SAMBAL_LOTS: DemoLotTracking = {
  lotPrefix: 'SB',
  inboundExpired: 60,
  outboundExpired: 30,
  lots: [
    { suffix: 'B', producedDaysAgo: 82, expiresInDays: 29, good: '5' },
    { suffix: 'C', producedDaysAgo: 52, expiresInDays: 70, good: '30' },
    { suffix: 'A', producedDaysAgo: 25, expiresInDays: 157, good: '45.5' },
  ],
};

/**
 * The demo tenant's products, ids 1 to 5 in this order, with their opening good stock at Jakarta
 * (for a lot-tracked product, the sum of its lots).
 */
export const DEMO_PRODUCTS: readonly { sku: string; name: string; costPrice: string; publishedPrice: string; weight: string; good: string; lotTracking?: DemoLotTracking }[] = [
  { sku: 'KOPI-ARABICA-250', name: 'Kopi Arabica Gayo 250 g', costPrice: '45000.00', publishedPrice: '65000.00', weight: '0.25', good: '120' },
  { sku: 'TEH-MELATI-100', name: 'Teh Melati 100 g', costPrice: '12000.00', publishedPrice: '18500.00', weight: '0.10', good: '340' },
  { sku: 'SAMBAL-BAWANG-200', name: 'Sambal Bawang 200 ml', costPrice: '21000.00', publishedPrice: '32000.00', weight: '0.20', good: '80.5', lotTracking: DEMO_SAMBAL_LOTS },
  { sku: 'BERAS-PANDAN-5KG', name: 'Beras Pandan Wangi 5 kg', costPrice: '68000.00', publishedPrice: '82000.00', weight: '5.00', good: '40' },
  { sku: 'KERUPUK-UDANG-500', name: 'Kerupuk Udang 500 g', costPrice: '27500.00', publishedPrice: '39900.00', weight: '0.50', good: '0' },
];

/**
 * A demo lot's number and dates, seeded on `today` (YYYY-MM-DD).
 *
 * @example demoLotOf('SB', { suffix: 'B', producedDaysAgo: 82, expiresInDays: 29, good: '5' }, '2026-11-22') // { lotNumber: 'SB-260901-B', expiryDate: '2026-12-21', productionDate: '2026-09-01' }
 */
export function demoLotOf(lotPrefix: string, lot: DemoLot, today: string): { lotNumber: string; expiryDate: string; productionDate: string } {
  const productionDate = addDays(today, -lot.producedDaysAgo);
  return { lotNumber: `${lotPrefix}-${productionDate.slice(2).replaceAll('-', '')}-${lot.suffix}`, expiryDate: addDays(today, lot.expiresInDays), productionDate };
}

/** True when nothing has been set up yet (no partner). */
export async function isDatabaseEmpty(scope: Scope): Promise<boolean> {
  return !(await anyPartnerExists(scope));
}

/**
 * The file name (no directory) of a database's demo credentials: dialect plus a digest of its
 * identity (`databaseIdentity`), so `npm start` keeps one credentials file per database.
 *
 * @example demoCredentialsFileName(config) // '<dialect>-3f2a9c0d1e4b.json'
 */
export function demoCredentialsFileName(config: DatabaseConfig): string {
  return `${config.dialect}-${createHash('sha256').update(databaseIdentity(config)).digest('hex').slice(0, 12)}.json`;
}

/**
 * True when saved demo credentials are live in this database: the key resolves to the same
 * partner, and that partner is connected to the demo tenant. Credentials of another database (or
 * of one recreated since) fail here and must not be printed.
 *
 * @example if (!(await demoCredentialsWork(db, saved))) console.log('saved credentials are stale');
 */
export async function demoCredentialsWork(scope: Scope, demo: Pick<DemoData, 'apiKey' | 'partnerId' | 'tenantId'>): Promise<boolean> {
  if (typeof demo.apiKey !== 'string' || typeof demo.tenantId !== 'string' || !/^[0-9a-f-]{36}$/i.test(demo.tenantId)) return false;
  const resolved = await resolveApiKey(scope, demo.apiKey, demo.tenantId);
  return resolved !== null && resolved.partnerId === demo.partnerId && resolved.installation === 'active';
}

/**
 * Seeds the demo world and returns its ids and the API key (shown only here).
 *
 * @example
 * if (await isDatabaseEmpty(db)) console.log((await seedDemoData(db, cipher, new Date())).apiKey);
 */
export async function seedDemoData(scope: Scope, cipher: CredentialCipher, now: Date, options: DemoOptions = {}): Promise<DemoData> {
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
  const today = await databaseToday(scope);
  for (const p of DEMO_PRODUCTS) {
    const tracking = p.lotTracking;
    const lotSettings = tracking ? { productionBatch: true, inboundExpired: tracking.inboundExpired, outboundExpired: tracking.outboundExpired } : {};
    const product = await createProduct(scope, tenant.id, { sku: p.sku, name: p.name, costPrice: p.costPrice, publishedPrice: p.publishedPrice, weight: p.weight, brand: 'Nusantara', ...lotSettings }, 'demo', now);
    productIds.push(product.id);
    const opening = { tenantId: tenant.id, locationId: jakarta.id, productId: product.id, actor: 'demo', reference: 'demo-opening' };
    if (tracking) for (const lot of tracking.lots) await recordOpeningStock(scope, { ...opening, good: lot.good, ...demoLotOf(tracking.lotPrefix, lot, today) }, now);
    else await recordOpeningStock(scope, { ...opening, good: p.good }, now);
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
  // Registered before the documents below, so their events are waiting for the worker as deliveries.
  // Every type the contract names, as the Sandbox chapter promises: holds and stock levels too.
  const webhook = options.webhookUrl === undefined ? undefined : await createWebhookEndpoint(
    scope, cipher, partner.id,
    { url: options.webhookUrl, eventTypes: webhookEventType.options, description: 'demo receiver of npm start' },
    now,
  );
  const documents = await seedDemoDocuments(scope, { tenantId: tenant.id, partner, jakarta: jakarta.id, surabaya: surabaya.id, productIds, today }, now);
  // The short-dated lot's stock.lot_expiring and its row's stock.level_changed (cause lot_expiry)
  // are sent now rather than by the next run of the lot job, so the receiver has them at once.
  await announceLotBoundaries(scope);
  return {
    partnerId: partner.id,
    tenantId: tenant.id,
    invitedTenantId: invited.id,
    apiKey: secret,
    locationIds: [jakarta.id, surabaya.id],
    productIds,
    ...documents,
    ...(webhook === undefined ? {} : { webhook: { id: webhook.endpoint.id, url: webhook.endpoint.url, secret: webhook.secret } }),
  };
}

/**
 * The documents each guide flow starts from. Product ids are in DEMO_PRODUCTS order (kopi, teh, sambal,
 * beras, kerupuk); stock comes from the opening stock at Jakarta plus Surabaya's below.
 */
async function seedDemoDocuments(
  scope: Scope,
  world: { tenantId: string; partner: { id: number; name: string; email: string }; jakarta: number; surabaya: number; productIds: number[]; today: string },
  now: Date,
): Promise<Pick<DemoData, 'adjustments' | 'transfers' | 'inboundIds' | 'reservations'>> {
  const { tenantId, jakarta, surabaya } = world;
  const [kopi, teh, sambal, beras, kerupuk] = world.productIds as [number, number, number, number, number];
  const actor = partnerActor(world.partner);
  const base = { tenantId, partnerId: world.partner.id, actor };
  await recordOpeningStock(scope, { tenantId, locationId: surabaya, productId: teh, good: '60', damaged: '4', actor: 'demo', reference: 'demo-opening' }, now);
  // A line of the lot-tracked sambal names its lot; transfers take its lots first expired first out.
  const sambalLot = (suffix: string) => demoLotOf(DEMO_SAMBAL_LOTS.lotPrefix, DEMO_SAMBAL_LOTS.lots.find((l) => l.suffix === suffix)!, world.today).lotNumber;

  const approved = await createAdjustment(scope, {
    ...base, locationId: jakarta, type: 'increase', stockSource: 'good', reason: 'Found in the receiving bay after stock take',
    items: [{ productId: kerupuk, quantity: '48', unitCost: '27500', notes: 'rak C2' }],
  }, now);
  await approveAdjustment(scope, { tenantId, number: approved.number, actor }, now);
  const pendingIncrease = await createAdjustment(scope, {
    ...base, locationId: jakarta, type: 'increase', stockSource: 'damaged', reason: 'Dented cans set aside at put-away',
    items: [{ productId: sambal, quantity: '6', unitCost: '21000', notes: 'carton 14', lotNumber: sambalLot('A') }],
  }, now);
  const pendingDecrease = await createAdjustment(scope, {
    ...base, locationId: jakarta, type: 'decrease', stockSource: 'good', reason: 'Cycle count: fewer on the shelf than recorded',
    items: [{ productId: teh, quantity: '5', unitCost: '12000' }, { productId: kopi, quantity: '2', unitCost: '45000', notes: 'torn bags' }],
  }, now);

  const day = now.toISOString().slice(0, 10);
  const inThreeDays = new Date(now.getTime() + 3 * 86_400_000).toISOString().slice(0, 10);
  const transfer = (reference: string, notes: string, items: { productId: number; quantity: string }[]) =>
    createTransfer(scope, { ...base, fromLocationId: jakarta, toLocationId: surabaya, transferDate: day, expectedArrivalDate: inThreeDays, referenceNumber: reference, notes, items }, now);
  const pending = await transfer('REPL-SBY-0001', 'Weekly replenishment for Surabaya', [{ productId: kopi, quantity: '20' }, { productId: teh, quantity: '40' }]);
  const toShip = await transfer('REPL-SBY-0002', 'Rice for the Surabaya promotion', [{ productId: beras, quantity: '8' }]);
  await approveTransfer(scope, { tenantId, number: toShip.number, actor }, now);
  const inTransit = await transfer('REPL-SBY-0003', 'Sambal restock', [{ productId: sambal, quantity: '12' }]);
  await approveTransfer(scope, { tenantId, number: inTransit.number, actor }, now);
  await shipTransfer(scope, { tenantId, number: inTransit.number, actor }, now);

  const inbound = (locationId: number, sourceId: number, notes: string, lines: { productId: number; expectedQuantity: string; unitPrice: string }[]) =>
    createInbound(scope, { tenantId, locationId, sourceType: 'purchase', sourceId, sourceCode: `PO-2026-${String(sourceId).padStart(4, '0')}`, notes, createdBy: 'demo', lines: lines.map((l) => ({ ...l, unit: 'pcs' })) }, now);
  const first = await inbound(jakarta, 118, 'Supplier Gayo: monthly coffee', [
    { productId: kopi, expectedQuantity: '60', unitPrice: '45000' },
    { productId: sambal, expectedQuantity: '24', unitPrice: '21000' },
  ]);
  const second = await inbound(surabaya, 119, 'Tea and crackers for Surabaya', [
    { productId: teh, expectedQuantity: '100', unitPrice: '12000' },
    { productId: kerupuk, expectedQuantity: '36', unitPrice: '27500' },
  ]);
  const partial = await inbound(jakarta, 120, 'Rice, second half still on the truck', [{ productId: beras, expectedQuantity: '30', unitPrice: '68000' }]);
  const riceLine = partial.details[0]!;
  await receiveInbound(scope, { tenantId, id: partial.id, actor, receipts: [{ itemId: riceLine.id, quantity: '18', receivedBy: 'Budi Santoso' }] }, now);

  // Order holds at Jakarta. The consumed one takes rice, so the good stock of coffee and tea that the
  // README's stock count and the examples quote stays as seeded.
  const shipped = await createReservation(scope, {
    ...base, locationId: jakarta, reference: 'ORDER-TOKO-1001', expiresIn: 900, items: [{ productId: beras, quantity: '2' }],
  });
  await consumeReservation(scope, { tenantId, number: shipped.number, actor });
  const active = await createReservation(scope, {
    ...base, locationId: jakarta, reference: 'ORDER-TOKO-1002', expiresIn: 7 * 86_400,
    items: [{ productId: kopi, quantity: '3' }, { productId: teh, quantity: '5' }],
  });

  return {
    adjustments: { approved: approved.number, pendingIncrease: pendingIncrease.number, pendingDecrease: pendingDecrease.number },
    transfers: { pending: pending.number, approved: toShip.number, inTransit: inTransit.number },
    inboundIds: { pending: [first.id, second.id], partial: partial.id },
    reservations: { active: active.number, consumed: shipped.number },
  };
}
