// What the inbound and webhook e2e files need beyond onboarding: a tenant whose locations and
// products have every field set (so the embedded objects can be compared field by field), and
// shipments created through the internal API.
import { randomBytes } from 'node:crypto';
import type { InternalApiOutputs, InternalClient } from '@pits/internal-api/client';
import type { GatewayClient } from './gateway-client.js';
import { authorizeThroughGateway, grantTenant } from './partner-onboarding.js';

export type LocationView = InternalApiOutputs['locations']['create'];
export type ProductView = InternalApiOutputs['products']['create'];
export type ShipmentView = InternalApiOutputs['inbound']['create'];

export interface WarehouseTenant {
  id: string;
  locations: LocationView[];
}

const token = (bytes = 4) => randomBytes(bytes).toString('hex');

/**
 * A tenant with `locations` fully described warehouses (each with its own receiving grid
 * `RCV-<label>-<n>`, the second one a return location), installed for the partner holding `key`.
 *
 * @example
 * const tenant = await createWarehouseTenant(stack.internal, gw, partner, 'Inbound');
 * tenant.locations[0]!.receivingGrid // 'RCV-Inbound-1'
 */
export async function createWarehouseTenant(internal: InternalClient, gateway: GatewayClient, partner: { id: number; key: string }, label: string, locations = 2): Promise<WarehouseTenant> {
  const tenant = await internal.tenants.create.mutate({ name: `${label} Store ${token(2)}` });
  const created: LocationView[] = [];
  for (let i = 1; i <= locations; i += 1) {
    created.push(
      await internal.locations.create.mutate({
        tenantId: tenant.id,
        code: `WH-${label.toUpperCase()}-${i}`,
        name: `${label} Warehouse ${i}`,
        type: 'warehouse',
        address: `Jl. Gatot Subroto ${i}`,
        city: 'Bandung',
        state: 'Jawa Barat',
        zip: `4011${i}`,
        subdistrict: 'Cicendo',
        country: 'Indonesia',
        picName: `PIC ${i}`,
        phone: `+62227000${i}`,
        latitude: '-6.9175',
        longitude: '107.6191',
        isDefault: i === 1,
        isPickup: i === 1,
        isReturn: i === 2,
        status: 'active',
        originCode: i === 1 ? `ORG-${i}` : null,
        receivingGrid: `RCV-${label}-${i}`,
      }),
    );
  }
  await grantTenant(internal, tenant.id, partner.id);
  await authorizeThroughGateway(gateway, partner.key, tenant.id);
  return { id: tenant.id, locations: created };
}

/**
 * A product with every field given; prices and dimensions with fewer than two places so the
 * two-place rendering shows (`'19.9'` comes back as `'19.90'`).
 */
export async function createFullProduct(internal: InternalClient, tenantId: string, label: string): Promise<ProductView> {
  return internal.products.create.mutate({
    tenantId,
    sku: `SKU-${label}-${token()}`,
    name: `${label} product`,
    categoryId: 7,
    barcode: `899${token(5)}`,
    description: `The ${label} product`,
    brand: 'Kopi Nusantara',
    productType: 'physical',
    publishedPrice: '19.9',
    costPrice: '12.5',
    weight: '1.25',
    width: '10',
    height: '5.5',
    length: '20',
    status: 'published',
    isBundle: false,
    isManagedByFulfillment: true,
    advanceQc: true,
    productionBatch: false,
    coldStorage: true,
    fulfillmentManageBy: null,
    outboundExpired: 30,
    inboundExpired: 60,
    outerBarcode: null,
  });
}

/** A minimal product (defaults elsewhere). */
export async function createProduct(internal: InternalClient, tenantId: string, label: string): Promise<ProductView> {
  return internal.products.create.mutate({ tenantId, sku: `SKU-${label}-${token()}`, name: `${label} product`, costPrice: '3.75' });
}

/**
 * A pending shipment to `locationId`, one line per `[productId, expectedQuantity]`.
 *
 * @example
 * const shipment = await createShipment(stack.internal, tenant.id, tenant.locations[0]!.id, [[p.id, 10]]);
 * const itemId = String(shipment.lines[0]!.id);
 */
export async function createShipment(
  internal: InternalClient,
  tenantId: string,
  locationId: number,
  lines: Array<[productId: number, expected: number | string, line?: { unit?: string; unitPrice?: string; notes?: string }]>,
  extra: { code?: string; inboundDate?: string; notes?: string; sourceId?: number; sourceCode?: string } = {},
): Promise<ShipmentView> {
  return internal.inbound.create.mutate({
    tenantId,
    locationId,
    sourceType: 'purchase',
    sourceId: 4200,
    sourceCode: `PO-${token()}`,
    ...extra,
    lines: lines.map(([productId, expectedQuantity, line]) => ({ productId, expectedQuantity, ...line })),
  });
}
