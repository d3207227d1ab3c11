// The event outbox: events are written in the same transaction as the change that caused them, and
// fanned out there to one pending delivery per subscribed endpoint (webhook-delivery-repository.ts
// sends them). The operation that causes an event builds its payload, typed by the contract's
// schema of that type (`WebhookEventOf`); this stores and fans out what it is given.
import { randomUUID } from 'node:crypto';
import type { Insertable } from 'kysely';
import type { WEBHOOK_TEST_EVENT, WebhookEventOf, WebhookEventType } from '@pits/contract';
import type { EventOutboxTable, WebhookDeliveryTable } from '../schema/index.js';
import { type ParamRef, preparedQuery } from '../parameterised-query.js';
import type { Tx } from '../transaction.js';
import { execute, executeWrite } from '../execution/execute.js';

/**
 * One event to write: its tenant, and the resource and data of its type's payload; the outbox
 * adds the envelope (event id, type, time, tenant) per partner.
 */
export type EventInput<Type extends WebhookEventType = WebhookEventType> = {
  [T in Type]: { tenantId: string; type: T; resource: WebhookEventOf<T>['resource']; data: WebhookEventOf<T>['data'] };
}[Type];

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
 * Writes the test event, as given, for one partner; it belongs to no tenant (`tenant_id` '' in the
 * outbox, null in the payload). Returns the payload as written, the body its delivery sends.
 */
export async function insertTestEvent(tx: Tx, partnerId: number, event: WebhookEventOf<typeof WEBHOOK_TEST_EVENT>): Promise<string> {
  const payload = JSON.stringify(event);
  await executeWrite(tx, tx.db
    .insertInto('event_outbox')
    .values({ event_id: event.event_id, partner_id: partnerId, tenant_id: '', type: event.type, resource_type: event.resource.type, resource_id: event.resource.id, payload, occurred_at: event.occurred_at, dispatched_at: event.occurred_at }));
  return payload;
}

// For the benchmarks' bare routes (bench/bench-statements.ts).
export { subscribedEndpoints as subscribedEndpointsQuery };
