// The stock invariants an operator can check at any time (docs/holds.md#stock-effect): per stock
// row, what order holds keep equals the active holds' lines, what transfers keep equals the
// approved, not yet shipped transfers' lines, and every bucket's ledger sums to its balance. Each
// row that breaks one is listed with what it holds and what it should; none on a healthy database.
import { type Dec, ZERO, fromScaled, reservedForTransfers, stockKey } from '@pits/domain';
import { heldByActiveReservations } from './reservation-repository.js';
import { findLedgerMismatches } from './stock-repository.js';
import { execute } from '../execution/execute.js';
import type { Scope } from '../transaction.js';

export type StockCheck = 'reserved_for_orders' | 'reserved_for_transfers' | 'ledger_good' | 'ledger_damaged' | 'ledger_reserved';

export interface StockDiscrepancy {
  tenantId: string;
  locationId: number;
  productId: number;
  check: StockCheck;
  /** What the stock row says. */
  recorded: Dec;
  /** What the documents (holds, transfers) or the ledger add up to. */
  expected: Dec;
}

/**
 * Every broken invariant, in (location, product, check) order; `tenantId` narrows it to one tenant.
 * Read in one snapshot-free pass: run it on a quiet database, or run it twice, since a change that
 * commits between its reads can show as a passing discrepancy.
 *
 * @example expect(await verifyStock(database)).toEqual([]);
 */
export async function verifyStock(scope: Scope, tenantId?: string): Promise<StockDiscrepancy[]> {
  let levelsQuery = scope.db.selectFrom('stock_levels').select(['tenant_id', 'location_id', 'product_id', 'reserved', 'reserved_for_orders']);
  let transfersQuery = scope.db
    .selectFrom('transfer_items')
    .innerJoin('transfers', 'transfers.id', 'transfer_items.transfer_id')
    .where('transfers.status', '=', 'approved')
    .select((eb) => ['transfers.tenant_id', 'transfers.from_location_id', 'transfer_items.product_id', eb.fn.sum<number>('transfer_items.quantity').as('held')])
    .groupBy(['transfers.tenant_id', 'transfers.from_location_id', 'transfer_items.product_id']);
  if (tenantId) {
    levelsQuery = levelsQuery.where('tenant_id', '=', tenantId);
    transfersQuery = transfersQuery.where('transfers.tenant_id', '=', tenantId);
  }
  const [levels, holds, transfers, ledger] = await Promise.all([
    execute(scope, levelsQuery),
    heldByActiveReservations(scope, tenantId),
    execute(scope, transfersQuery),
    findLedgerMismatches(scope, tenantId),
  ]);
  const byHolds = new Map(holds.map((h) => [stockKey(h), h]));
  const byTransfers = new Map(
    transfers.map((t) => {
      const place = { tenantId: t.tenant_id, locationId: t.from_location_id, productId: t.product_id };
      return [stockKey(place), { ...place, held: fromScaled(String(t.held)) }];
    }),
  );
  const found: StockDiscrepancy[] = [];
  const tenantOf = new Map<string, string>();
  for (const level of levels) {
    const key = stockKey({ locationId: level.location_id, productId: level.product_id });
    tenantOf.set(key, level.tenant_id);
    const place = { tenantId: level.tenant_id, locationId: level.location_id, productId: level.product_id };
    const forOrders = fromScaled(level.reserved_for_orders);
    const forTransfers = reservedForTransfers({ reserved: fromScaled(level.reserved), reservedForOrders: forOrders });
    const held = byHolds.get(key)?.held ?? ZERO;
    const inTransfers = byTransfers.get(key)?.held ?? ZERO;
    if (!forOrders.equals(held)) found.push({ ...place, check: 'reserved_for_orders', recorded: forOrders, expected: held });
    if (!forTransfers.equals(inTransfers)) found.push({ ...place, check: 'reserved_for_transfers', recorded: forTransfers, expected: inTransfers });
    byHolds.delete(key);
    byTransfers.delete(key);
  }
  // Documents that hold stock on a row that does not exist.
  for (const { held, ...place } of byHolds.values()) found.push({ ...place, check: 'reserved_for_orders', recorded: ZERO, expected: held });
  for (const { held, ...place } of byTransfers.values()) found.push({ ...place, check: 'reserved_for_transfers', recorded: ZERO, expected: held });
  for (const m of ledger) {
    const key = stockKey(m);
    found.push({ tenantId: tenantOf.get(key) ?? tenantId ?? '', locationId: m.locationId, productId: m.productId, check: `ledger_${m.bucket}`, recorded: m.balance, expected: m.ledgerSum });
  }
  return found.sort((a, b) => a.locationId - b.locationId || a.productId - b.productId || a.check.localeCompare(b.check));
}
