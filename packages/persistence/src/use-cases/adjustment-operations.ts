// Adjustment use cases: create, approve, reject, and a stock count (written as an approved adjustment). Each runs in one transaction; approval locks the
// adjustment and its stock rows, asks the domain, and writes the state change, the stock and the
// ledger together.
import {
  type Actor,
  type AdjustmentType,
  AppError,
  type Dec,
  type DecimalInput,
  type StockLevel,
  type StockSource,
  STOCK_COUNT_REASON,
  type LotChange,
  type StockKey,
  ZERO,
  lotStockKey,
  type LotLineInput,
  type StockLevels,
  applyStockChanges,
  decideStockCount,
  stockKey,
  adjustmentStockChanges,
  adjustmentTotals,
  approveAdjustment as decideApproval,
  dec,
  domainError,
  formatDocumentNumber,
  rejectAdjustment as decideRejection,
  requirePending,
  toPlainString,
  toScaled,
  unwrap,
  withFields,
} from '@pits/domain';
import {
  type AdjustmentLocation,
  type AdjustmentRecord,
  type AdjustmentWithItems,
  type NewAdjustment,
  type NewAdjustmentItem,
  type NewAdjustmentLine,
  insertAdjustmentWithItems,
  lockAdjustment,
  lockAdjustmentWithItems,
  recordAdjustmentDecision,
} from '../repositories/adjustment-repository.js';
import { nextDocumentSequence } from '../repositories/document-sequence-repository.js';
import { ledgerActor, lockStockLevels } from '../repositories/stock-repository.js';
import { writeStockChanges } from './stock-writes.js';
import { type LotRecord, productPolicies } from '../repositories/lot-repository.js';
import { type LotBook, commitLots, openLotBook, resolveLots } from './lot-effects.js';
import { type EventInput, enqueueEvent } from '../repositories/event-outbox-repository.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { type ProductRef, requireLocationAndLineProducts } from './catalogue-checks.js';

export interface CreateAdjustmentInput {
  tenantId: string;
  partnerId: number;
  actor: Actor;
  locationId: number;
  type: AdjustmentType;
  stockSource: StockSource;
  reason: string;
  /** Each line names its product by `productId` or by `sku`, and for a lot-tracked product its lot. */
  items: readonly (ProductRef & LotLineInput & { quantity: DecimalInput; unitCost: DecimalInput; notes?: string | undefined })[];
}

/** What a new adjustment row is made of; numbers in their column form (a plain decimal string). */
export interface NewAdjustmentFields {
  tenantId: string;
  partnerId: number;
  actor: Actor;
  number: string;
  locationId: number;
  type: AdjustmentType;
  stockSource: StockSource;
  reason: string;
  /** `toPlainString` of the total. */
  totalAmount: string;
  itemCount: number;
  /** Null for a pending adjustment; a stock count is approved at once. */
  approval: { at: string; by: Actor } | null;
  at: string;
}

/**
 * The adjustment row a create (pending, `approval` null) or a stock count (approved at once)
 * writes. The benchmarks' bare routes build their rows with it too (bench/bench-statements.ts).
 *
 * @example insertAdjustmentWithItems(tx, newAdjustmentRow({ ...input, number, locationId, totalAmount: '12.5', itemCount: 1, approval: null, at }), location, lines)
 */
export function newAdjustmentRow(a: NewAdjustmentFields): Omit<NewAdjustment, 'id'> {
  return {
    tenant_id: a.tenantId,
    partner_id: a.partnerId,
    number: a.number,
    location_id: a.locationId,
    type: a.type,
    stock_source: a.stockSource,
    reason: a.reason,
    status: a.approval === null ? 'pending' : 'approved',
    total_amount: a.totalAmount,
    item_count: a.itemCount,
    created_by: JSON.stringify(a.actor),
    approved_at: a.approval?.at ?? null,
    approved_by: a.approval === null ? null : JSON.stringify(a.approval.by),
    rejected_at: null,
    rejected_by: null,
    rejection_reason: null,
    created_at: a.at,
    updated_at: a.at,
  };
}

/** What one line of a new adjustment is made of; numbers in their column form. */
export interface NewAdjustmentLineFields {
  productId: number;
  productName: string;
  sku: string;
  type: AdjustmentType;
  /** `toScaled` of the quantity. */
  quantity: number;
  /** `toPlainString` of the unit cost and of the line's total. */
  unitCost: string;
  totalCost: string;
  notes: string;
  /** The lot the line names (lot-tracked products only). */
  lotId?: number | null | undefined;
}

/**
 * The row of line `index` (0-based) of a new adjustment, before the adjustment has its id.
 *
 * @example newAdjustmentLineRow(0, { productId, productName, sku, type: 'increase', quantity: 10_000, unitCost: '5', totalCost: '5', notes: '' })
 */
export function newAdjustmentLineRow(index: number, line: NewAdjustmentLineFields): NewAdjustmentLine {
  return {
    line_no: index + 1,
    product_id: line.productId,
    product_name: line.productName,
    sku: line.sku,
    type: line.type,
    quantity: line.quantity,
    unit_cost: line.unitCost,
    total_cost: line.totalCost,
    notes: line.notes,
    lot_id: line.lotId ?? null,
  };
}

/** The row of line `index` (0-based) of adjustment `adjustmentId`. */
export function newAdjustmentItemRow(adjustmentId: number, index: number, line: NewAdjustmentLineFields): NewAdjustmentItem {
  return { adjustment_id: adjustmentId, ...newAdjustmentLineRow(index, line) };
}

/** Inserts the adjustment of `a` at `location` with its lines. */
function insertNewAdjustment(
  tx: Tx,
  a: Omit<NewAdjustmentFields, 'locationId' | 'totalAmount'> & { location: AdjustmentLocation; totalAmount: Dec },
  lines: readonly NewAdjustmentLine[],
): Promise<AdjustmentWithItems> {
  const { id, code, name, address } = a.location;
  return insertAdjustmentWithItems(tx, newAdjustmentRow(withFields(a, { locationId: id, totalAmount: toPlainString(a.totalAmount) })), { id, code, name, address }, lines);
}

/** Creates a pending adjustment with its next ADJ number. Returns it in detail form. */
export async function createAdjustment(scope: Scope, input: CreateAdjustmentInput, now: Date): Promise<AdjustmentWithItems> {
  const lines = input.items.map((item) => withFields(item, { quantity: dec(item.quantity), unitCost: dec(item.unitCost) }));
  const totals = adjustmentTotals(lines);
  const at = now.toISOString();
  return withTransaction(scope, async (tx) => {
    const { location, products } = await requireLocationAndLineProducts(tx, input.tenantId, input.locationId, 'location_id', lines);
    const lots = await resolveLots(tx, input.tenantId, lines.map((line, index) => ({ productId: products[index]!.id, policy: products[index]!.policy, lot: line, path: `items[${index}]` })), now);
    const number = formatDocumentNumber('ADJ', now, await nextDocumentSequence(tx, input.tenantId, 'ADJ'));
    return insertNewAdjustment(
      tx,
      withFields(input, { number, location, totalAmount: totals.totalAmount, itemCount: totals.itemCount, approval: null, at }),
      // The inserted lines come back from the insert itself (no second read).
      lines.map((line, index) =>
        newAdjustmentLineRow(index, {
          productId: products[index]!.id,
          productName: products[index]!.name,
          sku: products[index]!.sku,
          type: input.type,
          quantity: toScaled(line.quantity),
          unitCost: toPlainString(line.unitCost),
          totalCost: toPlainString(totals.lineTotals[index]!),
          notes: line.notes ?? '',
          lotId: lots[index]?.id ?? null,
        }),
      ),
    );
  });
}

function notFound(number: string): AppError {
  return new AppError(domainError('NOT_FOUND', `adjustment ${number} does not exist`, { field: 'id' }));
}

async function lockOrThrow(tx: Tx, tenantId: string, number: string): Promise<AdjustmentRecord> {
  const record = await lockAdjustment(tx, tenantId, number);
  if (!record) throw notFound(number);
  return record;
}

type AdjustmentEventStatus = EventInput<'adjustment.status_changed'>['data']['status'];

/** The adjustment.status_changed event, in the transaction of the change. */
async function statusChanged(tx: Tx, tenantId: string, number: string, previous: AdjustmentEventStatus, status: AdjustmentEventStatus, now: Date): Promise<void> {
  await enqueueEvent(tx, { tenantId, type: 'adjustment.status_changed', resource: { type: 'adjustment', id: number }, data: { adjustment_number: number, previous_status: previous, status } }, now);
}

/** Applies and writes lot changes on rows this transaction has locked; the rows' short-dated units after. */
async function writeLots(tx: Tx, tenantId: string, changes: readonly LotChange[], lots: readonly LotRecord[], now: Date): Promise<Map<string, Dec>> {
  if (changes.length === 0) return new Map();
  const book = await openLotBook(tx, changes);
  return commitLots(tx, tenantId, book, changes, await productPolicies(tx, changes.map((c) => c.productId)), now, lots);
}

export interface AdjustmentActionInput {
  tenantId: string;
  number: string;
  actor: Actor;
}

/** The decision function approval uses; replaceable in tests to simulate a faulty decision. */
export type ApprovalDecision = typeof decideApproval;

/**
 * Approves a pending adjustment: applies its stock changes and ledger rows and sets it approved, in
 * one transaction. Refusals (INVALID_STATE, INSUFFICIENT_STOCK, NOT_FOUND) change nothing.
 */
export async function approveAdjustment(
  scope: Scope,
  input: AdjustmentActionInput,
  now: Date,
  decide: ApprovalDecision = decideApproval,
): Promise<AdjustmentRecord> {
  return withTransaction(scope, async (tx) => {
    // Locked and read with its lines in one statement.
    const locked = await lockAdjustmentWithItems(tx, input.tenantId, input.number);
    if (!locked) throw notFound(input.number);
    const { items, ...record } = locked;
    // Refused before any stock row is touched.
    unwrap(requirePending(record.status, 'approved'));
    const adjustment = {
      status: record.status,
      type: record.type,
      stockSource: record.stockSource,
      locationId: record.location.id,
      items: items.map((i) => ({ productId: i.productId, quantity: i.quantity })),
    };
    const changes = adjustmentStockChanges(adjustment);
    const levels = await lockStockLevels(tx, input.tenantId, changes, now);
    const approval = unwrap(decide(adjustment, levels, now, input.actor));
    // Each line of a lot-tracked product moves its own lot the same way (docs/lots.md#lines-name-their-lot).
    const lotChanges = items.flatMap((item, index): LotChange[] =>
      item.lotNumber === null ? [] : [withFields(changes[index]!, { lotNumber: item.lotNumber, expiryDate: item.expiryDate })],
    );
    const shortDated = await writeLots(tx, input.tenantId, lotChanges, items.flatMap((i) => (i.lotId === null ? [] : [{ id: i.lotId, productId: i.productId, lotNumber: i.lotNumber!, expiryDate: i.expiryDate, productionDate: null }])), now);
    await writeStockChanges(tx, [{ tenantId: input.tenantId, outcome: approval.stock, cause: { type: 'adjustment', id: record.number, documentNumber: record.number, actor: ledgerActor(input.actor) }, lots: lotChanges }], now, shortDated);
    const decided = await recordAdjustmentDecision(tx, record, {
      status: 'approved',
      approvedAt: approval.next.approvedAt.toISOString(),
      approvedBy: approval.next.approvedBy,
      updatedAt: now.toISOString(),
    });
    await statusChanged(tx, input.tenantId, record.number, record.status, decided.status, now);
    return decided;
  });
}

/** Rejects a pending adjustment with a reason; no stock effect. */
export async function rejectAdjustment(
  scope: Scope,
  input: AdjustmentActionInput & { reason: string },
  now: Date,
): Promise<AdjustmentRecord> {
  return withTransaction(scope, async (tx) => {
    const record = await lockOrThrow(tx, input.tenantId, input.number);
    const rejection = unwrap(decideRejection(record, input.reason, now, input.actor));
    const decided = await recordAdjustmentDecision(tx, record, {
      status: 'rejected',
      rejectedAt: rejection.next.rejectedAt.toISOString(),
      rejectedBy: rejection.next.rejectedBy,
      rejectionReason: rejection.next.rejectionReason,
      updatedAt: now.toISOString(),
    });
    await statusChanged(tx, input.tenantId, record.number, record.status, decided.status, now);
    return decided;
  });
}

export interface StockCountInput {
  tenantId: string;
  partnerId: number;
  actor: Actor;
  locationId: number;
  stockSource: StockSource;
  /** Each line names its product by `productId` or by `sku` (and a lot-tracked one its lot); `expected` null skips its check. */
  items: readonly (ProductRef & LotLineInput & { counted: DecimalInput; expected: DecimalInput | null })[];
}

/** The levels a count compares with: for a line naming a lot, that lot's units at the location. */
function countedLevels(levels: StockLevels, book: LotBook, keys: readonly StockKey[], lots: readonly (LotRecord | null)[]): StockLevels {
  const view = new Map(levels);
  keys.forEach((key, index) => {
    const lot = lots[index];
    if (!lot) return;
    const units = book.levels.get(lotStockKey(withFields(key, { lotNumber: lot.lotNumber })));
    view.set(stockKey(key), { good: units?.good ?? ZERO, damaged: units?.damaged ?? ZERO, reserved: units?.reserved ?? ZERO, reservedForOrders: ZERO });
  });
  return view;
}

export interface StockCountResult {
  adjustment: AdjustmentWithItems;
  /** The level of each line's product at the location after the count, by `stockKey`. */
  levels: Map<string, StockLevel>;
}

/**
 * Records a physical count, compare-and-set: in one transaction it locks the stock rows of the
 * lines, compares each line's `expected` with its bucket (STALE_QUANTITY naming every stale line,
 * nothing written), and writes the differences as one approved adjustment (reason `stock count`,
 * each line with its own type) with its ledger rows and the adjustment.status_changed event.
 * The compare happens after the lock, so two counts made from the same read cannot both pass.
 *
 * @example
 * const { adjustment } = await recordStockCount(database, { ...who, locationId, stockSource: 'good', items: [{ sku: 'KOPI-250', counted: 8, expected: 10 }] }, new Date());
 */
export async function recordStockCount(scope: Scope, input: StockCountInput, now: Date): Promise<StockCountResult> {
  const at = now.toISOString();
  return withTransaction(scope, async (tx) => {
    const { location, products } = await requireLocationAndLineProducts(tx, input.tenantId, input.locationId, 'location_id', input.items);
    const lots = await resolveLots(tx, input.tenantId, input.items.map((item, index) => ({ productId: products[index]!.id, policy: products[index]!.policy, lot: item, path: `items[${index}]` })), now);
    const keys = products.map((p) => ({ locationId: location.id, productId: p.id }));
    const levels = await lockStockLevels(tx, input.tenantId, keys, now);
    // A line of a lot-tracked product counts its lot: compared and set against the lot's units.
    const book = lots.some((lot) => lot !== null) ? await openLotBook(tx, keys.filter((_, index) => lots[index] !== null)) : undefined;
    const counted: StockLevels = !book ? levels : countedLevels(levels, book, keys, lots);
    const count = {
      locationId: location.id,
      stockSource: input.stockSource,
      lines: input.items.map((item, index) => ({
        productId: products[index]!.id,
        counted: dec(item.counted),
        expected: item.expected === null ? null : dec(item.expected),
        unitCost: dec(products[index]!.costPrice),
      })),
    };
    const decided = unwrap(decideStockCount(count, counted, now, input.actor));
    const changes = decided.differences.map((d) => ({ locationId: location.id, productId: d.productId, bucket: input.stockSource, delta: d.type === 'increase' ? d.quantity : d.quantity.negated(), field: `items[${d.line}].counted` }));
    const stock = book ? unwrap(applyStockChanges(levels, changes)) : decided.stock;
    const lotChanges = decided.differences.flatMap((d, index): LotChange[] => {
      const lot = lots[d.line];
      return lot ? [withFields(changes[index]!, { lotNumber: lot.lotNumber, expiryDate: lot.expiryDate })] : [];
    });
    const shortDated = book ? await commitLots(tx, input.tenantId, book, lotChanges, new Map(products.map((p) => [p.id, p.policy])), now, lots.flatMap((l) => (l ? [l] : []))) : new Map<string, Dec>();
    const number = formatDocumentNumber('ADJ', now, await nextDocumentSequence(tx, input.tenantId, 'ADJ'));
    const adjustment = await insertNewAdjustment(
      tx,
      withFields(input, {
        number,
        location,
        type: decided.type,
        reason: STOCK_COUNT_REASON,
        totalAmount: decided.totalAmount,
        itemCount: decided.differences.length,
        approval: { at: decided.next.approvedAt.toISOString(), by: decided.next.approvedBy },
        at,
      }),
      decided.differences.map((line, index) =>
        newAdjustmentLineRow(index, {
          productId: line.productId,
          productName: products[line.line]!.name,
          sku: products[line.line]!.sku,
          type: line.type,
          quantity: toScaled(line.quantity),
          unitCost: toPlainString(line.unitCost),
          totalCost: toPlainString(line.totalCost),
          notes: '',
          lotId: lots[line.line]?.id ?? null,
        }),
      ),
    );
    await writeStockChanges(tx, [{ tenantId: input.tenantId, outcome: stock, cause: { type: 'adjustment', id: number, documentNumber: number, actor: ledgerActor(input.actor) }, lots: lotChanges }], now, shortDated);
    // The same event an approval sends: partners that follow approvals see counts too.
    await statusChanged(tx, input.tenantId, number, 'pending', 'approved', now);
    const after = new Map<string, StockLevel>(levels);
    for (const [key, level] of stock.levels) after.set(key, level);
    return { adjustment, levels: new Map(keys.map((k) => [stockKey(k), after.get(stockKey(k))!])) };
  });
}
