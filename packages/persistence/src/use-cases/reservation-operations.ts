// Order hold use cases (docs/holds.md): create, extend, release, consume, and the expiry sweep. Each
// is one transaction that locks the hold (and, for a stock effect, its stock rows in one sorted
// statement), asks the domain, and writes status, lines, stock, ledger and events together, so
// under any concurrency a hold ends exactly once and moves its stock exactly once. Every time a
// hold's state depends on is the database's clock (docs/holds.md#states-and-expiry).
import {
  type Actor,
  AppError,
  type ConsumeLine,
  type Dec,
  type DecimalInput,
  type DomainError,
  type LotAllocation,
  type LotBalance,
  type LotChange,
  type ReservationAction,
  type ReservationForDecision,
  type StockLevel,
  type StockLevels,
  type StockOutcome,
  ZERO,
  applyLotChanges,
  consumeAllocations,
  consumeHold,
  dec,
  domainError,
  effectiveStatus,
  expiryAfter,
  formatDocumentNumber,
  fromScaled,
  guardReservation,
  holdStock,
  releaseHold,
  toScaled,
  unwrap,
  withFields,
} from '@pits/domain';
import type { Selectable } from 'kysely';
import { claimDocumentSequence } from '../repositories/document-sequence-repository.js';
import {
  type DueCursor,
  type ReservationRecord,
  type ReservationRow,
  databaseNow,
  findReservation,
  insertReservation,
  insertReservationItems,
  listReservationItems,
  lockActiveReservationOf,
  lockDueReservation,
  lockDueReservations,
  lockReservation,
  markLinesWithLots,
  setConsumedQuantity,
  updateActiveReservation,
} from '../repositories/reservation-repository.js';
import {
  type StockCause,
  type StockWrite,
  type TenantStockKey,
  ledgerActor,
  lockStockLevels,
  lockStockRows,
  readStockLevels,
} from '../repositories/stock-repository.js';
import { writeStockChanges } from './stock-writes.js';
import { type EventInput, enqueueEvent } from '../repositories/event-outbox-repository.js';
import { type StoredAllocation, insertAllocations, listAllocations, productPolicies } from '../repositories/lot-repository.js';
import { type AllocatingLine, type LotBook, allocatedLotIds, commitLots, decideWithLots, openLotBook, refuseLotsOfUntracked, reserveAllocations } from './lot-effects.js';
import type { ReservationItemTable } from '../schema/index.js';
import { type DatabaseErrorKind, classifyDatabaseError } from '../database-errors.js';
import { isTransaction } from '../execution/scope.js';
import { CommittedRefusal, type Scope, type Tx, withTransaction } from '../transaction.js';
import { type ProductRef, requireLineProducts, requireLocationAndLineProducts } from './catalogue-checks.js';

export interface CreateReservationInput {
  tenantId: string;
  partnerId: number;
  actor: Actor;
  locationId: number;
  reference: string;
  /** Seconds from now (the database's clock). */
  expiresIn: number;
  /** `lotNumber` pins a line of a lot-tracked product to that lot (docs/lots.md#holds-and-transfers). */
  items: readonly (ProductRef & { quantity: DecimalInput; lotNumber?: string | null | undefined })[];
}

function notFound(number: string): AppError {
  return new AppError(domainError('NOT_FOUND', `reservation ${number} does not exist`, { field: 'id' }));
}

function referenceTaken(reference: string): AppError {
  const issue = `an active reservation already holds stock for reference ${JSON.stringify(reference)}`;
  return new AppError(domainError('VALIDATION_ERROR', issue, { field: 'reference', issue }));
}

function cause(row: Pick<ReservationRow, 'number'>, actor: string): StockCause {
  return { type: 'reservation', id: row.number, documentNumber: row.number, actor };
}

function decisionOf(row: ReservationRow, items: readonly Selectable<ReservationItemTable>[]): ReservationForDecision {
  return {
    status: row.status,
    locationId: row.location_id,
    expiresAt: row.expires_at,
    items: items.map((i) => ({ productId: i.product_id, quantity: fromScaled(i.quantity) })),
  };
}

type ReservationEventStatus = EventInput<'reservation.status_changed'>['data']['status'];

/** The reservation.status_changed event, in the transaction of the change. */
async function statusChanged(tx: Tx, row: Pick<ReservationRow, 'tenant_id' | 'number' | 'reference'>, previous: ReservationEventStatus | null, status: ReservationEventStatus, now: Date): Promise<void> {
  await enqueueEvent(
    tx,
    {
      tenantId: row.tenant_id,
      type: 'reservation.status_changed',
      resource: { type: 'reservation', id: row.number },
      data: { reservation_number: row.number, reference: row.reference, previous_status: previous, status },
    },
    now,
  );
}

/** What a release or an expiry does to stock: every held quantity becomes available again. */
function applyRelease(levels: StockLevels, decision: ReservationForDecision): StockOutcome {
  return unwrap(releaseHold(decision, levels));
}

/** A due hold that could not give its stock back (its row keeps less than it holds): left active. */
export interface SetAsideHold {
  tenantId: string;
  number: string;
  reason: string;
}

/** The stock keys of holds' lines, each with its tenant. */
function keysOf(rows: readonly ReservationRow[], lines: ReadonlyMap<number, readonly Selectable<ReservationItemTable>[]>): TenantStockKey[] {
  return rows.flatMap((r) => (lines.get(r.id) ?? []).map((i) => ({ tenantId: r.tenant_id, locationId: r.location_id, productId: i.product_id })));
}

/** The lots that lines of holds took, by line row id; nothing is read when no line took any. */
async function allocationsOf(tx: Tx, lines: ReadonlyMap<number, readonly Selectable<ReservationItemTable>[]>): Promise<Map<number, StoredAllocation[]>> {
  const ids = [...lines.values()].flat().flatMap((line) => (Number(line.has_lots) === 1 ? [line.id] : []));
  return ids.length === 0 ? new Map() : listAllocations(tx, 'reservation', ids);
}

/**
 * What ending a hold does to the lots its lines took (docs/lots.md#holds-and-transfers): every
 * allocated unit leaves `reserved`, and of each line `consumed[index]` (none for a release or an
 * expiry) also leaves `good`, taken from the allocations in their order.
 */
function lotsEnding(row: ReservationRow, lines: readonly Selectable<ReservationItemTable>[], allocations: ReadonlyMap<number, readonly StoredAllocation[]>, consumed?: readonly Dec[]): LotChange[] {
  return lines.flatMap((line, index) => {
    const taken = allocations.get(line.id) ?? [];
    if (taken.length === 0) return [];
    const field = `items[${index}].quantity`;
    return unwrap(consumeAllocations(taken, consumed?.[index] ?? ZERO, field)).flatMap((part): LotChange[] => {
      const at = { locationId: row.location_id, productId: line.product_id, lotNumber: part.lotNumber, expiryDate: part.expiryDate, field };
      const release: LotChange = withFields(at, { bucket: 'reserved' as const, delta: part.allocated.negated() });
      return part.consumed.isZero() ? [release] : [release, withFields(at, { bucket: 'good' as const, delta: part.consumed.negated() })];
    });
  });
}

/** The lots of ending holds, where any of their lines took lots: their changes, the lots' book and the products' policies. */
interface EndingLots {
  allocations: Map<number, StoredAllocation[]>;
  book: LotBook | undefined;
}

async function endingLots(tx: Tx, rows: readonly ReservationRow[], lines: ReadonlyMap<number, readonly Selectable<ReservationItemTable>[]>): Promise<EndingLots> {
  const allocations = await allocationsOf(tx, lines);
  if (allocations.size === 0) return { allocations, book: undefined };
  const keys = rows.flatMap((r) => (lines.get(r.id) ?? []).filter((line) => allocations.has(line.id)).map((line) => ({ locationId: r.location_id, productId: line.product_id })));
  return { allocations, book: await openLotBook(tx, keys) };
}

/**
 * Writes ending holds' lot changes, each tenant's apart, and returns each touched row's
 * short-dated units for the events.
 */
async function commitEndingLots(tx: Tx, book: LotBook | undefined, changes: readonly StockWrite[], now: Date): Promise<Map<string, Dec>> {
  const shortDated = new Map<string, Dec>();
  if (!book) return shortDated;
  const byTenant = new Map<string, LotChange[]>();
  for (const change of changes) if (change.lots?.length) byTenant.set(change.tenantId, [...(byTenant.get(change.tenantId) ?? []), ...change.lots]);
  const policies = await productPolicies(tx, [...byTenant.values()].flat().map((c) => c.productId));
  for (const [tenantId, lotChanges] of byTenant) {
    for (const [key, units] of await commitLots(tx, tenantId, book, lotChanges, policies, now)) shortDated.set(key, units);
  }
  return shortDated;
}

/**
 * What ending holds gives back, decided on stock rows this transaction has locked: each hold's
 * release on the levels the holds before it left (`levels` is updated), and on its lots the same. A
 * hold whose release the rows or its lots refuse (they keep less than it holds: drift
 * `stock.verify` reports) is set aside, and the others go on. The changes are for the caller to
 * write once (`writeStockChanges`, after `commitEndingLots`).
 */
function releaseEach(
  rows: readonly ReservationRow[],
  lines: ReadonlyMap<number, readonly Selectable<ReservationItemTable>[]>,
  levels: Map<string, StockLevel>,
  lots: EndingLots,
): { released: ReservationRow[]; changes: StockWrite[]; setAside: SetAsideHold[] } {
  const released: ReservationRow[] = [];
  const changes: StockWrite[] = [];
  const setAside: SetAsideHold[] = [];
  const lotLevels = new Map<string, LotBalance>(lots.book?.levels ?? []);
  for (const row of rows) {
    const rowLines = [...(lines.get(row.id) ?? [])];
    const outcome = releaseHold(decisionOf(row, rowLines), levels);
    const lotChanges = lotsEnding(row, rowLines, lots.allocations);
    const lotOutcome = applyLotChanges(lotLevels, lotChanges);
    const refusal: DomainError | undefined = !outcome.ok ? outcome.error : !lotOutcome.ok ? lotOutcome.error : undefined;
    if (refusal || !outcome.ok || !lotOutcome.ok) {
      setAside.push({ tenantId: row.tenant_id, number: row.number, reason: refusal?.message ?? 'refused' });
      continue;
    }
    for (const [key, level] of outcome.value.levels) levels.set(key, level);
    for (const [key, lot] of lotOutcome.value.lots) lotLevels.set(key, lot);
    released.push(row);
    changes.push({ tenantId: row.tenant_id, outcome: outcome.value, cause: cause(row, 'system:expiry'), lots: lotChanges });
  }
  return { released, changes, setAside };
}

/**
 * Writes locked, active holds as expired, with their events. An expired hold's `released_at` and
 * `updated_at` are its `expires_at`, the moment it ended, whenever this runs: it reads the same
 * before and after (docs/holds.md#states-and-expiry).
 */
async function markExpired(tx: Tx, rows: readonly ReservationRow[], now: Date): Promise<void> {
  for (const row of rows) {
    await updateActiveReservation(tx, row, { status: 'expired', released_at: row.expires_at, updated_at: row.expires_at });
    await statusChanged(tx, row, 'active', 'expired', now);
  }
}

/** Ends locked holds past their expiry in this transaction, stock and all; throws when one cannot give its stock back. */
async function expireHere(tx: Tx, rows: readonly ReservationRow[], now: Date): Promise<void> {
  const lines = await listReservationItems(tx, rows.map((r) => r.id));
  const levels = await lockStockRows(tx, keysOf(rows, lines), now);
  const lots = await endingLots(tx, rows, lines);
  const { changes, setAside } = releaseEach(rows, lines, levels, lots);
  if (setAside[0]) throw cannotExpire(setAside[0]);
  await markExpired(tx, rows, now);
  await writeStockChanges(tx, changes, now, await commitEndingLots(tx, lots.book, changes, now));
}

function cannotExpire(hold: SetAsideHold): Error {
  return new Error(`reservation ${hold.number} of tenant ${hold.tenantId} cannot give its stock back: ${hold.reason}`);
}

/**
 * The hold of every line on locked rows, or its refusal: a line of a product without lots against
 * its row's available units, a lot-tracked line against the sellable lots (docs/lots.md#holds-and-transfers).
 */
function holdLines(locationId: number, lines: readonly AllocatingLine[], levels: StockLevels, book: LotBook | undefined): { outcome: StockOutcome; allocations: LotAllocation[][] } {
  const { value, allocations } = decideWithLots(locationId, lines, holdStock(locationId, lines, levels), book);
  return { outcome: value, allocations };
}

/**
 * Holds stock for an order: every line against the location's available good stock, or nothing
 * (INSUFFICIENT_STOCK naming every short line). A reference the tenant already holds in an active
 * reservation is VALIDATION_ERROR on `reference`; one whose hold has expired by the clock is
 * expired first, in this transaction, so the order can be held again.
 */
export async function createReservation(scope: Scope, input: CreateReservationInput): Promise<ReservationRecord> {
  try {
    return await withTransaction(scope, async (tx) => {
      const at = await databaseNow(tx);
      const now = new Date(at);
      const { location, products } = await requireLocationAndLineProducts(tx, input.tenantId, input.locationId, 'location_id', input.items);
      const previous = await lockActiveReservationOf(tx, input.tenantId, input.reference);
      if (previous && effectiveStatus({ status: previous.status, expiresAt: previous.expires_at }, at) === 'active') throw referenceTaken(input.reference);
      const lines = input.items.map((item, index) => ({ productId: products[index]!.id, quantity: dec(item.quantity), lotNumber: item.lotNumber ?? null, policy: products[index]!.policy }));
      refuseLotsOfUntracked(lines);
      // Sold out by what is committed now: refused before anything is written or locked, so a sale's
      // refused orders do not queue on the hot row behind its held ones (nor spend a number). The
      // locked check below decides every other create.
      if (!previous) {
        const keys = lines.map((l) => ({ locationId: location.id, productId: l.productId }));
        const tracked = keys.filter((_, index) => lines[index]!.policy.lotTracked);
        decideWithLots(location.id, lines, holdStock(location.id, lines, await readStockLevels(tx, keys)), tracked.length === 0 ? undefined : await openLotBook(tx, tracked));
      }
      const previousLines = await listReservationItems(tx, previous ? [previous.id] : []);
      // The reference's earlier hold ran out: it ends here, so the order can be held again.
      if (previous) await markExpired(tx, [previous], now);
      // Everything that waits for no stock row comes before the rows are locked, so they stay
      // locked briefly (a hot SKU's row is what a sale queues on): the number (committed on its
      // own, so nothing of the tenant's is held across this transaction; docs/holds.md#reservations),
      // the hold's own rows, its event, and the record answered.
      const number = formatDocumentNumber('RSV', now, await claimDocumentSequence(tx, input.tenantId, 'RSV'));
      const row = {
        tenant_id: input.tenantId,
        partner_id: input.partnerId,
        number,
        reference: input.reference,
        location_id: location.id,
        status: 'active' as const,
        expires_at: expiryAfter(at, input.expiresIn),
        consumed_at: null,
        released_at: null,
        release_reason: null,
        created_by: JSON.stringify(input.actor),
        created_at: at,
        updated_at: at,
      };
      const id = await insertReservation(tx, row);
      await insertReservationItems(
        tx,
        lines.map((line, index) => ({
          reservation_id: id,
          line_no: index + 1,
          product_id: line.productId,
          sku: products[index]!.sku,
          product_name: products[index]!.name,
          quantity: toScaled(line.quantity),
          consumed_quantity: 0,
        })),
      );
      await statusChanged(tx, row, null, 'active', now);
      const created = (await findReservation(tx, input.tenantId, number))!;
      // Every stock row this transaction changes, the earlier hold's too, in one sorted lock; from
      // here to the commit, only the stock's own writes.
      const keys = [...keysOf(previous ? [previous] : [], previousLines), ...lines.map((l) => ({ tenantId: input.tenantId, locationId: location.id, productId: l.productId }))];
      const levels = await lockStockRows(tx, keys, now);
      // The lots of the rows: those the earlier hold took, and those the new lines may take.
      const earlierAllocations = await allocationsOf(tx, previousLines);
      const lotKeys = [
        ...[...previousLines.values()].flat().filter((line) => earlierAllocations.has(line.id)).map((line) => ({ locationId: previous!.location_id, productId: line.product_id })),
        ...lines.filter((l) => l.policy.lotTracked).map((l) => ({ locationId: location.id, productId: l.productId })),
      ];
      const book = lotKeys.length === 0 ? undefined : await openLotBook(tx, lotKeys);
      const earlier = releaseEach(previous ? [previous] : [], previousLines, levels, { allocations: earlierAllocations, book });
      if (earlier.setAside[0]) throw cannotExpire(earlier.setAside[0]);
      const shortDated = await commitEndingLots(tx, book, earlier.changes, now);
      const { outcome, allocations } = holdLines(location.id, lines, levels, book);
      const lotChanges = reserveAllocations(location.id, lines, allocations);
      if (book && lotChanges.length > 0) {
        const lineIds = await markLinesWithLots(tx, id, lines.flatMap((_, index) => (allocations[index]!.length > 0 ? [index + 1] : [])));
        await insertAllocations(
          tx,
          input.tenantId,
          'reservation',
          lines.flatMap((line, index) => (allocations[index]!.length === 0 ? [] : [{ itemId: lineIds.get(index + 1)!, allocations: allocatedLotIds(book, location.id, line.productId, allocations[index]!) }])),
        );
        const policies = new Map(lines.map((l) => [l.productId, l.policy]));
        for (const [key, units] of await commitLots(tx, input.tenantId, book, lotChanges, policies, now)) shortDated.set(key, units);
        created.items.forEach((item, index) => (item.allocations = allocations[index]!));
      }
      await writeStockChanges(tx, [...earlier.changes, { tenantId: input.tenantId, outcome, cause: cause(row, ledgerActor(input.actor)), lots: lotChanges }], now, shortDated);
      return created;
    });
  } catch (error) {
    // Two creates of one reference at once: the database's unique index lets one through.
    if (!(error instanceof AppError) && scope.dialect.errors.isUniqueViolation(error)) throw referenceTaken(input.reference);
    throw error;
  }
}

export interface ReservationActionInput {
  tenantId: string;
  number: string;
  actor: Actor;
}

interface LockedHold {
  tx: Tx;
  row: ReservationRow;
  lines: Selectable<ReservationItemTable>[];
  at: string;
  now: Date;
}

/**
 * Runs `act` on the hold locked, when it is active by the database's clock. A hold found past its
 * expiry is expired in this transaction and the call refused with a `CommittedRefusal`: the expiry
 * commits (the stock comes back exactly once), the caller sees INVALID_STATE at once, and a call
 * made again gives the same answer. Inside a wider transaction (a request's, for its
 * Idempotency-Key) the refusal reaches that transaction, which commits the same way.
 */
async function onActiveHold(scope: Scope, input: ReservationActionInput, action: ReservationAction, act: (hold: LockedHold) => Promise<void>): Promise<ReservationRecord> {
  return withTransaction(scope, async (tx) => {
    const row = await lockReservation(tx, input.tenantId, input.number);
    if (!row) throw notFound(input.number);
    const at = await databaseNow(tx);
    const refusal = guardReservation({ status: row.status, expiresAt: row.expires_at }, action, at);
    if (refusal) {
      if (row.status !== 'active') throw new AppError(refusal);
      await expireHere(tx, [row], new Date(at));
      throw new CommittedRefusal(refusal);
    }
    const lines = (await listReservationItems(tx, [row.id])).get(row.id) ?? [];
    await act({ tx, row, lines, at, now: new Date(at) });
    return (await findReservation(tx, input.tenantId, input.number))!;
  });
}

/** A new expiry, `expiresIn` seconds from now by the database's clock; no stock effect. */
export function extendReservation(scope: Scope, input: ReservationActionInput & { expiresIn: number }): Promise<ReservationRecord> {
  return onActiveHold(scope, input, 'extend', async ({ tx, row, at }) => {
    await updateActiveReservation(tx, row, { expires_at: expiryAfter(at, input.expiresIn), updated_at: at });
  });
}

/** The order was cancelled: every held quantity becomes available again. */
export function releaseReservation(scope: Scope, input: ReservationActionInput & { reason?: string | undefined }): Promise<ReservationRecord> {
  return onActiveHold(scope, input, 'release', async ({ tx, row, lines, at, now }) => {
    const decision = decisionOf(row, lines);
    const levels = await lockStockLevels(tx, row.tenant_id, decision.items.map((i) => ({ locationId: row.location_id, productId: i.productId })), now);
    const byHold = new Map([[row.id, lines]]);
    const lots = await endingLots(tx, [row], byHold);
    const released = { tenantId: row.tenant_id, outcome: applyRelease(levels, decision), cause: cause(row, ledgerActor(input.actor)), lots: lotsEnding(row, lines, lots.allocations) };
    await writeStockChanges(tx, [released], now, await commitEndingLots(tx, lots.book, [released], now));
    await updateActiveReservation(tx, row, { status: 'released', released_at: at, release_reason: input.reason ?? null, updated_at: at });
    await statusChanged(tx, row, 'active', 'released', now);
  });
}

/**
 * The order shipped: without `items` every line is consumed whole; with them, the named quantities
 * (products of this hold only, at most what each line holds) leave `good` and the rest is released.
 */
export function consumeReservation(
  scope: Scope,
  input: ReservationActionInput & { items?: readonly (ProductRef & { quantity: DecimalInput })[] | undefined },
): Promise<ReservationRecord> {
  return onActiveHold(scope, input, 'consume', async ({ tx, row, lines, at, now }) => {
    const decision = decisionOf(row, lines);
    let wanted: ConsumeLine[] | undefined;
    if (input.items) {
      const products = await requireLineProducts(tx, row.tenant_id, input.items);
      wanted = input.items.map((item, index) => ({ productId: products[index]!.id, quantity: dec(item.quantity) }));
    }
    const levels = await lockStockLevels(tx, row.tenant_id, decision.items.map((i) => ({ locationId: row.location_id, productId: i.productId })), now);
    const consumption = unwrap(consumeHold(decision, levels, wanted));
    const lots = await endingLots(tx, [row], new Map([[row.id, lines]]));
    const shipped = { tenantId: row.tenant_id, outcome: consumption.stock, cause: cause(row, ledgerActor(input.actor)), lots: lotsEnding(row, lines, lots.allocations, consumption.consumed) };
    await writeStockChanges(tx, [shipped], now, await commitEndingLots(tx, lots.book, [shipped], now));
    for (const [index, line] of lines.entries()) {
      const consumed = toScaled(consumption.consumed[index]!);
      if (consumed !== 0) await setConsumedQuantity(tx, row.id, line.line_no, consumed);
    }
    await updateActiveReservation(tx, row, { status: 'consumed', consumed_at: at, updated_at: at });
    await statusChanged(tx, row, 'active', 'consumed', now);
  });
}

/** Failures of a pass that one of its holds may have caused (a constraint it breaks, or a bug). */
const HOLD_FAULTS: ReadonlySet<DatabaseErrorKind> = new Set(['constraint', 'other']);

/** One pass of the expiry sweep, and where the next pass of the same run starts. */
export interface ExpiryPass {
  /** Due holds the pass found and locked (holds another transaction had locked are not counted). */
  found: number;
  /** Holds it expired. */
  expired: number;
  /** Holds that could not give their stock back: left active, for `stock.verify` and the operator. */
  setAside: SetAsideHold[];
  /** After the last hold this pass found; undefined when it found none. */
  next: DueCursor | undefined;
}

/**
 * One pass of the expiry sweep (docs/holds.md#states-and-expiry): up to `batchSize` active holds
 * past their expiry by the database's clock, after `after` (a run's previous pass), whatever
 * tenants own them, end as expired in one transaction, their stock rows locked in one sorted
 * statement and written once. Holds another transaction has locked are skipped (a later pass finds
 * them). A hold that cannot give its stock back is set aside and never stops the others; should the
 * pass's writes fail for a reason no hold was found to cause, each hold is tried in a transaction of
 * its own, so one bad hold costs only itself. Any number of processes may sweep at once.
 */
export async function expireDueReservations(scope: Scope, batchSize = 100, after?: DueCursor): Promise<ExpiryPass> {
  try {
    return await withTransaction(scope, async (tx) => {
      const at = await databaseNow(tx);
      const now = new Date(at);
      const due = await lockDueReservations(tx, at, batchSize, after);
      const last = due.at(-1);
      if (!last) return { found: 0, expired: 0, setAside: [], next: undefined };
      const lines = await listReservationItems(tx, due.map((r) => r.id));
      const levels = await lockStockRows(tx, keysOf(due, lines), now);
      const lots = await endingLots(tx, due, lines);
      const { released, changes, setAside } = releaseEach(due, lines, levels, lots);
      await markExpired(tx, released, now);
      await writeStockChanges(tx, changes, now, await commitEndingLots(tx, lots.book, changes, now));
      return { found: due.length, expired: released.length, setAside, next: { expiresAt: last.expires_at, id: last.id } };
    });
  } catch (error) {
    // The database away, slow or busy is no hold's fault: the next run tries the same batch again.
    if (error instanceof AppError || isTransaction(scope) || !HOLD_FAULTS.has(classifyDatabaseError(error))) throw error;
    return expireOneByOne(scope, batchSize, after, error);
  }
}

/** The pass again, one hold per transaction: a hold whose own transaction fails so is set aside. */
async function expireOneByOne(scope: Scope, batchSize: number, after: DueCursor | undefined, batchError: unknown): Promise<ExpiryPass> {
  const pass: ExpiryPass = { found: 0, expired: 0, setAside: [], next: after };
  const reason = batchError instanceof Error ? batchError.message : String(batchError);
  for (let i = 0; i < batchSize; i += 1) {
    let hold: ReservationRow | undefined;
    try {
      const ended = await withTransaction(scope, async (tx) => {
        const at = await databaseNow(tx);
        const row = await lockDueReservation(tx, at, pass.next);
        if (!row) return undefined;
        hold = row;
        await expireHere(tx, [row], new Date(at));
        return row;
      });
      if (!ended) break;
      pass.expired += 1;
    } catch (error) {
      if (!hold || !HOLD_FAULTS.has(classifyDatabaseError(error))) throw error;
      pass.setAside.push({ tenantId: hold.tenant_id, number: hold.number, reason: error instanceof Error ? error.message : reason });
    }
    pass.found += 1;
    pass.next = { expiresAt: hold!.expires_at, id: hold!.id };
  }
  return pass;
}

/** What one run of the sweep did. */
export interface ExpiryRun {
  expired: number;
  /** Passes it made (each one transaction, or one per hold after a failed batch). */
  passes: number;
  setAside: SetAsideHold[];
}

/**
 * One run of the expiry sweep: passes of up to `batchSize` holds, each starting after the last hold
 * the one before found, until a pass finds fewer than a batch (everything due when it looked is
 * ended, set aside, or in another sweeper's hands) or `stopped()` says so. However many tenants
 * and holds fall due together, one run ends them all; a set-aside hold is passed over, not retried,
 * until the next run.
 *
 * @example const run = await expireAllDue(database, 100);
 */
export async function expireAllDue(scope: Scope, batchSize = 100, stopped: () => boolean = () => false): Promise<ExpiryRun> {
  const run: ExpiryRun = { expired: 0, passes: 0, setAside: [] };
  let after: DueCursor | undefined;
  for (;;) {
    const pass = await expireDueReservations(scope, batchSize, after);
    run.passes += 1;
    run.expired += pass.expired;
    run.setAside.push(...pass.setAside);
    after = pass.next;
    if (pass.found < batchSize || stopped()) return run;
  }
}
