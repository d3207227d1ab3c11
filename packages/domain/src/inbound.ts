// The inbound shipment state machine: pending -> partial -> received as items are received, and
// pending -> cancelled. Receipts never exceed an item's expected quantity.
import { type Dec, ZERO } from './decimal.js';
import { type DomainError, type FieldIssue, type Result, domainError, fail, ok } from './errors.js';
import { type StockChange, type StockLevels, type StockOutcome, applyStockChanges } from './stock.js';

export const INBOUND_STATUSES = ['pending', 'partial', 'received', 'cancelled'] as const;
export type InboundStatus = (typeof INBOUND_STATUSES)[number];
export type ReceiptCondition = 'good' | 'damaged';

export interface InboundLine {
  id: number;
  productId: number;
  expected: Dec;
  /** Cumulative quantity received so far. */
  received: Dec;
}

export interface InboundForDecision {
  status: InboundStatus;
  locationId: number;
  lines: readonly InboundLine[];
}

export interface Receipt {
  itemId: number;
  quantity: Dec;
  condition: ReceiptCondition;
}

export interface InboundReceipt {
  next: { status: 'partial' | 'received' };
  /** Every line's cumulative received quantity after this receipt, by line id. */
  received: Map<number, Dec>;
  stock: StockOutcome;
}

/** Quantity still expected on a line. */
export function pendingQuantity(line: Pick<InboundLine, 'expected' | 'received'>): Dec {
  const left = line.expected.minus(line.received);
  return left.isNegative() ? ZERO : left;
}

function invalidState(status: InboundStatus, action: string): { ok: false; error: DomainError } {
  return fail(domainError('INVALID_STATE', `inbound shipment is ${status}; it cannot be ${action}`, { field: 'status' }));
}

/**
 * Records receipts against a pending or partial shipment. Every refusal is whole: an unknown item or
 * an over-receipt anywhere leaves everything as it was.
 */
export function receiveInbound(
  inbound: InboundForDecision,
  receipts: readonly Receipt[],
  stock: StockLevels,
): Result<InboundReceipt> {
  if (inbound.status !== 'pending' && inbound.status !== 'partial') return invalidState(inbound.status, 'received');
  const lines = new Map(inbound.lines.map((line) => [line.id, line]));
  const received = new Map(inbound.lines.map((line) => [line.id, line.received]));
  const issues: FieldIssue[] = [];
  const changes: StockChange[] = [];
  receipts.forEach((receipt, index) => {
    const line = lines.get(receipt.itemId);
    if (!line) {
      issues.push({ field: `items[${index}].item_id`, issue: `item ${receipt.itemId} is not part of this inbound shipment` });
      return;
    }
    const total = (received.get(line.id) ?? ZERO).plus(receipt.quantity);
    if (total.greaterThan(line.expected)) {
      const left = line.expected.minus(received.get(line.id) ?? ZERO);
      issues.push({
        field: `items[${index}].received_quantity`,
        issue: `exceeds the pending quantity of item ${line.id}: ${left.toFixed()} pending, ${receipt.quantity.toFixed()} received`,
      });
      return;
    }
    received.set(line.id, total);
    changes.push({
      locationId: inbound.locationId,
      productId: line.productId,
      bucket: receipt.condition,
      delta: receipt.quantity,
      field: `items[${index}].received_quantity`,
    });
  });
  const first = issues[0];
  if (first) return fail(domainError('VALIDATION_ERROR', first.issue, { field: first.field, issue: first.issue, issues }));
  const applied = applyStockChanges(stock, changes);
  if (!applied.ok) return applied;
  const complete = inbound.lines.every((line) => (received.get(line.id) ?? ZERO).greaterThanOrEqualTo(line.expected));
  return ok({ next: { status: complete ? 'received' : 'partial' }, received, stock: applied.value });
}

/** Cancels a shipment that has not started arriving. */
export function cancelInbound(inbound: Pick<InboundForDecision, 'status'>): Result<{ next: { status: 'cancelled' } }> {
  if (inbound.status !== 'pending') return invalidState(inbound.status, 'cancelled');
  return ok({ next: { status: 'cancelled' } });
}
