// Webhook endpoints, the event outbox and deliveries. Events are written in the same transaction
// as the change that caused them, fanned out there to one delivery per subscribed endpoint; a
// worker claims due deliveries with a lease, so several workers never send the same one at once
// and a worker that dies mid-delivery loses nothing (its lease runs out and another claims it).
import { randomBytes, randomUUID } from 'node:crypto';
import type { Insertable, Selectable, Updateable } from 'kysely';
import { AppError, domainError } from '@pits/domain';
import type { CredentialCipher } from '../credential-cipher.js';
import type { EventOutboxTable, WebhookDeliveryTable, WebhookEndpointTable } from '../schema/index.js';
import { type ParamRef, markedColumns, preparedQuery } from '../parameterised-query.js';
import { boolValue, fromBoolValue } from './boolean-values.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow, executeWrite } from '../execution/execute.js';

export type WebhookEventType =
  | 'inbound.status_changed'
  | 'adjustment.status_changed'
  | 'transfer.status_changed'
  | 'reservation.status_changed'
  | 'stock.level_changed'
  | 'stock.lot_expiring';

export interface WebhookEndpointRecord {
  id: number;
  partnerId: number;
  url: string;
  eventTypes: WebhookEventType[];
  description: string;
  /** Whether new events are delivered to it; a paused endpoint keeps its subscriptions. */
  isActive: boolean;
  createdAt: string;
  /** When its event types or active flag last changed; its creation until then. */
  updatedAt: string;
}

function toEndpoint(row: Selectable<WebhookEndpointTable>): WebhookEndpointRecord {
  return {
    id: row.id,
    partnerId: row.partner_id,
    url: row.url,
    eventTypes: JSON.parse(row.event_types) as WebhookEventType[],
    description: row.description,
    isActive: fromBoolValue(row.is_active),
    createdAt: row.created_at,
    updatedAt: row.updated_at ?? row.created_at,
  };
}

/** Registers an endpoint; its signing secret is returned here only (stored encrypted). */
export async function createWebhookEndpoint(
  scope: Scope,
  cipher: CredentialCipher,
  partnerId: number,
  input: { url: string; eventTypes: readonly WebhookEventType[]; description?: string | undefined },
  now: Date,
): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> {
  const secret = `whsec_${randomBytes(24).toString('base64url')}`;
  const row = await executeTakeFirstOrThrow(scope, scope.dialect
    .insertReturningAll(
      scope.db.insertInto('webhook_endpoints').values({
        partner_id: partnerId,
        url: input.url,
        secret_enc: cipher.encrypt(secret),
        event_types: JSON.stringify([...new Set(input.eventTypes)]),
        description: input.description ?? '',
        created_at: now.toISOString(),
        deleted_at: null,
      }),
    ));
  return { endpoint: toEndpoint(row), secret };
}

export async function listWebhookEndpoints(scope: Scope, partnerId: number): Promise<WebhookEndpointRecord[]> {
  const rows = await execute(scope, scope.db.selectFrom('webhook_endpoints').selectAll().where('partner_id', '=', partnerId).where('deleted_at', 'is', null).orderBy('id'));
  return rows.map(toEndpoint);
}

/** What `updateWebhookEndpoint` may change: at least one of them. */
export interface WebhookEndpointChange {
  eventTypes?: readonly WebhookEventType[] | undefined;
  isActive?: boolean | undefined;
}

type EndpointColumns = { event_types?: string | undefined; is_active?: 0 | 1 | undefined; updated_at: string };
type EndpointChangeParams = EndpointColumns & { id: number; partnerId: number };

/** The update of a live endpoint of the partner: one template per set of columns changed. */
const updateLiveEndpoint = preparedQuery({
  shape: (p: EndpointChangeParams) => (['event_types', 'is_active', 'updated_at'] as const).filter((column) => p[column] !== undefined),
  build: (scope, param: ParamRef<EndpointChangeParams>, columns) =>
    scope.db
      .updateTable('webhook_endpoints')
      .set(markedColumns(param, columns as (keyof EndpointColumns)[]))
      .where('id', '=', param('id'))
      .where('partner_id', '=', param('partnerId'))
      .where('deleted_at', 'is', null),
});

const liveEndpoint = preparedQuery({
  build: (scope, param: ParamRef<{ id: number; partnerId: number }>) =>
    scope.db.selectFrom('webhook_endpoints').selectAll().where('id', '=', param('id')).where('partner_id', '=', param('partnerId')).where('deleted_at', 'is', null),
});

/**
 * Changes an endpoint's event types (each kept once, in the order given) and whether it is active,
 * and returns it as it now is. A paused endpoint gets no new events; deliveries already queued for
 * it are still sent. Unknown, deleted or another partner's endpoint: NOT_FOUND.
 *
 * @example
 * const paused = await updateWebhookEndpoint(db, partnerId, endpointId, { isActive: false }, new Date());
 */
export async function updateWebhookEndpoint(scope: Scope, partnerId: number, id: number, change: WebhookEndpointChange, now: Date): Promise<WebhookEndpointRecord> {
  return withTransaction(scope, async (tx) => {
    const columns: EndpointColumns = {
      event_types: change.eventTypes === undefined ? undefined : JSON.stringify([...new Set(change.eventTypes)]),
      is_active: change.isActive === undefined ? undefined : boolValue(change.isActive),
      updated_at: now.toISOString(),
    };
    const result = await executeWrite(tx, updateLiveEndpoint.with({ ...columns, id, partnerId }));
    if (result.affectedRows === 0) throw new AppError(domainError('NOT_FOUND', `webhook endpoint ${id} does not exist`, { field: 'id' }));
    return toEndpoint(await executeTakeFirstOrThrow(tx, liveEndpoint.with({ id, partnerId })));
  });
}

/** Removes an endpoint: no new deliveries; pending ones to it are dropped. Unknown or another partner's: NOT_FOUND. */
export async function deleteWebhookEndpoint(scope: Scope, partnerId: number, id: number, now: Date): Promise<void> {
  await withTransaction(scope, async (tx) => {
    const result = await executeWrite(tx, tx.db
      .updateTable('webhook_endpoints')
      .set({ deleted_at: now.toISOString() })
      .where('id', '=', id)
      .where('partner_id', '=', partnerId)
      .where('deleted_at', 'is', null));
    if (result.affectedRows === 0) throw new AppError(domainError('NOT_FOUND', `webhook endpoint ${id} does not exist`, { field: 'id' }));
    await executeWrite(tx, tx.db
      .updateTable('webhook_deliveries')
      .set({ status: 'failed', last_error: 'endpoint deleted', updated_at: now.toISOString() })
      .where('endpoint_id', '=', id)
      .where('status', '=', 'pending'));
  });
}

export interface EventInput {
  tenantId: string;
  type: WebhookEventType;
  resource: { type: 'inbound' | 'adjustment' | 'transfer' | 'reservation' | 'stock_level' | 'stock_lot'; id: string };
  data: Record<string, unknown>;
}

/** Every live, active endpoint of a partner installed for the tenant (on every status change, so prepared). */
const subscribedEndpoints = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string }>) =>
  scope.db
    .selectFrom('webhook_endpoints')
    .innerJoin('installations', 'installations.partner_id', 'webhook_endpoints.partner_id')
    .select(['webhook_endpoints.id', 'webhook_endpoints.partner_id', 'webhook_endpoints.event_types'])
    .where('installations.tenant_id', '=', param('tenantId'))
    .where('installations.uninstall_at', 'is', null)
    .where('webhook_endpoints.deleted_at', 'is', null)
    .where('webhook_endpoints.is_active', '=', 1),
});

interface Subscription {
  partnerId: number;
  endpointId: number;
  eventTypes: ReadonlySet<string>;
}

/** A transaction reads a tenant's subscriptions once, however many events it writes. */
const subscriptionsOfTransaction = new WeakMap<Tx, Map<string, Promise<Subscription[]>>>();

function subscriptions(tx: Tx, tenantId: string): Promise<Subscription[]> {
  let byTenant = subscriptionsOfTransaction.get(tx);
  if (!byTenant) subscriptionsOfTransaction.set(tx, (byTenant = new Map()));
  let found = byTenant.get(tenantId);
  if (!found) {
    found = execute(tx, subscribedEndpoints.with({ tenantId })).then((rows) =>
      rows.map((e) => ({ partnerId: e.partner_id, endpointId: e.id, eventTypes: new Set(JSON.parse(e.event_types) as string[]) })),
    );
    byTenant.set(tenantId, found);
  }
  return found;
}

/** Whether any partner installed for the tenant listens to `type`: events nobody receives are not built. */
export async function hasSubscribers(tx: Tx, tenantId: string, type: WebhookEventType): Promise<boolean> {
  return (await subscriptions(tx, tenantId)).some((s) => s.eventTypes.has(type));
}

/**
 * Writes the event for every partner installed for the tenant that has an endpoint subscribed to
 * its type, with one pending delivery per endpoint. Call inside the transaction of the change.
 * Returns the event ids written.
 */
export async function enqueueEvent(tx: Tx, event: EventInput, now: Date): Promise<string[]> {
  return enqueueEvents(tx, [event], now);
}

/** `enqueueEvent` for several events of one transaction, in order, with one insert per table per 200 events. */
export async function enqueueEvents(tx: Tx, events: readonly EventInput[], now: Date): Promise<string[]> {
  const at = now.toISOString();
  const outbox: Insertable<EventOutboxTable>[] = [];
  const deliveries: Insertable<WebhookDeliveryTable>[] = [];
  for (const event of events) {
    const byPartner = new Map<number, number[]>();
    for (const s of await subscriptions(tx, event.tenantId)) {
      if (s.eventTypes.has(event.type)) byPartner.set(s.partnerId, [...(byPartner.get(s.partnerId) ?? []), s.endpointId]);
    }
    for (const [partnerId, endpointIds] of byPartner) {
      const eventId = randomUUID();
      const payload = { event_id: eventId, type: event.type, occurred_at: at, tenant_id: event.tenantId, resource: event.resource, data: event.data };
      outbox.push({
        event_id: eventId,
        partner_id: partnerId,
        tenant_id: event.tenantId,
        type: event.type,
        resource_type: event.resource.type,
        resource_id: event.resource.id,
        payload: JSON.stringify(payload),
        occurred_at: at,
        dispatched_at: at,
      });
      for (const endpointId of endpointIds) {
        deliveries.push({
          event_id: eventId,
          endpoint_id: endpointId,
          status: 'pending',
          attempts: 0,
          next_attempt_at: at,
          locked_by: null,
          locked_until: null,
          last_status_code: null,
          last_error: null,
          delivered_at: null,
          created_at: at,
          updated_at: at,
        });
      }
    }
  }
  for (let i = 0; i < outbox.length; i += 200) await executeWrite(tx, tx.db.insertInto('event_outbox').values(outbox.slice(i, i + 200)));
  for (let i = 0; i < deliveries.length; i += 200) await executeWrite(tx, tx.db.insertInto('webhook_deliveries').values(deliveries.slice(i, i + 200)));
  return outbox.map((o) => o.event_id);
}

/**
 * Writes a `webhook.test` event for one live endpoint of the partner and its delivery, already
 * claimed by `holder` until `leaseMs` from now (so no worker sends it too), and returns it ready to
 * send. It is not tied to a tenant (`tenant_id` '' in the outbox, null in the payload). Unknown,
 * deleted or another partner's endpoint: NOT_FOUND.
 *
 * @example
 * const delivery = await createTestDelivery(database, cipher, partnerId, endpointId, { holder: 'test-send', leaseMs: 30_000, now });
 */
export async function createTestDelivery(
  scope: Scope,
  cipher: CredentialCipher,
  partnerId: number,
  endpointId: number,
  options: { holder: string; leaseMs: number; now: Date },
): Promise<ClaimedDelivery> {
  const at = options.now.toISOString();
  return withTransaction(scope, async (tx) => {
    const endpoint = await executeTakeFirst(tx, tx.db
      .selectFrom('webhook_endpoints')
      .select(['id', 'url', 'secret_enc'])
      .where('id', '=', endpointId)
      .where('partner_id', '=', partnerId)
      .where('deleted_at', 'is', null));
    if (!endpoint) throw new AppError(domainError('NOT_FOUND', `webhook endpoint ${endpointId} does not exist`, { field: 'id' }));
    const eventId = randomUUID();
    const resource = { type: 'webhook', id: String(endpoint.id) };
    const payload = JSON.stringify({ event_id: eventId, type: 'webhook.test', occurred_at: at, tenant_id: null, resource, data: { message: 'This is a test event sent on request.' } });
    await executeWrite(tx, tx.db
      .insertInto('event_outbox')
      .values({ event_id: eventId, partner_id: partnerId, tenant_id: '', type: 'webhook.test', resource_type: resource.type, resource_id: resource.id, payload, occurred_at: at, dispatched_at: at }));
    const delivery = await executeTakeFirstOrThrow(tx, tx.dialect
      .insertReturning(
        tx.db.insertInto('webhook_deliveries').values({
          event_id: eventId,
          endpoint_id: endpoint.id,
          status: 'pending',
          attempts: 0,
          next_attempt_at: at,
          locked_by: options.holder,
          locked_until: new Date(options.now.getTime() + options.leaseMs).toISOString(),
          last_status_code: null,
          last_error: null,
          delivered_at: null,
          created_at: at,
          updated_at: at,
        }),
        ['id'],
      ));
    return { id: delivery.id, eventId, endpointId: endpoint.id, url: endpoint.url, secret: cipher.decrypt(endpoint.secret_enc), payload, attempts: 0 };
  });
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

// For the benchmarks' bare routes (bench/bench-statements.ts).
export { subscribedEndpoints as subscribedEndpointsQuery };
