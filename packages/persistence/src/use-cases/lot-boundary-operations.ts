// The day boundaries of lots (docs/lots.md#events): a lot 7 days from turning unsellable gets its
// stock.lot_expiring notice, and a lot that turned unsellable at 00:00 WIB gets the
// stock.level_changed for its row's lower `available` (cause lot_expiry). Reads show both at once;
// this job sends the events, once per lot and location, within a run's interval. Candidates are
// found without locks; their stock rows are then locked in the one sorted order every stock change
// keeps, and each flag is set under that lock, so any number of gateways may run it at once.
import { type Dec, ZERO, lotFigures, lotStockKey, rowLotFigures, stockKey, toJsonNumber } from '@pits/domain';
import { type LotBoundary as Boundary, type LotBoundaryCandidate as Candidate, databaseToday, lotBoundaryCandidates as candidates, lotsByRow, markLotBoundarySent as markSent, productPolicies, readLotLevels, unsentLotBoundaries as stillUnsent } from '../repositories/lot-repository.js';
import { lockStockRows } from '../repositories/stock-repository.js';
import { writeStockChanges } from './stock-writes.js';
import { type EventInput, enqueueEvents } from '../repositories/event-outbox-repository.js';
import { databaseNow } from '../repositories/reservation-repository.js';
import { type Scope, withTransaction } from '../transaction.js';

/** What one run announced. */
export interface LotBoundaryRun {
  /** stock.lot_expiring notices sent (or marked sent, for a tenant nobody subscribes for). */
  expiring: number;
  /** Lots at a location that turned unsellable and were announced. */
  unsellable: number;
}

/**
 * One pass over one boundary: up to `batchSize` lots at their locations, in one transaction.
 * Returns how many it found, and how many of those it announced (those with units).
 */
async function announce(scope: Scope, boundary: Boundary, batchSize: number): Promise<{ found: number; announced: number }> {
  return withTransaction(scope, async (tx) => {
    const today = await databaseToday(tx);
    const found = await candidates(tx, boundary, today, batchSize);
    if (found.length === 0) return { found: 0, announced: 0 };
    const now = new Date(await databaseNow(tx));
    const levels = await lockStockRows(tx, found, now);
    const due = await stillUnsent(tx, boundary, found);
    if (due.length === 0) return { found: found.length, announced: 0 };
    const lots = await readLotLevels(tx, due);
    const policies = await productPolicies(tx, due.map((c) => c.productId));
    // Rows without units are marked too, with nothing to announce: the job never reads them again
    // (a row that gets units back has its notice due again, lot-repository.ts writeLotStock).
    const stocked = due.filter((c) => {
      const lot = lots.get(lotStockKey(c));
      return lot !== undefined && (lot.good.greaterThan(ZERO) || lot.damaged.greaterThan(ZERO));
    });
    if (boundary === 'expiring') {
      const events: EventInput<'stock.lot_expiring'>[] = stocked.map((c) => {
        const lot = lots.get(lotStockKey(c));
        const good = lot?.good ?? ZERO;
        const reserved = lot?.reserved ?? ZERO;
        const figures = lotFigures({ lotNumber: c.lotNumber, expiryDate: c.expiryDate, good, reserved }, today, policies.get(c.productId)?.outboundExpired ?? 0);
        // A lot found by its expiring day has an expiry date, so days left and a day it turns unsellable.
        return {
          tenantId: c.tenantId,
          type: 'stock.lot_expiring',
          resource: { type: 'stock_lot', id: lotStockKey(c) },
          data: {
            location_id: c.locationId,
            product_id: String(c.productId),
            sku: c.sku,
            lot_number: c.lotNumber,
            expiry_date: c.expiryDate!,
            production_date: c.productionDate,
            good: toJsonNumber(good),
            damaged: toJsonNumber(lot?.damaged ?? ZERO),
            reserved: toJsonNumber(reserved),
            available: toJsonNumber(figures.available),
            days_left: figures.daysLeft!,
            sellable: figures.sellable,
            unsellable_from: c.unsellableFrom!,
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
    return { found: found.length, announced: stocked.length };
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
      const { found, announced } = await announce(scope, boundary, batchSize);
      run[boundary] += announced;
      if (found < batchSize || stopped()) break;
    }
  }
  return run;
}
