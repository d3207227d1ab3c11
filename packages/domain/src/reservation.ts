// The order hold (reservation) state machine, docs/holds.md:
//   active -> consumed (the order shipped) | released (cancelled) | expired (past expires_at)
// Every end of a hold gives back, or takes out, exactly what it held: the decisions here turn a
// reservation and the current stock levels into the stock changes, which persistence writes with
// the ledger in the transaction that changes the status.
import { type Dec, ZERO } from './decimal.js';
import { type DomainError, type FieldIssue, type Result, domainError, fail, ok } from './errors.js';
import { type StockChange, type StockLevels, type StockOutcome, applyStockChanges, availableQuantity, emptyStockLevel, stockKey } from './stock.js';

export const RESERVATION_STATUSES = ['active', 'consumed', 'released', 'expired'] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];

/** How long a hold lasts, in seconds (docs/holds.md#reservations). */
export const RESERVATION_EXPIRY = { min: 60, max: 604_800, default: 900 } as const;

export interface ReservationForDecision {
  status: ReservationStatus;
  locationId: number;
  /** ISO-8601, as the database stores it. */
  expiresAt: string;
  items: readonly { productId: number; quantity: Dec }[];
}

export type ReservationAction = 'extend' | 'release' | 'consume';

const DONE: Record<ReservationAction, string> = { extend: 'extended', release: 'released', consume: 'consumed' };

/**
 * The status a reservation has at `now` (the database's clock): an active one past its expiry is
 * expired even before the sweep has written so.
 *
 * @example effectiveStatus({ status: 'active', expiresAt: '2026-01-01T00:00:00.000Z' }, '2026-01-01T00:00:00.000Z') === 'expired'
 */
export function effectiveStatus(reservation: Pick<ReservationForDecision, 'status' | 'expiresAt'>, now: string): ReservationStatus {
  return reservation.status === 'active' && Date.parse(reservation.expiresAt) <= Date.parse(now) ? 'expired' : reservation.status;
}

/** INVALID_STATE unless the reservation is active at `now`. */
export function guardReservation(reservation: Pick<ReservationForDecision, 'status' | 'expiresAt'>, action: ReservationAction, now: string): DomainError | null {
  const status = effectiveStatus(reservation, now);
  if (status === 'active') return null;
  return domainError('INVALID_STATE', `reservation is ${status}; only an active reservation can be ${DONE[action]}`, { field: 'status' });
}

/** The expiry `seconds` after `now` (the database's clock), as an ISO-8601 string. */
export function expiryAfter(now: string, seconds: number): string {
  return new Date(Date.parse(now) + seconds * 1000).toISOString();
}

function holdChange(locationId: number, productId: number, delta: Dec, field: string): StockChange {
  return { locationId, productId, bucket: 'reserved', delta, field, forOrders: true };
}

/**
 * Holds every line against the location's available good stock, or nothing: every line that asks
 * for more than is available is one issue of INSUFFICIENT_STOCK on `items[i].quantity`. Lines name
 * distinct products (the contract refuses a product twice), so each is checked against the level
 * as it stands.
 *
 * @example unwrap(holdStock(1, [{ productId: 7, quantity: dec(2) }], levels)).movements[0].bucket === 'reserved'
 */
export function holdStock(locationId: number, items: readonly { productId: number; quantity: Dec }[], stock: StockLevels): Result<StockOutcome> {
  const issues: FieldIssue[] = [];
  items.forEach((item, index) => {
    const level = stock.get(stockKey({ locationId, productId: item.productId })) ?? emptyStockLevel();
    const available = availableQuantity(level);
    if (item.quantity.greaterThan(available)) {
      issues.push({
        field: `items[${index}].quantity`,
        issue: `insufficient stock of product ${item.productId} at location ${locationId}: ${available.toFixed()} available, ${item.quantity.toFixed()} needed`,
      });
    }
  });
  const first = issues[0];
  if (first) return fail(domainError('INSUFFICIENT_STOCK', first.issue, { field: first.field, issue: first.issue, issues }));
  return applyStockChanges(stock, items.map((item, index) => holdChange(locationId, item.productId, item.quantity, `items[${index}].quantity`)));
}

/** Release (or expiry) gives back every held quantity. */
export function releaseHold(reservation: ReservationForDecision, stock: StockLevels): Result<StockOutcome> {
  return applyStockChanges(stock, reservation.items.map((item, index) => holdChange(reservation.locationId, item.productId, item.quantity.negated(), `items[${index}].quantity`)));
}

/** One line of a partial consume, its product already resolved. */
export interface ConsumeLine {
  productId: number;
  quantity: Dec;
}

export interface Consumption {
  /** What each of the reservation's lines consumed, in the reservation's line order. */
  consumed: Dec[];
  stock: StockOutcome;
}

/**
 * Consume: the order shipped. Without `lines`, every line is consumed whole; with them, each named
 * product's quantity (at most what it holds; a product of this reservation only) is consumed and
 * the rest of the hold released. Consumed quantities leave `good` and the held quantity together.
 */
export function consumeHold(reservation: ReservationForDecision, stock: StockLevels, lines?: readonly ConsumeLine[]): Result<Consumption> {
  const wanted = new Map<number, Dec>();
  if (lines) {
    const issues: FieldIssue[] = [];
    const held = new Map(reservation.items.map((i) => [i.productId, i.quantity]));
    lines.forEach((line, index) => {
      const quantity = held.get(line.productId);
      if (quantity === undefined) {
        issues.push({ field: `items[${index}]`, issue: `product ${line.productId} is not held by this reservation` });
      } else if (line.quantity.greaterThan(quantity)) {
        issues.push({ field: `items[${index}].quantity`, issue: `must be at most the held quantity, ${quantity.toFixed()}` });
      } else {
        wanted.set(line.productId, line.quantity);
      }
    });
    const first = issues[0];
    if (first) return fail(domainError('VALIDATION_ERROR', `${first.field} ${first.issue}`, { field: first.field, issue: first.issue, issues }));
  }
  const consumed = reservation.items.map((item) => (lines ? (wanted.get(item.productId) ?? ZERO) : item.quantity));
  const changes = reservation.items.flatMap((item, index): StockChange[] => {
    const field = `items[${index}].quantity`;
    const take = consumed[index]!;
    const release = holdChange(reservation.locationId, item.productId, item.quantity.negated(), field);
    return take.isZero() ? [release] : [release, { locationId: reservation.locationId, productId: item.productId, bucket: 'good', delta: take.negated(), field }];
  });
  const applied = applyStockChanges(stock, changes);
  if (!applied.ok) return applied;
  return ok({ consumed, stock: applied.value });
}
