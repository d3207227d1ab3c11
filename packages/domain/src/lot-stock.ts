// Stock per lot (docs/lots.md#stock-per-lot): a lot-tracked stock row is the sum of its lots, and
// each lot keeps the row's rules on its own: no bucket below zero, never more reserved than good.
// A document's stock change on such a row is also a list of changes per lot, checked here against
// the lots read under the row's lock; persistence writes both, the row's ledger rows split by lot.
import { type Dec, ZERO } from './decimal.js';
import { type DomainError, type Result, domainError, fail, ok } from './errors.js';
import { type StockBucket, type StockKey, stockKey } from './stock.js';

/** A lot's units at one location. */
export interface LotBalance extends StockKey {
  lotNumber: string;
  expiryDate: string | null;
  good: Dec;
  damaged: Dec;
  reserved: Dec;
}

/** One signed change of one bucket of one lot at a location; `field` names the request input, for errors. */
export interface LotChange extends StockKey {
  lotNumber: string;
  /** The lot's expiry date, for a lot this change creates at the location. */
  expiryDate: string | null;
  bucket: StockBucket;
  delta: Dec;
  field?: string;
}

/** The key of a lot at a location. @example lotStockKey({ locationId: 1, productId: 7, lotNumber: 'B1' }) === '1:7:B1' */
export function lotStockKey(key: StockKey & { lotNumber: string }): string {
  return `${stockKey(key)}:${key.lotNumber}`;
}

/** Lots by `lotStockKey`; a missing key is a lot with nothing at that location yet. */
export type LotBalances = ReadonlyMap<string, LotBalance>;

export interface LotOutcome {
  /** The new balance of every touched lot, by `lotStockKey`. */
  lots: Map<string, LotBalance>;
  /** The changes applied, in order (the ledger's rows of these rows name these lots). */
  changes: LotChange[];
}

function insufficient(change: LotChange, lot: LotBalance): DomainError {
  const have =
    change.bucket === 'reserved'
      ? `${lot.good.minus(lot.reserved).toFixed()} free`
      : change.bucket === 'good'
        ? `${lot.good.toFixed()} good (${lot.reserved.toFixed()} reserved)`
        : `${lot.damaged.toFixed()} damaged`;
  const message = `insufficient stock in lot ${change.lotNumber} of product ${change.productId} at location ${change.locationId}: ${have}, ${change.delta.abs().toFixed()} needed`;
  return domainError('INSUFFICIENT_STOCK', message, { field: change.field ?? '', issue: message });
}

/**
 * Applies every lot change in order, or none: the first that would take a lot's bucket below
 * zero, or leave a lot more reserved than good, refuses all with INSUFFICIENT_STOCK naming the lot
 * (even when its stock row as a whole has enough).
 *
 * @example applyLotChanges(new Map(), [{ locationId: 1, productId: 7, lotNumber: 'B1', expiryDate: '2027-01-31', bucket: 'good', delta: dec(5) }])
 */
export function applyLotChanges(current: LotBalances, changes: readonly LotChange[]): Result<LotOutcome> {
  const lots = new Map<string, LotBalance>();
  for (const change of changes) {
    const key = lotStockKey(change);
    const lot = lots.get(key) ??
      current.get(key) ?? { locationId: change.locationId, productId: change.productId, lotNumber: change.lotNumber, expiryDate: change.expiryDate, good: ZERO, damaged: ZERO, reserved: ZERO };
    const next: LotBalance = { ...lot };
    next[change.bucket] = lot[change.bucket].plus(change.delta);
    if (next[change.bucket].isNegative() || next.reserved.greaterThan(next.good)) return fail(insufficient(change, lot));
    lots.set(key, next);
  }
  return ok({ lots, changes: [...changes] });
}
