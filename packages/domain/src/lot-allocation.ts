// First expired, first out: which lots a hold line or a transfer line takes, and how consuming
// part of a hold splits over the lots it took. Pure decisions over the lots read under lock; the
// caller writes the allocations and the per-lot reserved quantities.
import { type Dec, ZERO, sum } from './decimal.js';
import { type FieldIssue, type Result, domainError, fail, ok } from './errors.js';
import { type LotExpiry, type LotPolicy, type LotStock, isSellable, lotDaysLeft, lotNumberIssue, sellableMinimum } from './lot.js';

/** Units of one lot that a line holds. */
export interface LotAllocation {
  lotNumber: string;
  expiryDate: string | null;
  quantity: Dec;
}

/**
 * The order lots are taken in: earliest `expiryDate` first, lots without one last, then by
 * `lotNumber` (compared by code point, as a binary collation sorts).
 *
 * @example [...lots].sort(compareFefo).map((l) => l.lotNumber)
 */
export function compareFefo(a: LotExpiry & { lotNumber: string }, b: LotExpiry & { lotNumber: string }): number {
  if (a.expiryDate !== b.expiryDate) {
    if (a.expiryDate === null) return 1;
    if (b.expiryDate === null) return -1;
    return a.expiryDate < b.expiryDate ? -1 : 1;
  }
  if (a.lotNumber === b.lotNumber) return 0;
  return a.lotNumber < b.lotNumber ? -1 : 1;
}

/** One line to allocate: a product's quantity, optionally pinned to one lot. */
export interface AllocationLine {
  productId: number;
  quantity: Dec;
  /** The lot the line names, which pins it to that lot; null or absent: first expired, first out. */
  lotNumber?: string | null | undefined;
  /** The product's lot settings. */
  policy: Pick<LotPolicy, 'lotTracked' | 'outboundExpired'>;
}

/** Where and when the lines are allocated, and what is there. */
export interface AllocationContext {
  locationId: number;
  /** The WIB date of now (`wibDate(now)`). */
  today: string;
  /** The lots of each product at the location, by product id, as read under lock. */
  lots: ReadonlyMap<number, readonly LotStock[]>;
  /** The request path of line `index`; `items[index]` when not given. */
  linePath?: (index: number) => string;
}

const itemPath = (index: number): string => `items[${index}]`;
const lotKey = (productId: number, lotNumber: string): string => `${productId}:${lotNumber}`;

/**
 * Allocates every line to lots, all or none, against shared lot levels, so two lines never take
 * the same units: lines pinned to a lot are served first (they can use nothing else), then the
 * others in line order, each taking sellable lots first expired first out. A lot's free units are
 * `good - reserved`, and only a sellable lot's count. The result lists each line's allocations, in
 * line order; a product without lots gets an empty list (its row is held as before).
 *
 * Refusals: a `lotNumber` on a product without lots, or one that breaks the lot number rule, is
 * VALIDATION_ERROR on the line's `lot_number` (every such line listed, before any stock is looked
 * at). Any line the sellable lots cannot cover is INSUFFICIENT_STOCK on its `quantity`, naming
 * what they can cover, every short line listed (a short line takes nothing, so later lines are
 * judged without it).
 *
 * @example
 * const r = allocateLots([{ productId: 7, quantity: dec(5), policy }], { locationId: 1, today: wibDate(now), lots });
 * if (r.ok) r.value[0] // [{ lotNumber: 'B1', expiryDate: '2026-04-01', quantity: 3 }, { lotNumber: 'B2', … quantity: 2 }]
 */
export function allocateLots(lines: readonly AllocationLine[], context: AllocationContext): Result<LotAllocation[][]> {
  const path = context.linePath ?? itemPath;
  const invalid: FieldIssue[] = [];
  lines.forEach((line, index) => {
    const lotNumber = line.lotNumber ?? null;
    if (lotNumber === null) return;
    const issue = line.policy.lotTracked ? lotNumberIssue(lotNumber) : 'must not be given: the product is not lot-tracked';
    if (issue !== undefined) invalid.push({ field: `${path(index)}.lot_number`, issue });
  });
  const firstInvalid = invalid[0];
  if (firstInvalid) {
    return fail(domainError('VALIDATION_ERROR', `${firstInvalid.field} ${firstInvalid.issue}`, { field: firstInvalid.field, issue: firstInvalid.issue, issues: invalid }));
  }

  const taken = new Map<string, Dec>();
  const free = (productId: number, lot: LotStock): Dec => lot.good.minus(lot.reserved).minus(taken.get(lotKey(productId, lot.lotNumber)) ?? ZERO);
  const results: LotAllocation[][] = lines.map(() => []);
  const short: { index: number; issue: string }[] = [];
  const numbered = lines.map((line, index) => ({ line, index }));
  const isPinned = ({ line }: { line: AllocationLine }) => (line.lotNumber ?? null) !== null;
  const order = [...numbered.filter(isPinned), ...numbered.filter((entry) => !isPinned(entry))];

  for (const { line, index } of order) {
    if (!line.policy.lotTracked) continue;
    const lots = context.lots.get(line.productId) ?? [];
    const sellable = (lot: LotStock) => isSellable(lot, context.today, line.policy.outboundExpired);
    const pinned = line.lotNumber ?? null;
    const candidates = pinned === null ? lots.filter(sellable).sort(compareFefo) : lots.filter((lot) => lot.lotNumber === pinned && sellable(lot));
    const allocations: LotAllocation[] = [];
    let needed = line.quantity;
    for (const lot of candidates) {
      if (!needed.greaterThan(ZERO)) break;
      const have = free(line.productId, lot);
      if (!have.greaterThan(ZERO)) continue;
      const quantity = have.lessThan(needed) ? have : needed;
      allocations.push({ lotNumber: lot.lotNumber, expiryDate: lot.expiryDate, quantity });
      needed = needed.minus(quantity);
    }
    if (needed.greaterThan(ZERO)) {
      const coverable = line.quantity.minus(needed);
      short.push({ index, issue: shortIssue(line, lots, coverable, context, (lot) => free(line.productId, lot)) });
      continue;
    }
    for (const allocation of allocations) {
      const key = lotKey(line.productId, allocation.lotNumber);
      taken.set(key, (taken.get(key) ?? ZERO).plus(allocation.quantity));
    }
    results[index] = allocations;
  }

  if (short.length > 0) {
    const issues = short.sort((a, b) => a.index - b.index).map(({ index, issue }) => ({ field: `${path(index)}.quantity`, issue }));
    const first = issues[0]!;
    return fail(domainError('INSUFFICIENT_STOCK', first.issue, { field: first.field, issue: first.issue, issues }));
  }
  return ok(results);
}

/** What a short line is told: what the sellable lots (or its pinned lot) can cover, and why not more. */
function shortIssue(line: AllocationLine, lots: readonly LotStock[], coverable: Dec, context: AllocationContext, free: (lot: LotStock) => Dec): string {
  const where = `of product ${line.productId} at location ${context.locationId}`;
  const needed = `${line.quantity.toFixed()} needed`;
  const pinned = line.lotNumber ?? null;
  if (pinned !== null) {
    const lot = lots.find((l) => l.lotNumber === pinned);
    if (lot && !isSellable(lot, context.today, line.policy.outboundExpired)) {
      const minimum = sellableMinimum(line.policy.outboundExpired);
      return `insufficient stock in lot ${pinned} ${where}: the lot is not sellable (expiry date ${lot.expiryDate}, ${lotDaysLeft(lot, context.today)} days left, at least ${minimum} required), 0 available, ${needed}`;
    }
    return `insufficient stock in lot ${pinned} ${where}: ${coverable.toFixed()} available, ${needed}`;
  }
  const shortDated = sum(lots.filter((lot) => !isSellable(lot, context.today, line.policy.outboundExpired)).map(free));
  const aside = shortDated.greaterThan(ZERO) ? ` (${shortDated.toFixed()} more in lots too close to expiry)` : '';
  return `insufficient sellable stock ${where}: ${coverable.toFixed()} available in sellable lots${aside}, ${needed}`;
}

/** What consuming a hold line does to one of its allocations. */
export interface LotConsumption {
  lotNumber: string;
  expiryDate: string | null;
  /** What the line held in this lot. */
  allocated: Dec;
  /** What leaves the lot's good and reserved units. */
  consumed: Dec;
  /** What leaves only the lot's reserved units, available again. */
  released: Dec;
}

/**
 * Consuming `quantity` of a hold line: it is taken from the line's allocations in their order
 * (the order they were allocated in, first expired first), and the rest of each is released.
 * Units stay consumable when their lot has turned unsellable since: the order was accepted while
 * they were sellable. More than the line holds is VALIDATION_ERROR on `field`. `quantity` 0
 * releases everything, as a release or an expiry does.
 *
 * @example
 * const r = consumeAllocations([{ lotNumber: 'B1', expiryDate: '2026-04-01', quantity: dec(3) }, { lotNumber: 'B2', expiryDate: null, quantity: dec(2) }], dec(4), 'items[0].quantity');
 * // B1: consumed 3, released 0; B2: consumed 1, released 1
 */
export function consumeAllocations(allocations: readonly LotAllocation[], quantity: Dec, field: string): Result<LotConsumption[]> {
  const held = sum(allocations.map((a) => a.quantity));
  if (quantity.isNegative() || quantity.greaterThan(held)) {
    const issue = quantity.isNegative() ? 'must not be negative' : `must be at most the held quantity, ${held.toFixed()}`;
    return fail(domainError('VALIDATION_ERROR', `${field} ${issue}`, { field, issue }));
  }
  let left = quantity;
  return ok(
    allocations.map((allocation) => {
      const consumed = left.lessThan(allocation.quantity) ? left : allocation.quantity;
      left = left.minus(consumed);
      return { lotNumber: allocation.lotNumber, expiryDate: allocation.expiryDate, allocated: allocation.quantity, consumed, released: allocation.quantity.minus(consumed) };
    }),
  );
}
