// Lot-tracked products for the e2e suites (docs/lots.md): created and stocked lot by lot through
// the internal API, dated from the service's own calendar, and read back through the gateway's
// GET /api/partner/v1/stock/lots and the allocations a hold answers with.
import { addDays } from '@pits/domain';
import type { InternalClient } from '@pits/internal-api/client';
import { type Database, databaseToday, scopeOf } from '@pits/persistence';
import { expect } from 'vitest';
import type { GatewayClient } from './gateway-client.js';
import type { JsonBody } from './gateway-response.js';
import type { CatalogueProduct, TenantSession } from './inventory-fixtures.js';

export const STOCK_LOTS = '/api/partner/v1/stock/lots';

/** One lot to put on a shelf: its number, its good units, and how many days it has left from today. */
export interface LotPlan {
  lotNumber: string;
  good: number;
  daysLeft: number;
}

/** A lot at a location as GET /stock/lots shows it. */
export interface LotFigures {
  lotNumber: string;
  expiryDate: string | null;
  good: number;
  damaged: number;
  reserved: number;
  available: number;
  sellable: boolean;
}

/** One entry of a hold line's `allocations`. */
export interface Allocation {
  lot_number: string;
  expiry_date: string | null;
  quantity: number;
}

/**
 * The service's today (WIB, with any test shift of its calendar), as every process on `database` sees it.
 *
 * @example
 * const today = await serviceToday(db);
 */
export function serviceToday(database: Database): Promise<string> {
  return databaseToday(scopeOf(database));
}

/**
 * A lot-tracked product (`production_batch` true) that must keep `outboundExpired` days to be held.
 *
 * @example
 * const sambal = await createLotTrackedProduct(stack.internal, tenant, 'SAMBAL-1', 30);
 */
export async function createLotTrackedProduct(internal: InternalClient, tenantId: string, sku: string, outboundExpired: number): Promise<CatalogueProduct> {
  const p = await internal.products.create.mutate({ tenantId, sku, name: `Lot-tracked ${sku}`, costPrice: '10.00', publishedPrice: '20.00', productionBatch: true, outboundExpired });
  expect(p).toMatchObject({ productionBatch: true, outboundExpired });
  return { id: p.id, sku: p.sku, name: p.name, costPrice: p.costPrice };
}

/**
 * Counted opening stock of each lot of `lots`, dated from `today` (ledger cause `opening`).
 *
 * @example
 * await stockLots(stack.internal, tenant, location, product.id, today, [{ lotNumber: 'A', good: 20, daysLeft: 100 }], 'open-A');
 */
export async function stockLots(internal: InternalClient, tenantId: string, locationId: number, productId: number, today: string, lots: LotPlan[], reference: string): Promise<void> {
  for (const lot of lots) {
    await internal.stock.recordOpening.mutate({ tenantId, locationId, productId, good: String(lot.good), reference: `${reference}-${lot.lotNumber}`, lotNumber: lot.lotNumber, expiryDate: addDays(today, lot.daysLeft) });
  }
}

/**
 * The lots of one product at one location, by lot number, through GET /stock/lots (one page of
 * up to 100, asserted complete).
 *
 * @example
 * const lots = await lotsAt(gw, session, location, product.id);
 * expect(lots.get('A')?.reserved).toBe(20);
 */
export async function lotsAt(gw: GatewayClient, session: TenantSession, locationId: number, productId: number): Promise<Map<string, LotFigures>> {
  const res = await gw.get(STOCK_LOTS, { key: session.key, tenant: session.tenant, query: { location_id: locationId, product_id: productId, per_page: 100 } });
  expect(res.status, res.text).toBe(200);
  const rows = res.body.data.lots as JsonBody[];
  expect(res.body.data.pagination.total, `${STOCK_LOTS}: every lot on one page`).toBe(rows.length);
  return new Map(
    rows.map((l) => [l.lot_number, { lotNumber: l.lot_number, expiryDate: l.expiry_date, good: l.good, damaged: l.damaged, reserved: l.reserved, available: l.available, sellable: l.sellable }]),
  );
}

/**
 * Units allocated per lot over the lines of `reservations` (hold bodies as the gateway answers
 * them); each line's allocations are asserted to sum to its quantity.
 *
 * @example
 * expect(allocatedByLot(held)).toEqual(new Map([['B', 10], ['A', 20]]));
 */
export function allocatedByLot(reservations: JsonBody[], productId?: number): Map<string, number> {
  const total = new Map<string, number>();
  for (const reservation of reservations) {
    for (const line of reservation.items as JsonBody[]) {
      if (productId !== undefined && line.product_id !== String(productId)) continue;
      const allocations = line.allocations as Allocation[];
      expect(allocations.reduce((sum, a) => sum + a.quantity, 0), `${reservation.id}: allocations sum to the line's quantity`).toBe(line.quantity);
      for (const a of allocations) total.set(a.lot_number, (total.get(a.lot_number) ?? 0) + a.quantity);
    }
  }
  return total;
}
