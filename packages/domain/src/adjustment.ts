// The adjustment state machine: pending -> approved (stock applied) | rejected (no stock effect).
import type { Actor } from './actor.js';
import type { Dec } from './decimal.js';
import { type Result, domainError, fail, ok } from './errors.js';
import { pricedTotals } from './exact-totals.js';
import { type StockChange, type StockLevels, type StockOutcome, applyStockChanges } from './stock.js';

export const ADJUSTMENT_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type AdjustmentStatus = (typeof ADJUSTMENT_STATUSES)[number];
export type AdjustmentType = 'increase' | 'decrease';
export type StockSource = 'good' | 'damaged';

/** What a decision on an adjustment needs to know. */
export interface AdjustmentForDecision {
  status: AdjustmentStatus;
  type: AdjustmentType;
  stockSource: StockSource;
  locationId: number;
  items: readonly { productId: number; quantity: Dec }[];
}

export interface AdjustmentApproval {
  next: { status: 'approved'; approvedAt: Date; approvedBy: Actor };
  stock: StockOutcome;
}

export interface AdjustmentRejection {
  next: { status: 'rejected'; rejectedAt: Date; rejectedBy: Actor; rejectionReason: string };
}

/**
 * Line totals and the document total of a new adjustment, exact. That they are exact as JSON
 * numbers is checked by the create body's schema (`createAdjustmentBody`), which has both
 * factors of every line.
 */
export function adjustmentTotals(items: readonly { quantity: Dec; unitCost: Dec }[]): {
  lineTotals: Dec[];
  totalAmount: Dec;
  itemCount: number;
} {
  const { lineTotals, total } = pricedTotals(items.map((item) => ({ quantity: item.quantity, price: item.unitCost })));
  return { lineTotals, totalAmount: total, itemCount: items.length };
}

/** The stock changes an approval makes: into or out of the `stock_source` bucket. */
export function adjustmentStockChanges(adjustment: AdjustmentForDecision): StockChange[] {
  return adjustment.items.map((item, index) => ({
    locationId: adjustment.locationId,
    productId: item.productId,
    bucket: adjustment.stockSource,
    delta: adjustment.type === 'increase' ? item.quantity : item.quantity.negated(),
    field: `items[${index}].quantity`,
  }));
}

function notPending(status: AdjustmentStatus, action: string) {
  return fail(
    domainError('INVALID_STATE', `adjustment is ${status}; only a pending adjustment can be ${action}`, {
      field: 'status',
    }),
  );
}

/**
 * The check that needs no stock: only a pending adjustment can be decided. Callers run it before
 * locking any stock row, so a decided adjustment is refused without touching stock.
 *
 * @example unwrap(requirePending(row.status, 'approved'))
 */
export function requirePending(status: AdjustmentStatus, action: 'approved' | 'rejected'): Result<void> {
  return status === 'pending' ? ok(undefined) : notPending(status, action);
}

/**
 * Approves a pending adjustment against the current stock levels of its lines.
 *
 * @example
 * const r = approveAdjustment(adj, levels, new Date(), actor);
 * if (r.ok) persist(r.value.next, r.value.stock);
 */
export function approveAdjustment(
  adjustment: AdjustmentForDecision,
  stock: StockLevels,
  now: Date,
  actor: Actor,
): Result<AdjustmentApproval> {
  const pending = requirePending(adjustment.status, 'approved');
  if (!pending.ok) return pending;
  const applied = applyStockChanges(stock, adjustmentStockChanges(adjustment));
  if (!applied.ok) return applied;
  return ok({ next: { status: 'approved', approvedAt: now, approvedBy: actor }, stock: applied.value });
}

/** Rejects a pending adjustment; no stock effect. */
export function rejectAdjustment(
  adjustment: Pick<AdjustmentForDecision, 'status'>,
  reason: string,
  now: Date,
  actor: Actor,
): Result<AdjustmentRejection> {
  const pending = requirePending(adjustment.status, 'rejected');
  if (!pending.ok) return pending;
  return ok({ next: { status: 'rejected', rejectedAt: now, rejectedBy: actor, rejectionReason: reason } });
}
