// The lot side of stock changes (docs/lots.md): which lot a document line names (created when new),
// and the changes a transaction makes to the lots of the lot-tracked rows it has locked, checked
// per lot and written with what events need (each row's short-dated units on the day). Products
// without lots never reach here: every function is called only with lot-tracked lines.
import {
  AppError,
  type Dec,
  type FieldIssue,
  type LotChange,
  type LotLineInput,
  type LotPolicy,
  type LotAllocation,
  type LotStock,
  type Result,
  type StockKey,
  allocateLots,
  applyLotChanges,
  lotStockKey,
  checkLotExpiryConflict,
  domainError,
  lotLineFields,
  resolveLineLot,
  rowLotFigures,
  stockKey,
  unwrap,
  withFields,
} from '@pits/domain';
import {
  type LotLevelRecord,
  type LotRecord,
  createLots,
  databaseToday,
  findLots,
  lotKey,
  lotsByRow,
  readLotLevels,
  writeLotLevels,
} from '../repositories/lot-repository.js';
import type { Tx } from '../transaction.js';

/** A document line's product and lot, as a request gives them. */
export interface LotLine {
  productId: number;
  policy: LotPolicy;
  lot: LotLineInput;
  /** The line's request path, `items[2]`. */
  path: string;
}

function invalid(issues: FieldIssue[]): AppError {
  const first = issues[0]!;
  return new AppError(domainError('VALIDATION_ERROR', `${first.field} ${first.issue}`, { field: first.field, issue: first.issue, issues }));
}

/**
 * The lot of each line, in line order (null for a product without lots), creating the lots that
 * are new. Every line's issue is listed in one VALIDATION_ERROR: a lot number missing for a
 * lot-tracked product or given for another, a bad number or date, an expiry date a new lot needs,
 * another expiry date than the lot has.
 */
export async function resolveLots(tx: Tx, tenantId: string, lines: readonly LotLine[], now: Date): Promise<(LotRecord | null)[]> {
  const named = lines.flatMap((l) => (l.policy.lotTracked && l.lot.lotNumber ? [{ productId: l.productId, lotNumber: l.lot.lotNumber }] : []));
  const existing = named.length === 0 ? new Map<string, LotRecord>() : await findLots(tx, tenantId, named);
  const issues: FieldIssue[] = [];
  const resolved = lines.map((line) => {
    const known = line.lot.lotNumber ? existing.get(lotKey(line.productId, line.lot.lotNumber)) : undefined;
    const result = resolveLineLot(line.lot, line.policy, known, lotLineFields(line.path));
    if (!result.ok) {
      issues.push(...(result.error.issues ?? [result.error.details]));
      return null;
    }
    return result.value;
  });
  if (issues.length > 0) throw invalid(issues);
  const fresh = resolved.flatMap((r, index) =>
    r?.isNew ? [withFields({ productId: lines[index]!.productId, ...r.lot }, { outboundExpired: lines[index]!.policy.outboundExpired })] : [],
  );
  const created = await createLots(tx, tenantId, fresh, now);
  return resolved.map((r, index) => {
    if (r === null) return null;
    const line = lines[index]!;
    const lot = existing.get(lotKey(line.productId, r.lot.lotNumber)) ?? created.get(lotKey(line.productId, r.lot.lotNumber))!;
    // Another transaction created the lot a moment ago, with other dates.
    const conflict = r.isNew ? checkLotExpiryConflict(lot, r.lot.expiryDate, lotLineFields(line.path).expiryDate) : null;
    if (conflict) throw new AppError(conflict);
    return lot;
  });
}

/** The lots of locked rows as read in this transaction, and today's date. */
export interface LotBook {
  levels: Map<string, LotLevelRecord>;
  today: string;
}

/** Reads the lots of rows this transaction has locked, and today (WIB, the database's clock). */
export async function openLotBook(tx: Tx, keys: readonly StockKey[]): Promise<LotBook> {
  const [levels, today] = [await readLotLevels(tx, keys), await databaseToday(tx)];
  return { levels, today };
}

/** The lots at `locationId`, by product, as allocation reads them. */
export function lotsAt(book: LotBook, locationId: number): Map<number, LotStock[]> {
  const byProduct = new Map<number, LotStock[]>();
  for (const level of book.levels.values()) {
    if (level.locationId === locationId) byProduct.set(level.productId, [...(byProduct.get(level.productId) ?? []), level]);
  }
  return byProduct;
}

/**
 * Applies the lot changes (all or none: INSUFFICIENT_STOCK naming the lot) to the book's lots and
 * writes them; returns each touched row's short-dated units after the change, for its event.
 * `lots` gives the ids of lots the book does not hold yet (new at a location).
 */
export async function commitLots(
  tx: Tx,
  tenantId: string,
  book: LotBook,
  changes: readonly LotChange[],
  policies: ReadonlyMap<number, LotPolicy>,
  now: Date,
  lots: Iterable<LotRecord> = [],
): Promise<Map<string, Dec>> {
  if (changes.length === 0) return new Map();
  const outcome = unwrap(applyLotChanges(book.levels, changes));
  const ids = new Map<string, number>();
  for (const level of book.levels.values()) ids.set(lotKey(level.productId, level.lotNumber), level.lotId);
  for (const lot of lots) ids.set(lotKey(lot.productId, lot.lotNumber), lot.id);
  await writeLotLevels(tx, tenantId, outcome, ids, now);
  for (const [key, lot] of outcome.lots) {
    const before = book.levels.get(key);
    book.levels.set(key, withFields(lot, { lotId: ids.get(lotKey(lot.productId, lot.lotNumber))!, productionDate: before?.productionDate ?? null }));
  }
  const touched = new Set(changes.map((c) => stockKey(c)));
  const shortDated = new Map<string, Dec>();
  for (const [key, rowLots] of lotsByRow(book.levels.values())) {
    if (!touched.has(key)) continue;
    const policy = policies.get(rowLots[0]!.productId);
    if (policy) shortDated.set(key, rowLotFigures(rowLots, book.today, policy.outboundExpired).shortDated);
  }
  return shortDated;
}

/** A hold or transfer line as allocation sees it: its product, quantity, pinned lot and the product's lot settings. */
export interface AllocatingLine {
  productId: number;
  quantity: Dec;
  lotNumber: string | null;
  policy: LotPolicy;
}

/** A lot number on a line of a product without lots is VALIDATION_ERROR on it, before anything is read. */
export function refuseLotsOfUntracked(lines: readonly Pick<AllocatingLine, 'lotNumber' | 'policy'>[]): void {
  const issues: FieldIssue[] = lines.flatMap((line, index) =>
    line.lotNumber !== null && !line.policy.lotTracked ? [{ field: `items[${index}].lot_number`, issue: 'must not be given: the product is not lot-tracked' }] : [],
  );
  if (issues.length > 0) throw invalid(issues);
}

/**
 * A hold's or a transfer's decision on locked rows (`rows`, the rule for products without lots)
 * with the lots of its lot-tracked lines allocated first expired first out, or pinned
 * (docs/lots.md#holds-and-transfers). A refusal names every short line, each with what its own rule
 * can cover: the row's available units, or the sellable lots'.
 */
export function decideWithLots<T>(locationId: number, lines: readonly AllocatingLine[], rows: Result<T>, book: LotBook | undefined): { value: T; allocations: LotAllocation[][] } {
  const lots = book ? allocateLots(lines, { locationId, today: book.today, lots: lotsAt(book, locationId) }) : { ok: true as const, value: lines.map((): LotAllocation[] => []) };
  if (!lots.ok && lots.error.kind !== 'INSUFFICIENT_STOCK') throw new AppError(lots.error);
  if (rows.ok && lots.ok) return { value: rows.value, allocations: lots.value };
  if (!rows.ok && rows.error.kind !== 'INSUFFICIENT_STOCK') throw new AppError(rows.error);
  const issues = new Map<string, FieldIssue>();
  const tracked = new Set(lines.flatMap((line, index) => (line.policy.lotTracked ? [`items[${index}].quantity`] : [])));
  for (const issue of rows.ok ? [] : (rows.error.issues ?? [rows.error.details])) if (!tracked.has(issue.field)) issues.set(issue.field, issue);
  for (const issue of lots.ok ? [] : (lots.error.issues ?? [lots.error.details])) issues.set(issue.field, issue);
  const ordered = lines.flatMap((_, index) => issues.get(`items[${index}].quantity`) ?? []);
  const first = ordered[0];
  // A row short while its lots are not cannot be (the row is their sum): drift, refused as the row says.
  if (!first) throw new AppError(rows.ok ? domainError('INSUFFICIENT_STOCK', 'insufficient stock') : rows.error);
  throw new AppError(domainError('INSUFFICIENT_STOCK', first.issue, { field: first.field, issue: first.issue, issues: ordered }));
}

/** Each allocation of lines at a location as the lot changes that reserve it. */
export function reserveAllocations(locationId: number, lines: readonly { productId: number }[], allocations: readonly (readonly LotAllocation[])[]): LotChange[] {
  return lines.flatMap((line, index) =>
    allocations[index]!.map((a): LotChange => ({ locationId, productId: line.productId, lotNumber: a.lotNumber, expiryDate: a.expiryDate, bucket: 'reserved', delta: a.quantity, field: `items[${index}].quantity` })),
  );
}

/** The id of each allocation's lot, from the book the allocation read. */
export function allocatedLotIds(book: LotBook, locationId: number, productId: number, allocations: readonly LotAllocation[]): { lotId: number; quantity: Dec }[] {
  return allocations.map((a) => ({ lotId: book.levels.get(lotStockKey({ locationId, productId, lotNumber: a.lotNumber }))!.lotId, quantity: a.quantity }));
}
