// The transfer state machine:
//   pending -> approved (reserves at the source) | rejected
//   approved -> in_transit (ship: reserved goods leave the source)
//   in_transit -> completed (receive: goods arrive as good stock at the destination)
import type { Actor } from './actor.js';
import type { Dec } from './decimal.js';
import { type Result, domainError, fail, ok } from './errors.js';
import { inexactTotals, pricedTotals } from './exact-totals.js';
import { type StockChange, type StockLevels, type StockOutcome, applyStockChanges } from './stock.js';

export const TRANSFER_STATUSES = ['pending', 'approved', 'rejected', 'in_transit', 'completed'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

export interface TransferForDecision {
  status: TransferStatus;
  fromLocationId: number;
  toLocationId: number;
  items: readonly { productId: number; quantity: Dec }[];
}

export type TransferAction = 'approve' | 'reject' | 'ship' | 'receive';

/** The one state each action starts from. */
const FROM_STATE: Record<TransferAction, TransferStatus> = {
  approve: 'pending',
  reject: 'pending',
  ship: 'approved',
  receive: 'in_transit',
};

/** How each action reads in a refusal: "can be approved / rejected / shipped / received". */
const DONE: Record<TransferAction, string> = {
  approve: 'approved',
  reject: 'rejected',
  ship: 'shipped',
  receive: 'received',
};

export interface TransferStep<N> {
  next: N;
  stock: StockOutcome;
}

function guard(transfer: Pick<TransferForDecision, 'status'>, action: TransferAction) {
  const required = FROM_STATE[action];
  if (transfer.status === required) return null;
  return fail(
    domainError('INVALID_STATE', `transfer is ${transfer.status}; only a ${required} transfer can be ${DONE[action]}`, {
      field: 'status',
    }),
  );
}

export interface TransferTotals {
  lineValues: Dec[];
  totalItems: number;
  totalQuantity: Dec;
  totalValue: Dec;
}

/**
 * Totals of a new transfer: `total_value` per line is quantity x unit price (the product's cost
 * price, which only the create path knows, so the check that every total is exact as a JSON
 * number lives here): a line total past 15 significant digits is VALIDATION_ERROR on
 * `items[i].quantity`, a total value or total quantity past it on `items`.
 *
 * @example
 * const totals = unwrap(transferTotals([{ quantity: dec('3'), unitPrice: dec('19.99') }]));
 * totals.totalValue.toFixed() === '59.97'
 */
export function transferTotals(items: readonly { quantity: Dec; unitPrice: Dec }[]): Result<TransferTotals> {
  const totals = pricedTotals(items.map((i) => ({ quantity: i.quantity, price: i.unitPrice })));
  const inexact = inexactTotals(totals, { priceName: "unit_price (the product's cost price)", totalQuantity: true });
  const first = inexact[0];
  if (first !== undefined) {
    const issues = inexact.map(({ field, issue }) => ({ field, issue }));
    return fail(domainError('VALIDATION_ERROR', `${first.field} ${first.issue}`, { field: first.field, issue: first.issue, issues }));
  }
  return ok({ lineValues: totals.lineTotals, totalItems: items.length, totalQuantity: totals.totalQuantity, totalValue: totals.total });
}

function changes(transfer: TransferForDecision, build: (item: TransferForDecision['items'][number], field: string) => StockChange[]) {
  return transfer.items.flatMap((item, index) => build(item, `items[${index}].quantity`));
}

/** Approve reserves every line at the source; refused whole when any line exceeds what is available. */
export function approveTransfer(
  transfer: TransferForDecision,
  stock: StockLevels,
  now: Date,
  actor: Actor,
): Result<TransferStep<{ status: 'approved'; approvedAt: Date; approvedBy: Actor }>> {
  const refused = guard(transfer, 'approve');
  if (refused) return refused;
  const applied = applyStockChanges(
    stock,
    changes(transfer, (item, field) => [
      { locationId: transfer.fromLocationId, productId: item.productId, bucket: 'reserved', delta: item.quantity, field },
    ]),
  );
  if (!applied.ok) return applied;
  return ok({ next: { status: 'approved', approvedAt: now, approvedBy: actor }, stock: applied.value });
}

/** Reject a pending transfer; nothing was reserved yet, so no stock effect. */
export function rejectTransfer(
  transfer: Pick<TransferForDecision, 'status'>,
  reason: string,
  now: Date,
  actor: Actor,
): Result<{ next: { status: 'rejected'; rejectedAt: Date; rejectedBy: Actor; rejectionReason: string } }> {
  const refused = guard(transfer, 'reject');
  if (refused) return refused;
  return ok({ next: { status: 'rejected', rejectedAt: now, rejectedBy: actor, rejectionReason: reason } });
}

/** Ship takes the reserved quantities out of the source: reserved and good both go down. */
export function shipTransfer(
  transfer: TransferForDecision,
  stock: StockLevels,
  now: Date,
  actor: Actor,
): Result<TransferStep<{ status: 'in_transit'; shippedAt: Date; shippedBy: Actor }>> {
  const refused = guard(transfer, 'ship');
  if (refused) return refused;
  const applied = applyStockChanges(
    stock,
    changes(transfer, (item, field) => [
      { locationId: transfer.fromLocationId, productId: item.productId, bucket: 'reserved', delta: item.quantity.negated(), field },
      { locationId: transfer.fromLocationId, productId: item.productId, bucket: 'good', delta: item.quantity.negated(), field },
    ]),
  );
  if (!applied.ok) return applied;
  return ok({ next: { status: 'in_transit', shippedAt: now, shippedBy: actor }, stock: applied.value });
}

/** Receive adds the shipped quantities to the destination's good stock. */
export function receiveTransfer(
  transfer: TransferForDecision,
  stock: StockLevels,
  now: Date,
  actor: Actor,
): Result<TransferStep<{ status: 'completed'; receivedAt: Date; receivedBy: Actor }>> {
  const refused = guard(transfer, 'receive');
  if (refused) return refused;
  const applied = applyStockChanges(
    stock,
    changes(transfer, (item, field) => [
      { locationId: transfer.toLocationId, productId: item.productId, bucket: 'good', delta: item.quantity, field },
    ]),
  );
  if (!applied.ok) return applied;
  return ok({ next: { status: 'completed', receivedAt: now, receivedBy: actor }, stock: applied.value });
}
