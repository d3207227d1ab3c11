// What the adjustment and transfer files set up through the internal API (products, locations
// with a contact person and phone, counted opening stock), and how they read stock back: through
// the gateway's own stock endpoints, so every read is also contract-checked.
import type { InternalClient } from '@pits/internal-api/client';
import { expect } from 'vitest';
import type { GatewayClient } from './gateway-client.js';
import type { JsonBody } from './gateway-response.js';

export const STOCK = '/api/partner/v1/stock';
export const MOVEMENTS = '/api/partner/v1/stock/movements';

/** Who acts at the gateway: a partner's key and one of its tenants. */
export interface TenantSession {
  key: string;
  tenant: string;
}

export interface CatalogueProduct {
  id: number;
  sku: string;
  name: string;
  /** Two places, as the internal API returns it (`"12.50"`). */
  costPrice: string;
}

export interface CatalogueLocation {
  id: number;
  code: string;
  name: string;
  address: string;
  contactPerson: string;
  phone: string;
}

/** A stock level as the gateway shows it; all zero when the product never had stock there. */
export interface StockFigures {
  good: number;
  damaged: number;
  reserved: number;
  available: number;
}

/**
 * `count` products of the tenant, SKUs `<label>-<n>` (1-based), created in parallel batches.
 *
 * @example
 * const [shirt] = await createProducts(stack.internal, tenant.id, 1, 'SHIRT', () => '12.50');
 */
export async function createProducts(
  internal: InternalClient,
  tenantId: string,
  count: number,
  label: string,
  costPrice: (index: number) => string = () => '10.00',
): Promise<CatalogueProduct[]> {
  const products: CatalogueProduct[] = [];
  for (let start = 0; start < count; start += 50) {
    const batch = Array.from({ length: Math.min(50, count - start) }, (_, i) => start + i);
    const created = await Promise.all(
      batch.map((i) => internal.products.create.mutate({ tenantId, sku: `${label}-${i + 1}`, name: `${label} product ${i + 1}`, costPrice: costPrice(i) })),
    );
    products.push(...created.map((p) => ({ id: p.id, sku: p.sku, name: p.name, costPrice: p.costPrice })));
  }
  return products;
}

/**
 * A location of the tenant with every field a transfer shows (address, contact person, phone).
 *
 * @example
 * const dock = await createContactLocation(stack.internal, tenant.id, 'DOCK-1');
 */
export async function createContactLocation(internal: InternalClient, tenantId: string, code: string): Promise<CatalogueLocation> {
  const created = await internal.locations.create.mutate({
    tenantId,
    code,
    name: `Warehouse ${code}`,
    type: 'warehouse',
    address: `Jl. Gatot Subroto ${code}, Jakarta`,
    city: 'Jakarta',
    picName: `Pic ${code}`,
    phone: `+62 21 555 ${code}`,
  });
  return { id: created.id, code: created.code, name: created.name, address: created.address, contactPerson: created.picName, phone: created.phone };
}

/** The tenant's existing locations as the contract shows them, by id. */
export async function tenantLocations(internal: InternalClient, tenantId: string): Promise<Map<number, CatalogueLocation>> {
  const { locations } = await internal.locations.list.query({ tenantId, perPage: 100 });
  return new Map(locations.map((l) => [l.id, { id: l.id, code: l.code, name: l.name, address: l.address, contactPerson: l.picName, phone: l.phone }]));
}

/**
 * Counted opening stock (ledger cause `opening`, cause id `reference`).
 *
 * @example
 * await recordOpening(stack.internal, tenant.id, location.id, product.id, { good: '100' }, 'COUNT-1');
 */
export async function recordOpening(
  internal: InternalClient,
  tenantId: string,
  locationId: number,
  productId: number,
  quantities: { good?: string; damaged?: string },
  reference: string,
): Promise<void> {
  await internal.stock.recordOpening.mutate({ tenantId, locationId, productId, ...quantities, reference });
}

/**
 * The stock of one product at one location through `GET /api/partner/v1/stock`.
 *
 * @example
 * expect(await stockAt(gw, session, location.id, product.id)).toEqual({ good: 10, damaged: 0, reserved: 0, available: 10 });
 */
export async function stockAt(gw: GatewayClient, session: TenantSession, locationId: number, productId: number): Promise<StockFigures> {
  const res = await gw.get(STOCK, { key: session.key, tenant: session.tenant, query: { location_id: locationId, product_id: productId } });
  expect(res.status, res.text).toBe(200);
  const rows = res.body.data.stock as JsonBody[];
  expect(rows.length, `${STOCK}: at most one row per location and product`).toBeLessThanOrEqual(1);
  const row = rows[0];
  if (row === undefined) return { good: 0, damaged: 0, reserved: 0, available: 0 };
  expect(row).toMatchObject({ location_id: locationId, product_id: String(productId) });
  return { good: row.good, damaged: row.damaged, reserved: row.reserved, available: row.available };
}

/**
 * Every movement matching `query`, newest first, walking `GET /api/partner/v1/stock/movements` by
 * its cursor `limit` rows at a time. Asserts that each page but the last is full and that the
 * last one has `next_cursor: null`.
 *
 * @example
 * const moves = await allMovements(gw, session, { product_id: product.id }, 3);
 */
export async function allMovements(gw: GatewayClient, session: TenantSession, query: Record<string, string | number> = {}, limit = 100): Promise<JsonBody[]> {
  const all: JsonBody[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page += 1) {
    const res = await gw.get(MOVEMENTS, { key: session.key, tenant: session.tenant, query: { ...query, limit, ...(cursor !== undefined ? { cursor } : {}) } });
    expect(res.status, res.text).toBe(200);
    const { movements, next_cursor: next } = res.body.data as { movements: JsonBody[]; next_cursor: string | null };
    all.push(...movements);
    if (next === null) return all;
    expect(movements.length, `${MOVEMENTS}: a page with a next_cursor is full`).toBe(limit);
    cursor = next;
  }
  throw new Error('more movement pages than expected');
}
