// Webhook endpoints for partners (extension): register (the signing secret is shown once), list,
// delete, recent deliveries with their attempts, and redelivery.
import {
  deliveriesQuery,
  listDeliveriesResponse,
  listWebhooksResponse,
  registerWebhookBody,
  registerWebhookResponse,
  webhookActionResponse,
} from '@pits/domain';
import {
  type CredentialCipher,
  type Database,
  type WebhookEndpointRecord,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listDeliveries,
  listWebhookEndpoints,
  redeliver,
} from '@pits/persistence';
import { type RouteSpec, defineRoute } from './route-spec.js';

const idOf = (value: string | undefined) => (value !== undefined && /^[1-9]\d{0,14}$/.test(value) ? Number(value) : 0);

function presentEndpoint(e: WebhookEndpointRecord) {
  return { id: String(e.id), url: e.url, event_types: e.eventTypes, description: e.description, is_active: true, created_at: e.createdAt, updated_at: e.createdAt };
}

export function webhookRoutes({ database, cipher }: { database: Database; cipher: CredentialCipher }): RouteSpec[] {
  return [
    defineRoute({
      name: 'webhooks.create',
      method: 'POST',
      path: '/api/partner/v1/webhooks',
      summary: 'Register a webhook endpoint (extension)',
      description: 'signing_secret is shown only in this response; deliveries carry X-Webhook-Signature = v1=HMAC-SHA256(secret, "<X-Webhook-Timestamp>.<body>"). See "Receiving webhooks" below.',
      tag: 'Webhooks',
      tenantScoped: false,
      body: registerWebhookBody,
      envelope: 'A',
      status: 201,
      response: registerWebhookResponse,
      errors: ['VALIDATION_ERROR'],
      example: { url: 'https://partner.example/hooks/pits', event_types: ['inbound.status_changed'], description: 'warehouse app' },
      handler: async ({ partner, body, now }) => {
        const { endpoint, secret } = await createWebhookEndpoint(database, cipher, partner.partnerId, { url: body.url, eventTypes: body.event_types, description: body.description }, now);
        return { webhook: { ...presentEndpoint(endpoint), signing_secret: secret } };
      },
    }),
    defineRoute({
      name: 'webhooks.list',
      method: 'GET',
      path: '/api/partner/v1/webhooks',
      summary: 'List webhook endpoints (extension)',
      tag: 'Webhooks',
      tenantScoped: false,
      envelope: 'A',
      status: 200,
      response: listWebhooksResponse,
      errors: [],
      handler: async ({ partner }) => ({ webhooks: (await listWebhookEndpoints(database, partner.partnerId)).map(presentEndpoint) }),
    }),
    defineRoute({
      name: 'webhooks.delete',
      method: 'DELETE',
      path: '/api/partner/v1/webhooks/:id',
      summary: 'Delete a webhook endpoint (extension)',
      description: 'No new deliveries; pending ones to it are dropped.',
      tag: 'Webhooks',
      tenantScoped: false,
      envelope: 'A',
      status: 200,
      response: webhookActionResponse,
      errors: ['NOT_FOUND'],
      handler: async ({ partner, params, now }) => {
        await deleteWebhookEndpoint(database, partner.partnerId, idOf(params.id), now);
        return null;
      },
    }),
    defineRoute({
      name: 'webhooks.deliveries',
      method: 'GET',
      path: '/api/partner/v1/webhooks/deliveries',
      summary: 'Recent webhook deliveries (extension)',
      description: 'Newest first, each with every attempt (status code or error, duration).',
      tag: 'Webhooks',
      tenantScoped: false,
      query: deliveriesQuery,
      envelope: 'A',
      status: 200,
      response: listDeliveriesResponse,
      errors: ['VALIDATION_ERROR'],
      handler: async ({ partner, query }) => {
        const rows = await listDeliveries(database, partner.partnerId, { limit: query.limit, status: query.status, endpointId: query.endpoint_id });
        return {
          deliveries: rows.map((d) => ({
            id: String(d.id),
            event_id: d.eventId,
            event_type: d.eventType,
            endpoint_id: String(d.endpointId),
            url: d.url,
            status: d.status,
            attempts: d.attempts,
            next_attempt_at: d.nextAttemptAt,
            last_status_code: d.lastStatusCode,
            last_error: d.lastError,
            delivered_at: d.deliveredAt,
            created_at: d.createdAt,
            attempt_log: d.attemptLog.map((a) => ({ attempt: a.attemptNo, started_at: a.startedAt, duration_ms: a.durationMs, status_code: a.statusCode, error: a.error, succeeded: a.succeeded })),
          })),
        };
      },
    }),
    defineRoute({
      name: 'webhooks.redeliver',
      method: 'POST',
      path: '/api/partner/v1/webhooks/deliveries/:id/redeliver',
      summary: 'Redeliver a webhook delivery (extension)',
      description: 'A succeeded or failed delivery is sent again as soon as a worker is free.',
      tag: 'Webhooks',
      tenantScoped: false,
      envelope: 'A',
      status: 200,
      response: webhookActionResponse,
      errors: ['NOT_FOUND', 'INVALID_STATE'],
      handler: async ({ partner, params, now }) => {
        await redeliver(database, partner.partnerId, idOf(params.id), now);
        return null;
      },
    }),
  ];
}
