// The stock invariants an operator can check at any time (docs/holds.md#stock-effect): per stock
// row, what order holds keep equals the active holds' lines, what transfers keep equals the
// approved, not yet shipped transfers' lines, and every bucket's balance is where its ledger ends. Each
// row that breaks one is listed with what it holds and what it should; none on a healthy database.
import { type ExpressionBuilder, sql } from 'kysely';
import { type Dec, STOCK_BUCKETS, type StockBucket, ZERO, fromScaled, reservedForTransfers, stockKey } from '@pits/domain';
import { heldByActiveReservations } from './reservation-repository.js';
import { execute } from '../execution/execute.js';
import type { DB } from '../schema/index.js';
import { type Scope, withSnapshot } from '../transaction.js';

export type StockCheck =
  | 'reserved_for_orders'
  | 'reserved_for_transfers'
  | 'ledger_good'
  | 'ledger_damaged'
  | 'ledger_reserved'
  // A lot-tracked row is the sum of its lots (docs/lots.md#stock-per-lot), bucket by bucket;
  | 'lots_good'
  | 'lots_damaged'
  | 'lots_reserved'
  // and each lot's reserved units are what active holds and approved transfers took of it there.
  | 'lot_allocations';

export interface StockDiscrepancy {
  tenantId: string;
  locationId: number;
  productId: number;
  check: StockCheck;
  /** What the stock row says. */
  recorded: Dec;
  /** What the documents (holds, transfers) or the ledger add up to. */
  expected: Dec;
  /**
   * Of a `reserved_for_orders` discrepancy: the numbers of the active holds on the row (the ones
   * the expiry sweep sets aside when the row keeps less than they hold), at most 100.
   */
  reservations?: string[];
  /** Of a `lot_allocations` discrepancy: the lot. */
  lotNumber?: string;
}

/**
 * The `quantity_after` of the newest ledger row of one bucket of the outer stock row, which the
 * row names (`<bucket>_ledger_id`, written with its levels): one primary-key read (null: no row yet).
 */
function newestLedgerAfter(eb: ExpressionBuilder<DB, 'stock_levels'>, bucket: StockBucket) {
  return eb
    .selectFrom('stock_ledger')
    .select('stock_ledger.quantity_after')
    .whereRef('stock_ledger.id', '=', `stock_levels.${bucket}_ledger_id`);
}

/**
 * Every broken invariant, in (location, product, check) order; `tenantId` narrows it to one tenant.
 * All of it is read on one snapshot of the database (`withSnapshot`), so a hold or transfer
 * committing meanwhile is seen whole or not at all: on a healthy database the answer is empty at
 * any moment, mid-sale too. Its cost grows with stock rows and the documents that hold stock, not
 * with the ledger's history: each bucket's balance is checked against the newest ledger row of that
 * bucket, which the stock row names (its `quantity_after`; every row's own before + delta = after is
 * a CHECK, and the rows of a bucket are written in a chain from the locked level). `findLedgerMismatches` sums the whole
 * ledger instead, for an audit off the sale's hours.
 *
 * @example expect(await verifyStock(database)).toEqual([]);
 */
export async function verifyStock(scope: Scope, tenantId?: string): Promise<StockDiscrepancy[]> {
  return withSnapshot(scope, async (snapshot) => {
    let levelsQuery = snapshot.db
      .selectFrom('stock_levels')
      .select((eb) => [
        'tenant_id',
        'location_id',
        'product_id',
        'good',
        'damaged',
        'reserved',
        'reserved_for_orders',
        newestLedgerAfter(eb, 'good').as('ledger_good'),
        newestLedgerAfter(eb, 'damaged').as('ledger_damaged'),
        newestLedgerAfter(eb, 'reserved').as('ledger_reserved'),
      ]);
    let transfersQuery = snapshot.db
      .selectFrom('transfer_items')
      .innerJoin('transfers', 'transfers.id', 'transfer_items.transfer_id')
      .where('transfers.status', '=', 'approved')
      .select((eb) => ['transfers.tenant_id', 'transfers.from_location_id', 'transfer_items.product_id', eb.fn.sum<number>('transfer_items.quantity').as('held')])
      .groupBy(['transfers.tenant_id', 'transfers.from_location_id', 'transfer_items.product_id']);
    if (tenantId) {
      levelsQuery = levelsQuery.where('tenant_id', '=', tenantId);
      transfersQuery = transfersQuery.where('transfers.tenant_id', '=', tenantId);
    }
    // One after another: a snapshot is one connection.
    const levels = await execute(snapshot, levelsQuery);
    const holds = await heldByActiveReservations(snapshot, tenantId);
    const transfers = await execute(snapshot, transfersQuery);
    const byHolds = new Map(holds.map((h) => [stockKey(h), h]));
    const byTransfers = new Map(
      transfers.map((t) => {
        const place = { tenantId: t.tenant_id, locationId: t.from_location_id, productId: t.product_id };
        return [stockKey(place), { ...place, held: fromScaled(String(t.held)) }];
      }),
    );
    const found: StockDiscrepancy[] = [];
    for (const level of levels) {
      const key = stockKey({ locationId: level.location_id, productId: level.product_id });
      const place = { tenantId: level.tenant_id, locationId: level.location_id, productId: level.product_id };
      const forOrders = fromScaled(level.reserved_for_orders);
      const forTransfers = reservedForTransfers({ reserved: fromScaled(level.reserved), reservedForOrders: forOrders });
      const held = byHolds.get(key)?.held ?? ZERO;
      const inTransfers = byTransfers.get(key)?.held ?? ZERO;
      if (!forOrders.equals(held)) found.push({ ...place, check: 'reserved_for_orders', recorded: forOrders, expected: held });
      if (!forTransfers.equals(inTransfers)) found.push({ ...place, check: 'reserved_for_transfers', recorded: forTransfers, expected: inTransfers });
      for (const bucket of STOCK_BUCKETS) {
        const balance = fromScaled(level[bucket]);
        const ledger = fromScaled(String(level[`ledger_${bucket}`] ?? 0));
        if (!ledger.equals(balance)) found.push({ ...place, check: `ledger_${bucket}`, recorded: balance, expected: ledger });
      }
      byHolds.delete(key);
      byTransfers.delete(key);
    }
    // Documents that hold stock on a row that does not exist.
    for (const { held, ...place } of byHolds.values()) found.push({ ...place, check: 'reserved_for_orders', recorded: ZERO, expected: held });
    for (const { held, ...place } of byTransfers.values()) found.push({ ...place, check: 'reserved_for_transfers', recorded: ZERO, expected: held });
    found.push(...(await lotDiscrepancies(snapshot, tenantId)));
    await nameHolds(snapshot, found.filter((d) => d.check === 'reserved_for_orders'));
    return found.sort((a, b) => a.locationId - b.locationId || a.productId - b.productId || a.check.localeCompare(b.check) || (a.lotNumber ?? '').localeCompare(b.lotNumber ?? ''));
  });
}

/** Names the active holds on each row of `orders` (reserved_for_orders discrepancies), in the snapshot. */
async function nameHolds(snapshot: Scope, orders: StockDiscrepancy[]): Promise<void> {
  const keys = orders.slice(0, 500);
  if (keys.length === 0) return;
  const rows = await execute(
    snapshot,
    snapshot.db
      .selectFrom('reservation_items')
      .innerJoin('reservations', 'reservations.id', 'reservation_items.reservation_id')
      .where('reservations.status', '=', 'active')
      .where((eb) => eb(eb.refTuple('reservations.location_id', 'reservation_items.product_id'), 'in', keys.map((k) => eb.tuple(k.locationId, k.productId))))
      .select(['reservations.location_id', 'reservation_items.product_id', 'reservations.number'])
      .orderBy('reservations.number'),
  );
  const byRow = new Map<string, string[]>();
  for (const row of rows) {
    const key = stockKey({ locationId: row.location_id, productId: row.product_id });
    byRow.set(key, [...(byRow.get(key) ?? []), row.number]);
  }
  for (const d of keys) d.reservations = (byRow.get(stockKey(d)) ?? []).slice(0, 100);
}

/**
 * The lot invariants, in the caller's snapshot: every row of a lot-tracked product equals the sum
 * of its lots in each bucket, and every lot's reserved units at a location equal what active holds
 * and approved transfers allocated of it there.
 */
async function lotDiscrepancies(snapshot: Scope, tenantId?: string): Promise<StockDiscrepancy[]> {
  let rowsQuery = snapshot.db
    .selectFrom('stock_levels')
    .innerJoin('products', 'products.id', 'stock_levels.product_id')
    .where(sql<boolean>`products.production_batch`)
    .select(['stock_levels.tenant_id', 'stock_levels.location_id', 'stock_levels.product_id', 'stock_levels.good', 'stock_levels.damaged', 'stock_levels.reserved']);
  let sumsQuery = snapshot.db
    .selectFrom('lot_stock')
    .select((eb) => ['location_id', 'product_id', eb.fn.sum<number>('good').as('good'), eb.fn.sum<number>('damaged').as('damaged'), eb.fn.sum<number>('reserved').as('reserved')])
    .groupBy(['location_id', 'product_id']);
  let lotsQuery = snapshot.db
    .selectFrom('lot_stock')
    .innerJoin('lots', 'lots.id', 'lot_stock.lot_id')
    .select(['lot_stock.tenant_id', 'lot_stock.location_id', 'lot_stock.product_id', 'lot_stock.lot_id', 'lots.lot_number', 'lot_stock.reserved']);
  let holdsQuery = snapshot.db
    .selectFrom('lot_allocations')
    .innerJoin('reservation_items', 'reservation_items.id', 'lot_allocations.item_id')
    .innerJoin('reservations', 'reservations.id', 'reservation_items.reservation_id')
    .where('lot_allocations.document', '=', 'reservation')
    .where('reservations.status', '=', 'active')
    .select((eb) => ['reservations.location_id', 'lot_allocations.lot_id', eb.fn.sum<number>('lot_allocations.quantity').as('held')])
    .groupBy(['reservations.location_id', 'lot_allocations.lot_id']);
  let transfersQuery = snapshot.db
    .selectFrom('lot_allocations')
    .innerJoin('transfer_items', 'transfer_items.id', 'lot_allocations.item_id')
    .innerJoin('transfers', 'transfers.id', 'transfer_items.transfer_id')
    .where('lot_allocations.document', '=', 'transfer')
    .where('transfers.status', '=', 'approved')
    .select((eb) => ['transfers.from_location_id as location_id', 'lot_allocations.lot_id', eb.fn.sum<number>('lot_allocations.quantity').as('held')])
    .groupBy(['transfers.from_location_id', 'lot_allocations.lot_id']);
  if (tenantId) {
    rowsQuery = rowsQuery.where('stock_levels.tenant_id', '=', tenantId);
    sumsQuery = sumsQuery.where('tenant_id', '=', tenantId);
    lotsQuery = lotsQuery.where('lot_stock.tenant_id', '=', tenantId);
    holdsQuery = holdsQuery.where('lot_allocations.tenant_id', '=', tenantId);
    transfersQuery = transfersQuery.where('lot_allocations.tenant_id', '=', tenantId);
  }
  const rows = await execute(snapshot, rowsQuery);
  const sums = new Map((await execute(snapshot, sumsQuery)).map((s) => [stockKey({ locationId: s.location_id, productId: s.product_id }), s]));
  const found: StockDiscrepancy[] = [];
  for (const row of rows) {
    const place = { tenantId: row.tenant_id, locationId: row.location_id, productId: row.product_id };
    const sum = sums.get(stockKey(place));
    for (const bucket of STOCK_BUCKETS) {
      const recorded = fromScaled(row[bucket]);
      const expected = fromScaled(String(sum?.[bucket] ?? 0));
      if (!recorded.equals(expected)) found.push({ ...place, check: `lots_${bucket}`, recorded, expected });
    }
  }
  const allocated = new Map<string, Dec>();
  for (const a of [...(await execute(snapshot, holdsQuery)), ...(await execute(snapshot, transfersQuery))]) {
    const key = `${a.location_id}:${a.lot_id}`;
    allocated.set(key, (allocated.get(key) ?? ZERO).plus(fromScaled(String(a.held))));
  }
  for (const lot of await execute(snapshot, lotsQuery)) {
    const key = `${lot.location_id}:${lot.lot_id}`;
    const recorded = fromScaled(lot.reserved);
    const expected = allocated.get(key) ?? ZERO;
    allocated.delete(key);
    if (!recorded.equals(expected)) found.push({ tenantId: lot.tenant_id, locationId: lot.location_id, productId: lot.product_id, check: 'lot_allocations', recorded, expected, lotNumber: lot.lot_number });
  }
  return found;
}
