// The test event (docs/webhooks.md): `POST /api/partner/v1/webhooks/{id}/test` sends it at once to
// one endpoint, so it is written with its delivery already claimed by the sender.
import { randomUUID } from 'node:crypto';
import type { WebhookEventOf } from '@pits/contract';
import { AppError, domainError } from '@pits/domain';
import type { CredentialCipher } from '../credential-cipher.js';
import { insertTestEvent } from '../repositories/event-outbox-repository.js';
import { type ClaimedDelivery, insertClaimedDelivery } from '../repositories/webhook-delivery-repository.js';
import { findLiveEndpointTarget } from '../repositories/webhook-endpoint-repository.js';
import { type Scope, withTransaction } from '../transaction.js';

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
    const endpoint = await findLiveEndpointTarget(tx, partnerId, endpointId);
    if (!endpoint) throw new AppError(domainError('NOT_FOUND', `webhook endpoint ${endpointId} does not exist`, { field: 'id' }));
    const eventId = randomUUID();
    const event: WebhookEventOf<'webhook.test'> = {
      event_id: eventId,
      type: 'webhook.test',
      occurred_at: at,
      tenant_id: null,
      resource: { type: 'webhook', id: String(endpoint.id) },
      data: { message: 'This is a test event sent on request.' },
    };
    const payload = await insertTestEvent(tx, partnerId, event);
    const lockedUntil = new Date(options.now.getTime() + options.leaseMs).toISOString();
    const id = await insertClaimedDelivery(tx, { eventId, endpointId: endpoint.id, holder: options.holder, lockedUntil, at });
    return { id, eventId, endpointId: endpoint.id, url: endpoint.url, secret: cipher.decrypt(endpoint.secretEnc), payload, attempts: 0 };
  });
}
