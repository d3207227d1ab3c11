// Webhook endpoints: where a partner wants which events delivered (docs/webhooks.md). Each keeps
// its signing secret encrypted; a paused endpoint keeps its subscriptions, a deleted one takes its
// pending deliveries with it. The event types are the contract's (`webhookEventType`).
import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { WebhookEventType } from '@pits/contract';
import { AppError, domainError } from '@pits/domain';
import type { CredentialCipher } from '../credential-cipher.js';
import type { WebhookEndpointTable } from '../schema/index.js';
import { type ParamRef, markedColumns, preparedQuery } from '../parameterised-query.js';
import { boolValue, fromBoolValue } from './boolean-values.js';
import { type Scope, withTransaction } from '../transaction.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow, executeWrite } from '../execution/execute.js';

export type { WebhookEventType };

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

/** A live endpoint of the partner as a delivery to it needs it: its URL and encrypted secret. Unknown, deleted or another partner's: undefined. */
export async function findLiveEndpointTarget(scope: Scope, partnerId: number, id: number): Promise<{ id: number; url: string; secretEnc: string } | undefined> {
  const row = await executeTakeFirst(scope, scope.db
    .selectFrom('webhook_endpoints')
    .select(['id', 'url', 'secret_enc'])
    .where('id', '=', id)
    .where('partner_id', '=', partnerId)
    .where('deleted_at', 'is', null));
  return row && { id: row.id, url: row.url, secretEnc: row.secret_enc };
}
