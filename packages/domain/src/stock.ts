// Stock rules: per (location, product) a good, a damaged and a reserved quantity, none below zero,
// reserved never above good; available = good - reserved. Of `reserved`, `reservedForOrders` is
// what order holds keep (docs/holds.md#stock-effect); the rest is held for approved transfers. Transitions describe their effect as a
// list of StockChange; `applyStockChanges` checks them against the current levels and yields the
// new levels and one movement per change, which persistence writes with the ledger.
import { type Dec, ZERO } from './decimal.js';
import { type DomainError, type Result, domainError, fail, ok } from './errors.js';

export const STOCK_BUCKETS = ['good', 'damaged', 'reserved'] as const;
export type StockBucket = (typeof STOCK_BUCKETS)[number];

export interface StockLevel {
  good: Dec;
  damaged: Dec;
  reserved: Dec;
  /** The part of `reserved` that order holds keep; never below zero nor above `reserved`. */
  reservedForOrders: Dec;
}

export interface StockKey {
  locationId: number;
  productId: number;
}

/** One signed change to one bucket. `field` names the request input it stems from, for errors. */
export interface StockChange extends StockKey {
  bucket: StockBucket;
  delta: Dec;
  field?: string;
  /** A change of `reserved` made by an order hold: `reservedForOrders` moves with it. */
  forOrders?: boolean;
}

/** What a change did: the ledger row's content. */
export interface StockMovement extends StockKey {
  bucket: StockBucket;
  delta: Dec;
  before: Dec;
  after: Dec;
}

/** A level together with the (location, product) it belongs to. */
export interface PlacedStockLevel extends StockLevel, StockKey {}

export interface StockOutcome {
  /** The new level of every touched (location, product), by `stockKey`; each carries its own key. */
  levels: Map<string, PlacedStockLevel>;
  movements: StockMovement[];
}

/** Current levels by `stockKey`; a missing key means nothing is held there yet. */
export type StockLevels = ReadonlyMap<string, StockLevel>;

/** @example stockKey({ locationId: 3, productId: 1042 }) === '3:1042' */
export function stockKey(key: StockKey): string {
  return `${key.locationId}:${key.productId}`;
}

export function emptyStockLevel(): StockLevel {
  return { good: ZERO, damaged: ZERO, reserved: ZERO, reservedForOrders: ZERO };
}

/** The part of `reserved` that approved, not yet shipped transfers keep: what order holds do not. */
export function reservedForTransfers(level: Pick<StockLevel, 'reserved' | 'reservedForOrders'>): Dec {
  return level.reserved.minus(level.reservedForOrders);
}

/** Good stock that is not reserved for an approved transfer or an order hold. */
export function availableQuantity(level: StockLevel): Dec {
  return level.good.minus(level.reserved);
}

function insufficient(change: StockChange, level: StockLevel): DomainError {
  const have =
    change.bucket === 'reserved'
      ? `${availableQuantity(level).toFixed()} available`
      : change.bucket === 'good'
        ? `${level.good.toFixed()} good (${level.reserved.toFixed()} reserved)`
        : `${level.damaged.toFixed()} damaged`;
  const message = `insufficient stock of product ${change.productId} at location ${change.locationId}: ${have}, ${change.delta.abs().toFixed()} needed`;
  return domainError('INSUFFICIENT_STOCK', message, { field: change.field ?? '', issue: message });
}

/**
 * Applies every change in order, or none: the first change that would make a bucket negative, or
 * leave more reserved than good, refuses the whole set with INSUFFICIENT_STOCK.
 *
 * @example
 * applyStockChanges(new Map(), [{ locationId: 1, productId: 2, bucket: 'good', delta: dec(5) }])
 */
export function applyStockChanges(current: StockLevels, changes: readonly StockChange[]): Result<StockOutcome> {
  const levels = new Map<string, PlacedStockLevel>();
  const movements: StockMovement[] = [];
  for (const change of changes) {
    const key = stockKey(change);
    const level = levels.get(key) ?? current.get(key) ?? emptyStockLevel();
    const before = level[change.bucket];
    const after = before.plus(change.delta);
    const next: PlacedStockLevel = {
      good: level.good,
      damaged: level.damaged,
      reserved: level.reserved,
      reservedForOrders: change.forOrders && change.bucket === 'reserved' ? level.reservedForOrders.plus(change.delta) : level.reservedForOrders,
      [change.bucket]: after,
      locationId: change.locationId,
      productId: change.productId,
    };
    if (after.isNegative() || next.reserved.greaterThan(next.good) || next.reservedForOrders.isNegative() || next.reservedForOrders.greaterThan(next.reserved)) {
      return fail(insufficient(change, level));
    }
    levels.set(key, next);
    movements.push({
      locationId: change.locationId,
      productId: change.productId,
      bucket: change.bucket,
      delta: change.delta,
      before,
      after,
    });
  }
  return ok({ levels, movements });
}
