// Webhook deliveries and their attempts: a worker claims due deliveries with a lease, so several
// workers never send the same one at once and a worker that dies mid-delivery loses nothing (its
// lease runs out and another claims it). Each attempt is logged; a finished delivery can be sent
// again on request. The test event's delivery is claimed as it is written
// (use-cases/webhook-test-operations.ts).
import type { Updateable } from 'kysely';
import { AppError, domainError } from '@pits/domain';
import type { CredentialCipher } from '../credential-cipher.js';
import type { WebhookDeliveryTable } from '../schema/index.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow, executeWrite } from '../execution/execute.js';

/**
 * Writes one pending delivery of an event to an endpoint, already claimed by `holder` until
 * `lockedUntil` (so no worker sends it too: its claimant sends it at once), and returns its id.
 */
export async function insertClaimedDelivery(tx: Tx, delivery: { eventId: string; endpointId: number; holder: string; lockedUntil: string; at: string }): Promise<number> {
  const { at } = delivery;
  const row = await executeTakeFirstOrThrow(tx, tx.dialect
    .insertReturning(
      tx.db.insertInto('webhook_deliveries').values({
        event_id: delivery.eventId,
        endpoint_id: delivery.endpointId,
        status: 'pending',
        attempts: 0,
        next_attempt_at: at,
        locked_by: delivery.holder,
        locked_until: delivery.lockedUntil,
        last_status_code: null,
        last_error: null,
        delivered_at: null,
        created_at: at,
        updated_at: at,
      }),
      ['id'],
    ));
  return row.id;
}

/** A delivery a worker holds: what to send where, signed with the endpoint's secret. */
export interface ClaimedDelivery {
  id: number;
  eventId: string;
  endpointId: number;
  url: string;
  secret: string;
  payload: string;
  attempts: number;
}

/**
 * Claims up to `limit` due deliveries for `workerId` until `leaseMs` from now. A delivery whose
 * lease ran out (its worker died) is due again.
 */
export async function claimDueDeliveries(
  scope: Scope,
  cipher: CredentialCipher,
  workerId: string,
  options: { limit: number; leaseMs: number; now: Date },
): Promise<ClaimedDelivery[]> {
  const at = options.now.toISOString();
  const until = new Date(options.now.getTime() + options.leaseMs).toISOString();
  const dueIds = (from: Scope) =>
    from.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .where('status', '=', 'pending')
      .where('next_attempt_at', '<=', at)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', at)]))
      .orderBy('next_attempt_at')
      .orderBy('id');
  // An idle poll takes no write lock: where a write transaction holds the whole database, the
  // claiming transaction would hold off every other writer, the gateway's requests included, on
  // every poll. What becomes due after this look is claimed by the next poll, as it would be after
  // the transaction.
  if ((await executeTakeFirst(scope, dueIds(scope).limit(1))) === undefined) return [];
  const claimed = await withTransaction(scope, async (tx) => {
    // Deliveries another worker is claiming right now are left to it rather than waited for.
    const ids = (await execute(tx, tx.dialect.lockRowsSkipLocked(dueIds(tx).limit(options.limit)))).map((r) => r.id);
    if (ids.length === 0) return [];
    await executeWrite(tx, tx.db.updateTable('webhook_deliveries').set({ locked_by: workerId, locked_until: until }).where('id', 'in', ids));
    return ids;
  });
  if (claimed.length === 0) return [];
  const rows = await execute(scope, scope.db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
    .innerJoin('event_outbox', 'event_outbox.event_id', 'webhook_deliveries.event_id')
    .select(['webhook_deliveries.id', 'webhook_deliveries.event_id', 'webhook_deliveries.endpoint_id', 'webhook_deliveries.attempts', 'webhook_endpoints.url', 'webhook_endpoints.secret_enc', 'event_outbox.payload'])
    .where('webhook_deliveries.id', 'in', claimed)
    .where('webhook_deliveries.locked_by', '=', workerId)
    .orderBy('webhook_deliveries.id'));
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    endpointId: r.endpoint_id,
    url: r.url,
    secret: cipher.decrypt(r.secret_enc),
    payload: r.payload,
    attempts: r.attempts,
  }));
}

/** Counting the backlog stops here: past it, a scrape reports this many (it stays cheap however deep the queue). */
export const PENDING_DELIVERIES_COUNT_CAP = 1_000_000;

/**
 * Deliveries not yet finished (pending: due now, waiting for a retry, or being sent), up to
 * PENDING_DELIVERIES_COUNT_CAP; read on the (status, next_attempt_at) index.
 */
export async function countPendingDeliveries(scope: Scope): Promise<number> {
  const row = await executeTakeFirstOrThrow(scope, scope.db
    .selectFrom((db) => db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'pending').limit(PENDING_DELIVERIES_COUNT_CAP).as('pending'))
    .select((eb) => eb.fn.countAll<number>().as('n')));
  return Number(row.n);
}

export interface AttemptOutcome {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  /** The start of what the receiver answered (the worker keeps at most 1 KiB); null or absent when no response came. */
  responseBody?: string | null;
  succeeded: boolean;
  /** When to try again after a failure; null when no attempt is left (the delivery fails). */
  retryAt: Date | null;
}

/** Records one attempt and moves the delivery on: succeeded, pending again later, or failed. Only its lease holder may. */
export async function recordDeliveryAttempt(scope: Scope, delivery: Pick<ClaimedDelivery, 'id'>, workerId: string, outcome: AttemptOutcome): Promise<boolean> {
  return withTransaction(scope, async (tx) => {
    const row = await executeTakeFirst(tx, tx.dialect.lockRows(tx.db.selectFrom('webhook_deliveries').select(['attempts', 'locked_by', 'status']).where('id', '=', delivery.id)));
    if (!row || row.locked_by !== workerId || row.status !== 'pending') return false;
    const attemptNo = row.attempts + 1;
    await executeWrite(tx, tx.db
      .insertInto('webhook_delivery_attempts')
      .values({
        delivery_id: delivery.id,
        attempt_no: attemptNo,
        started_at: outcome.startedAt.toISOString(),
        duration_ms: outcome.durationMs,
        status_code: outcome.statusCode,
        error: outcome.error,
        succeeded: outcome.succeeded ? 1 : 0,
        response_body: outcome.responseBody ?? null,
      }));
    const at = new Date(outcome.startedAt.getTime() + outcome.durationMs).toISOString();
    const next: Updateable<WebhookDeliveryTable> = outcome.succeeded
      ? { status: 'succeeded', delivered_at: at }
      : outcome.retryAt
        ? { status: 'pending', next_attempt_at: outcome.retryAt.toISOString() }
        : { status: 'failed' };
    await executeWrite(tx, tx.db
      .updateTable('webhook_deliveries')
      .set({ ...next, attempts: attemptNo, last_status_code: outcome.statusCode, last_error: outcome.error, locked_by: null, locked_until: null, updated_at: at })
      .where('id', '=', delivery.id));
    return true;
  });
}

export interface DeliveryView {
  id: number;
  eventId: string;
  eventType: string;
  endpointId: number;
  url: string;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  nextAttemptAt: string | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: string | null;
  createdAt: string;
  attemptLog: { attemptNo: number; startedAt: string; durationMs: number; statusCode: number | null; error: string | null; responseBody: string | null; succeeded: boolean }[];
}

/** The partner's recent deliveries, newest first, each with its attempts. */
export async function listDeliveries(
  scope: Scope,
  partnerId: number,
  options: { limit: number; endpointId?: number | undefined; status?: DeliveryView['status'] | undefined; deliveryId?: number | undefined },
): Promise<DeliveryView[]> {
  let query = scope.db
    .selectFrom('webhook_deliveries')
    .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
    .innerJoin('event_outbox', 'event_outbox.event_id', 'webhook_deliveries.event_id')
    .selectAll('webhook_deliveries')
    .select(['webhook_endpoints.url', 'event_outbox.type'])
    .where('webhook_endpoints.partner_id', '=', partnerId);
  if (options.endpointId !== undefined) query = query.where('webhook_deliveries.endpoint_id', '=', options.endpointId);
  if (options.status !== undefined) query = query.where('webhook_deliveries.status', '=', options.status);
  if (options.deliveryId !== undefined) query = query.where('webhook_deliveries.id', '=', options.deliveryId);
  const rows = await execute(scope, query.orderBy('webhook_deliveries.id', 'desc').limit(options.limit));
  const attempts = rows.length
    ? await execute(scope, scope.db.selectFrom('webhook_delivery_attempts').selectAll().where('delivery_id', 'in', rows.map((r) => r.id)).orderBy('delivery_id').orderBy('attempt_no'))
    : [];
  return rows.map((r) => ({
    id: r.id,
    eventId: r.event_id,
    eventType: r.type,
    endpointId: r.endpoint_id,
    url: r.url,
    status: r.status,
    attempts: r.attempts,
    nextAttemptAt: r.status === 'pending' ? r.next_attempt_at : null,
    lastStatusCode: r.last_status_code,
    lastError: r.last_error,
    deliveredAt: r.delivered_at,
    createdAt: r.created_at,
    attemptLog: attempts
      .filter((a) => a.delivery_id === r.id)
      .map((a) => ({
        attemptNo: a.attempt_no,
        startedAt: a.started_at,
        durationMs: a.duration_ms,
        statusCode: a.status_code,
        error: a.error,
        responseBody: a.response_body,
        succeeded: a.succeeded === 1,
      })),
  }));
}

/**
 * Sends a finished (succeeded or failed) delivery again: it becomes pending and due now, keeping
 * its attempt log; a failure of that extra attempt ends it as failed again.
 */
export async function redeliver(scope: Scope, partnerId: number, deliveryId: number, now: Date): Promise<void> {
  await withTransaction(scope, async (tx) => {
    const row = await executeTakeFirst(tx, tx.db
      .selectFrom('webhook_deliveries')
      .innerJoin('webhook_endpoints', 'webhook_endpoints.id', 'webhook_deliveries.endpoint_id')
      .select(['webhook_deliveries.id', 'webhook_deliveries.status', 'webhook_endpoints.deleted_at'])
      .where('webhook_deliveries.id', '=', deliveryId)
      .where('webhook_endpoints.partner_id', '=', partnerId));
    if (!row || row.deleted_at !== null) throw new AppError(domainError('NOT_FOUND', `delivery ${deliveryId} does not exist`, { field: 'id' }));
    if (row.status === 'pending') throw new AppError(domainError('INVALID_STATE', `delivery ${deliveryId} is still pending`, { field: 'id' }));
    await executeWrite(tx, tx.db
      .updateTable('webhook_deliveries')
      .set({ status: 'pending', next_attempt_at: now.toISOString(), locked_by: null, locked_until: null, updated_at: now.toISOString() })
      .where('id', '=', deliveryId));
  });
}
