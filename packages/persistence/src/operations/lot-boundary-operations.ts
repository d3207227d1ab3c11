// The day boundaries of lots (docs/lots.md#events): a lot 7 days from turning unsellable gets its
// stock.lot_expiring notice, and a lot that turned unsellable at 00:00 WIB gets the
// stock.level_changed for its row's lower `available` (cause lot_expiry). Reads show both at once;
// this job sends the events, once per lot and location, within a run's interval. Candidates are
// found without locks; their stock rows are then locked in the one sorted order every stock change
// keeps, and each flag is set under that lock, so any number of gateways may run it at once.
import { type Dec, ZERO, lotFigures, lotStockKey, rowLotFigures, stockKey, toJsonNumber } from '@pits/domain';
import { databaseToday, lotsByRow, productPolicies, readLotLevels } from '../repositories/lot-repository.js';
import { type TenantStockKey, lockStockRows, writeStockChanges } from '../repositories/stock-repository.js';
import { type EventInput, enqueueEvents } from '../repositories/webhook-repository.js';
import { databaseNow } from '../repositories/reservation-repository.js';
import { execute, executeWrite } from '../execution/execute.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';

/** What one run announced. */
export interface LotBoundaryRun {
  /** stock.lot_expiring notices sent (or marked sent, for a tenant nobody subscribes for). */
  expiring: number;
  /** Lots at a location that turned unsellable and were announced. */
  unsellable: number;
}

type Boundary = 'expiring' | 'unsellable';

interface Candidate extends TenantStockKey {
  id: number;
  lotId: number;
  lotNumber: string;
  expiryDate: string | null;
  productionDate: string | null;
  unsellableFrom: string | null;
  sku: string;
}

/** Lots with units whose `boundary` day has come and that were not announced at their location, oldest first. */
async function candidates(scope: Scope, boundary: Boundary, today: string, limit: number): Promise<Candidate[]> {
  const day = boundary === 'expiring' ? 'lots.expiring_from' : 'lots.unsellable_from';
  const sent = boundary === 'expiring' ? 'lot_stock.expiring_sent' : 'lot_stock.unsellable_sent';
  const rows = await execute(
    scope,
    scope.db
      .selectFrom('lot_stock')
      .innerJoin('lots', 'lots.id', 'lot_stock.lot_id')
      .innerJoin('products', 'products.id', 'lot_stock.product_id')
      .select(['lot_stock.id', 'lot_stock.tenant_id', 'lot_stock.location_id', 'lot_stock.product_id', 'lot_stock.lot_id', 'lots.lot_number', 'lots.expiry_date', 'lots.production_date', 'lots.unsellable_from', 'products.sku'])
      .where(day, '<=', today)
      .where(sent, '=', 0)
      .where((eb) => eb.or([eb('lot_stock.good', '>', 0), eb('lot_stock.damaged', '>', 0)]))
      .orderBy(day)
      .orderBy('lot_stock.id')
      .limit(limit),
  );
  return rows.map((r) => ({
    id: Number(r.id),
    tenantId: r.tenant_id,
    locationId: Number(r.location_id),
    productId: Number(r.product_id),
    lotId: Number(r.lot_id),
    lotNumber: r.lot_number,
    expiryDate: r.expiry_date,
    productionDate: r.production_date,
    unsellableFrom: r.unsellable_from,
    sku: r.sku,
  }));
}

/** The candidates whose flag is still unset, read under their rows' lock. */
async function stillUnsent(tx: Tx, boundary: Boundary, found: readonly Candidate[]): Promise<Candidate[]> {
  const column = boundary === 'expiring' ? 'expiring_sent' : 'unsellable_sent';
  const open = new Set(
    (await execute(tx, tx.db.selectFrom('lot_stock').select('id').where('id', 'in', found.map((c) => c.id)).where(column, '=', 0))).map((r) => Number(r.id)),
  );
  return found.filter((c) => open.has(c.id));
}

async function markSent(tx: Tx, boundary: Boundary, done: readonly Candidate[]): Promise<void> {
  if (done.length === 0) return;
  const ids = done.map((c) => c.id);
  if (boundary === 'expiring') await executeWrite(tx, tx.db.updateTable('lot_stock').set({ expiring_sent: 1 }).where('id', 'in', ids));
  else await executeWrite(tx, tx.db.updateTable('lot_stock').set({ unsellable_sent: 1 }).where('id', 'in', ids));
}

/**
 * One pass over one boundary: up to `batchSize` lots at their locations, in one transaction.
 * Returns how many it announced.
 */
async function announce(scope: Scope, boundary: Boundary, batchSize: number): Promise<number> {
  return withTransaction(scope, async (tx) => {
    const today = await databaseToday(tx);
    const found = await candidates(tx, boundary, today, batchSize);
    if (found.length === 0) return 0;
    const now = new Date(await databaseNow(tx));
    const levels = await lockStockRows(tx, found, now);
    const due = await stillUnsent(tx, boundary, found);
    if (due.length === 0) return 0;
    const lots = await readLotLevels(tx, due);
    const policies = await productPolicies(tx, due.map((c) => c.productId));
    if (boundary === 'expiring') {
      const events: EventInput[] = due.map((c) => {
        const lot = lots.get(lotStockKey(c));
        const good = lot?.good ?? ZERO;
        const reserved = lot?.reserved ?? ZERO;
        const figures = lotFigures({ lotNumber: c.lotNumber, expiryDate: c.expiryDate, good, reserved }, today, policies.get(c.productId)?.outboundExpired ?? 0);
        return {
          tenantId: c.tenantId,
          type: 'stock.lot_expiring',
          resource: { type: 'stock_lot', id: lotStockKey(c) },
          data: {
            location_id: c.locationId,
            product_id: String(c.productId),
            sku: c.sku,
            lot_number: c.lotNumber,
            expiry_date: c.expiryDate,
            production_date: c.productionDate,
            good: toJsonNumber(good),
            damaged: toJsonNumber(lot?.damaged ?? ZERO),
            reserved: toJsonNumber(reserved),
            available: toJsonNumber(figures.available),
            days_left: figures.daysLeft,
            sellable: figures.sellable,
            unsellable_from: c.unsellableFrom,
          },
        };
      });
      await enqueueEvents(tx, events, now);
    } else {
      // A row's available drops by its lots' free units that turned unsellable: one version step
      // and one stock.level_changed per row, however many of its lots crossed (docs/lots.md#events).
      const byRow = new Map<string, Candidate>();
      for (const c of due) {
        const lot = lots.get(lotStockKey(c));
        if (lot && lot.good.greaterThan(lot.reserved)) byRow.set(stockKey(c), c);
      }
      const rowLots = lotsByRow(lots.values());
      for (const c of byRow.values()) {
        const level = levels.get(stockKey(c))!;
        const shortDated: Dec = rowLotFigures(rowLots.get(stockKey(c)) ?? [], today, policies.get(c.productId)?.outboundExpired ?? 0).shortDated;
        await writeStockChanges(
          tx,
          [{ tenantId: c.tenantId, outcome: { levels: new Map([[stockKey(c), { ...level, locationId: c.locationId, productId: c.productId }]]), movements: [] }, cause: { type: 'lot_expiry', id: c.lotNumber, documentNumber: null, actor: 'system:lot-expiry' } }],
          now,
          new Map([[stockKey(c), shortDated]]),
        );
      }
    }
    await markSent(tx, boundary, due);
    return due.length;
  });
}

/**
 * One run of the lot boundary job: passes of up to `batchSize` lots until a pass finds fewer, for
 * notices first, then lots turning unsellable. `stopped()` ends it after the current pass.
 *
 * @example await announceLotBoundaries(database, 200);
 */
export async function announceLotBoundaries(scope: Scope, batchSize = 200, stopped: () => boolean = () => false): Promise<LotBoundaryRun> {
  const run: LotBoundaryRun = { expiring: 0, unsellable: 0 };
  for (const boundary of ['expiring', 'unsellable'] as const) {
    for (;;) {
      const done = await announce(scope, boundary, batchSize);
      run[boundary] += done;
      if (done < batchSize || stopped()) break;
    }
  }
  return run;
}
