// Order hold use cases (docs/holds.md): create, extend, release, consume, and the expiry sweep. Each
// is one transaction that locks the hold (and, for a stock effect, its stock rows in one sorted
// statement), asks the domain, and writes status, lines, stock, ledger and events together, so
// under any concurrency a hold ends exactly once and moves its stock exactly once. Every time a
// hold's state depends on is the database's clock (docs/holds.md#states-and-expiry).
import {
  type Actor,
  AppError,
  CommittedRefusal,
  type ConsumeLine,
  type DecimalInput,
  type ReservationAction,
  type ReservationForDecision,
  type StockLevels,
  type StockOutcome,
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
} from '@pits/domain';
import type { Selectable } from 'kysely';
import { nextDocumentSequence } from '../repositories/document-sequence-repository.js';
import {
  type ReservationRecord,
  type ReservationRow,
  databaseNow,
  findReservation,
  insertReservation,
  insertReservationItems,
  listReservationItems,
  lockActiveReservationOf,
  lockDueReservations,
  lockReservation,
  setConsumedQuantity,
  updateActiveReservation,
} from '../repositories/reservation-repository.js';
import { type StockCause, ledgerActor, lockStockLevels, writeStockOutcome } from '../repositories/stock-repository.js';
import { enqueueEvent } from '../repositories/webhook-repository.js';
import type { ReservationItemTable } from '../schema/index.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { type ProductRef, requireLineProducts, requireTenantLocation } from './catalogue-checks.js';

export interface CreateReservationInput {
  tenantId: string;
  partnerId: number;
  actor: Actor;
  locationId: number;
  reference: string;
  /** Seconds from now (the database's clock). */
  expiresIn: number;
  items: readonly (ProductRef & { quantity: DecimalInput })[];
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

/** The reservation.status_changed event, in the transaction of the change. */
async function statusChanged(tx: Tx, row: Pick<ReservationRow, 'tenant_id' | 'number' | 'reference'>, previous: string | null, status: string, now: Date): Promise<void> {
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

/**
 * Ends locked, active holds of one tenant whose time has passed, in this transaction: the stock rows of all of
 * them are locked in one sorted statement first (two sweepers never wait on each other in opposite
 * orders), then each hold gives back what it held, with its ledger rows and events.
 */
async function expireLocked(tx: Tx, tenantId: string, rows: readonly ReservationRow[], at: string): Promise<void> {
  if (rows.length === 0) return;
  const now = new Date(at);
  const lines = await listReservationItems(tx, rows.map((r) => r.id));
  const keys = rows.flatMap((r) => (lines.get(r.id) ?? []).map((i) => ({ locationId: r.location_id, productId: i.product_id })));
  const levels = new Map(await lockStockLevels(tx, tenantId, keys, now));
  for (const row of rows) {
    const outcome = applyRelease(levels, decisionOf(row, lines.get(row.id) ?? []));
    await writeStockOutcome(tx, row.tenant_id, outcome, cause(row, 'system:expiry'), now);
    for (const [key, level] of outcome.levels) levels.set(key, level);
    await updateActiveReservation(tx, row, { status: 'expired', released_at: at, updated_at: at });
    await statusChanged(tx, row, 'active', 'expired', now);
  }
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
      const location = await requireTenantLocation(tx, input.tenantId, input.locationId, 'location_id');
      const products = await requireLineProducts(tx, input.tenantId, input.items);
      const previous = await lockActiveReservationOf(tx, input.tenantId, input.reference);
      if (previous) {
        if (effectiveStatus({ status: previous.status, expiresAt: previous.expires_at }, at) === 'active') throw referenceTaken(input.reference);
        await expireLocked(tx, input.tenantId, [previous], at);
      }
      const lines = input.items.map((item, index) => ({ productId: products[index]!.id, quantity: dec(item.quantity) }));
      const levels = await lockStockLevels(tx, input.tenantId, lines.map((l) => ({ locationId: location.id, productId: l.productId })), now);
      const outcome = unwrap(holdStock(location.id, lines, levels));
      const number = formatDocumentNumber('RSV', now, await nextDocumentSequence(tx, input.tenantId, 'RSV'));
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
      await writeStockOutcome(tx, input.tenantId, outcome, cause(row, ledgerActor(input.actor)), now);
      await statusChanged(tx, row, null, 'active', now);
      return (await findReservation(tx, input.tenantId, number))!;
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
      await expireLocked(tx, row.tenant_id, [row], at);
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
    await writeStockOutcome(tx, row.tenant_id, applyRelease(levels, decision), cause(row, ledgerActor(input.actor)), now);
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
    await writeStockOutcome(tx, row.tenant_id, consumption.stock, cause(row, ledgerActor(input.actor)), now);
    for (const [index, line] of lines.entries()) {
      const consumed = toScaled(consumption.consumed[index]!);
      if (consumed !== 0) await setConsumedQuantity(tx, row.id, line.line_no, consumed);
    }
    await updateActiveReservation(tx, row, { status: 'consumed', consumed_at: at, updated_at: at });
    await statusChanged(tx, row, 'active', 'consumed', now);
  });
}

/**
 * One pass of the expiry sweep: of up to `batchSize` active holds past their expiry (by the
 * database's clock), those of the first one's tenant end as expired, in one transaction (one
 * tenant's stock rows, locked in one sorted statement); holds another transaction has locked are
 * skipped and found by a later pass. Returns how many it expired: call again while that is above
 * zero. Any number of processes may sweep at once.
 */
export async function expireDueReservations(scope: Scope, batchSize = 100): Promise<number> {
  return withTransaction(scope, async (tx) => {
    const due = await lockDueReservations(tx, batchSize);
    const tenantId = due[0]?.tenant_id;
    if (tenantId === undefined) return 0;
    const rows = due.filter((r) => r.tenant_id === tenantId);
    await expireLocked(tx, tenantId, rows, await databaseNow(tx));
    return rows.length;
  });
}
