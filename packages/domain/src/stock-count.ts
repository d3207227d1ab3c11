// A physical stock count as compare-and-set (docs/stock-rules.md#stock-counts): every line says what was counted and
// what the partner last read (`expected`, null to skip the check). Against the levels read under
// lock, a stale line refuses the whole count; otherwise the differences become the lines of one
// approved adjustment, each with its own sign.
import type { Actor } from './actor.js';
import type { AdjustmentType, StockSource } from './adjustment.js';
import { type Dec, ZERO, sum, toPlainString } from './decimal.js';
import { type FieldIssue, type Result, domainError, fail, ok } from './errors.js';
import { inexactTotals, pricedTotals } from './exact-totals.js';
import { type StockChange, type StockLevels, type StockOutcome, applyStockChanges, stockKey } from './stock.js';

/** One counted line; `unitCost` is what a unit of the product is valued at (its cost price). */
export interface CountLine {
  productId: number;
  counted: Dec;
  /** What the partner read before counting; null skips the check for this line. */
  expected: Dec | null;
  unitCost: Dec;
}

export interface StockCount {
  locationId: number;
  stockSource: StockSource;
  lines: readonly CountLine[];
}

/** A line of the adjustment a count writes: `line` is its index in the count. */
export interface CountedDifference {
  line: number;
  productId: number;
  type: AdjustmentType;
  quantity: Dec;
  unitCost: Dec;
  totalCost: Dec;
}

export interface StockCountOutcome {
  /** The sign of the net difference: increase when it is zero or more. */
  type: AdjustmentType;
  /** Only the lines whose count differs from the stock, in count order. */
  differences: CountedDifference[];
  totalAmount: Dec;
  next: { status: 'approved'; approvedAt: Date; approvedBy: Actor };
  stock: StockOutcome;
}

/** The reason the adjustment of a count carries. */
export const STOCK_COUNT_REASON = 'stock count';

/**
 * Decides a count against the current levels of its lines (read under lock by the caller):
 * STALE_QUANTITY naming every line whose `expected` differs from the bucket's quantity (a missing
 * level is 0); VALIDATION_ERROR when nothing would change; INSUFFICIENT_STOCK when a counted good
 * quantity is below what is reserved; else the adjustment's lines and the stock outcome.
 *
 * @example
 * const r = decideStockCount({ locationId: 1, stockSource: 'good', lines }, levels, now, actor);
 * if (r.ok) write(r.value.differences, r.value.stock);
 */
export function decideStockCount(count: StockCount, stock: StockLevels, now: Date, actor: Actor): Result<StockCountOutcome> {
  const current = (productId: number): Dec => stock.get(stockKey({ locationId: count.locationId, productId }))?.[count.stockSource] ?? ZERO;
  const stale: FieldIssue[] = [];
  count.lines.forEach((line, index) => {
    const quantity = current(line.productId);
    if (line.expected !== null && !line.expected.equals(quantity)) {
      stale.push({ field: `items[${index}].expected`, issue: `is ${toPlainString(line.expected)} but the current quantity is ${toPlainString(quantity)}` });
    }
  });
  if (stale.length > 0) {
    const message = `the stock changed since it was read: ${stale.length} line${stale.length === 1 ? '' : 's'} no longer match${stale.length === 1 ? 'es' : ''}; read again and recount`;
    return fail(domainError('STALE_QUANTITY', message, { field: stale[0]!.field, issue: stale[0]!.issue, issues: stale }));
  }
  const changed = count.lines.flatMap((line, index) => {
    const delta = line.counted.minus(current(line.productId));
    return delta.isZero() ? [] : [{ line: index, productId: line.productId, delta, unitCost: line.unitCost }];
  });
  if (changed.length === 0) {
    return fail(domainError('VALIDATION_ERROR', 'the count matches the stock', { field: 'items', issue: 'the count matches the stock; there is nothing to change' }));
  }
  const totals = pricedTotals(changed.map((c) => ({ quantity: c.delta.abs(), price: c.unitCost })));
  const inexact = inexactTotals(totals, { priceName: "unit_cost (the product's cost price)", totalQuantity: false }).map(({ path, issue }) => {
    const index = path[1];
    return { field: typeof index === 'number' ? `items[${changed[index]!.line}].counted` : 'items', issue };
  });
  if (inexact.length > 0) {
    return fail(domainError('VALIDATION_ERROR', `${inexact[0]!.field} ${inexact[0]!.issue}`, { field: inexact[0]!.field, issue: inexact[0]!.issue, issues: inexact }));
  }
  const changes: StockChange[] = changed.map((c) => ({
    locationId: count.locationId,
    productId: c.productId,
    bucket: count.stockSource,
    delta: c.delta,
    field: `items[${c.line}].counted`,
  }));
  const applied = applyStockChanges(stock, changes);
  if (!applied.ok) return applied;
  const net = sum(changed.map((c) => c.delta));
  return ok({
    type: net.isNegative() ? 'decrease' : 'increase',
    differences: changed.map((c, i) => ({
      line: c.line,
      productId: c.productId,
      type: c.delta.isNegative() ? 'decrease' : 'increase',
      quantity: c.delta.abs(),
      unitCost: c.unitCost,
      totalCost: totals.lineTotals[i]!,
    })),
    totalAmount: totals.total,
    next: { status: 'approved', approvedAt: now, approvedBy: actor },
    stock: applied.value,
  });
}
