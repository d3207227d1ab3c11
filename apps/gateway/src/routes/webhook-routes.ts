// Webhook endpoints for partners (extension): register (the signing secret is shown once; the URL
// must pass the policy of docs/webhooks.md#endpoint-urls), list, change (event types, paused or
// active), delete, recent deliveries with their attempts, and redelivery.
import {
  deliveriesQuery,
  deliveryEventType,
  deliveryExample,
  listDeliveriesResponse,
  listWebhooksResponse,
  registerWebhookBody,
  registerWebhookResponse,
  testWebhookResponse,
  updateWebhookBody,
  updateWebhookExample,
  updatedWebhookEndpointExample,
  webhookActionResponse,
  type webhookDelivery,
  type webhookEndpoint,
  webhookEndpointExample,
  webhookResponse,
} from '@pits/contract';
import { AppError, type HostResolver, type WebhookUrlPolicy, checkWebhookUrlForRegistration } from '@pits/domain';
import {
  type CredentialCipher,
  type DeliveryView,
  type WebhookEndpointRecord,
  createTestDelivery,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listDeliveries,
  listWebhookEndpoints,
  recordDeliveryAttempt,
  redeliver,
  updateWebhookEndpoint,
} from '@pits/persistence';
import { sendDelivery } from '@pits/service-runtime';
import { pino } from 'pino';
import type { z } from 'zod';
import type { GatewayLogger } from '../http/index.js';
import { numericId } from './route-helpers.js';
import { type PathParameterDoc, type Route, defineRoute } from './route-spec.js';

/** What each path id names, for the reference; Test Request pre-fills it with the sandbox's record. */
const ENDPOINT_ID: PathParameterDoc = { description: "The webhook endpoint's id, as `id` in its registration and in the list", example: '1', sandbox: 'webhook' };
const DELIVERY_ID: PathParameterDoc = { description: "The delivery's id, as `id` in the deliveries list", example: '1' };


function presentEndpoint(e: WebhookEndpointRecord): z.input<typeof webhookEndpoint> {
  return { id: String(e.id), url: e.url, event_types: e.eventTypes, description: e.description, is_active: e.isActive, created_at: e.createdAt, updated_at: e.updatedAt };
}

/**
 * The outbox keeps an event's type as text, and only the contract's event types are written to it;
 * any other would break the response schema, so it is a bug (500), never sent.
 */
function contractEventType(type: string, deliveryId: number): z.output<typeof deliveryEventType> {
  const known = deliveryEventType.safeParse(type);
  if (!known.success) throw new Error(`webhook delivery ${deliveryId} is of event type ${type}, which the contract does not name`);
  return known.data;
}

export interface WebhookRouteDeps {
  cipher: CredentialCipher;
  /** Where endpoints may point (the operator's WEBHOOK_ALLOW_PRIVATE_URLS). */
  urlPolicy: WebhookUrlPolicy;
  /** Resolves a registered host name, to refuse names of non-public addresses. */
  resolveHost: HostResolver;
  /** How long a test delivery may take (default 5 s), and where its unexpected failures are logged. */
  testSend?: { timeoutMs: number; logger: GatewayLogger };
}

/** Who holds a test delivery while the gateway sends it: no worker claims it meanwhile. */
const TEST_SENDER = 'gateway-test-send';

function presentDelivery(d: DeliveryView): z.input<typeof webhookDelivery> {
  return {
    id: String(d.id),
    event_id: d.eventId,
    event_type: contractEventType(d.eventType, d.id),
    endpoint_id: String(d.endpointId),
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: d.nextAttemptAt,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    delivered_at: d.deliveredAt,
    created_at: d.createdAt,
    attempt_log: d.attemptLog.map((a) => ({
      attempt: a.attemptNo,
      started_at: a.startedAt,
      duration_ms: a.durationMs,
      status_code: a.statusCode,
      error: a.error,
      response_body: a.responseBody,
      succeeded: a.succeeded,
    })),
  };
}

export function webhookRoutes({ cipher, urlPolicy, resolveHost, testSend }: WebhookRouteDeps): Route[] {
  const testTimeoutMs = testSend?.timeoutMs ?? 5000;
  const testLogger = testSend?.logger ?? pino({ level: 'silent' });
  return [
    defineRoute({
      name: 'webhooks.create',
      method: 'POST',
      path: '/api/partner/v1/webhooks',
      summary: 'Register a webhook endpoint (extension)',
      description:
        'The URL must be https, without user information, to a public host: IP addresses that are loopback, private, link-local, unique-local, multicast, unspecified or metadata (in any spelling), local names such as localhost, and names that resolve to such addresses or do not resolve are refused with 422 on url. signing_secret is shown only in this response; deliveries carry X-Webhook-Signature = v1=HMAC-SHA256(secret, "<X-Webhook-Timestamp>.<body>"). See the Webhooks chapter.',
      tag: 'Webhooks',
      tenantScoped: false,
      body: registerWebhookBody,
      envelope: 'A',
      status: 201,
      response: registerWebhookResponse,
      errors: ['VALIDATION_ERROR'],
      example: { url: webhookEndpointExample.url, event_types: webhookEndpointExample.event_types, description: 'warehouse app' },
      responseExample: { webhook: { ...webhookEndpointExample, signing_secret: 'whsec_vWISkgv337OzVgkvzzORuNuX8HP_e7ky' } },
      // Resolving the host waits on DNS: done before the handler's transaction, so no lock is held meanwhile.
      beforeTransaction: async ({ body }) => {
        const allowed = await checkWebhookUrlForRegistration(body.url, urlPolicy, resolveHost);
        if (!allowed.ok) throw new AppError(allowed.error);
      },
      handler: async ({ db, partner, body, now }) => {
        const { endpoint, secret } = await createWebhookEndpoint(db, cipher, partner.partnerId, { url: body.url, eventTypes: body.event_types, description: body.description }, now);
        return { webhook: { ...presentEndpoint(endpoint), signing_secret: secret } };
      },
    }),
    defineRoute({
      name: 'webhooks.list',
      method: 'GET',
      path: '/api/partner/v1/webhooks',
      summary: 'List webhook endpoints (extension)',
      description: "The partner's registered webhook endpoints with the event types each receives; signing secrets are shown only when an endpoint is registered.",
      tag: 'Webhooks',
      tenantScoped: false,
      envelope: 'A',
      status: 200,
      response: listWebhooksResponse,
      errors: [],
      responseExample: { webhooks: [webhookEndpointExample] },
      handler: async ({ db, partner }) => ({ webhooks: (await listWebhookEndpoints(db, partner.partnerId)).map(presentEndpoint) }),
    }),
    defineRoute({
      name: 'webhooks.update',
      method: 'PATCH',
      path: '/api/partner/v1/webhooks/:id',
      params: { id: ENDPOINT_ID },
      summary: 'Change a webhook endpoint (extension)',
      description:
        'Changes the event types an endpoint receives (they replace the current ones; the same rules as registration), pauses it (`active: false`: no new events are delivered to it, deliveries already queued are still sent, and a test event can still be sent) or makes it active again; at least one of the two. The URL and the signing secret stay as they are. Another partner\'s or an unknown endpoint is 404.',
      tag: 'Webhooks',
      tenantScoped: false,
      body: updateWebhookBody,
      envelope: 'A',
      status: 200,
      response: webhookResponse,
      errors: ['NOT_FOUND', 'VALIDATION_ERROR'],
      example: updateWebhookExample,
      responseExample: { webhook: updatedWebhookEndpointExample },
      handler: async ({ db, partner, params, body, now }) => {
        const endpoint = await updateWebhookEndpoint(db, partner.partnerId, numericId(params.id), { eventTypes: body.event_types, isActive: body.active }, now);
        return { webhook: presentEndpoint(endpoint) };
      },
    }),
    defineRoute({
      name: 'webhooks.delete',
      method: 'DELETE',
      path: '/api/partner/v1/webhooks/:id',
      params: { id: ENDPOINT_ID },
      summary: 'Delete a webhook endpoint (extension)',
      description: 'No new deliveries; pending ones to it are dropped.',
      tag: 'Webhooks',
      tenantScoped: false,
      envelope: 'A',
      status: 200,
      response: webhookActionResponse,
      errors: ['NOT_FOUND'],
      responseExample: null,
      handler: async ({ db, partner, params, now }) => {
        await deleteWebhookEndpoint(db, partner.partnerId, numericId(params.id), now);
        return null;
      },
    }),
    defineRoute({
      name: 'webhooks.deliveries',
      method: 'GET',
      path: '/api/partner/v1/webhooks/deliveries',
      summary: 'Recent webhook deliveries (extension)',
      description: 'Newest first, each with every attempt (status code or a generic error reason, duration, and at most 1 KiB of the response body).',
      tag: 'Webhooks',
      tenantScoped: false,
      query: deliveriesQuery,
      envelope: 'A',
      status: 200,
      response: listDeliveriesResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { limit: 20, status: 'succeeded', endpoint_id: 1 },
      responseExample: { deliveries: [deliveryExample] },
      handler: async ({ db, partner, query }) => {
        const rows = await listDeliveries(db, partner.partnerId, { limit: query.limit, status: query.status, endpointId: query.endpoint_id });
        return { deliveries: rows.map(presentDelivery) };
      },
    }),
    defineRoute({
      name: 'webhooks.redeliver',
      method: 'POST',
      path: '/api/partner/v1/webhooks/deliveries/:id/redeliver',
      params: { id: DELIVERY_ID },
      summary: 'Redeliver a webhook delivery (extension)',
      description: 'A succeeded or failed delivery is sent again as soon as a worker is free.',
      tag: 'Webhooks',
      tenantScoped: false,
      envelope: 'A',
      status: 200,
      response: webhookActionResponse,
      errors: ['NOT_FOUND', 'INVALID_STATE'],
      responseExample: null,
      handler: async ({ db, partner, params, now }) => {
        await redeliver(db, partner.partnerId, numericId(params.id), now);
        return null;
      },
    }),
    defineRoute({
      name: 'webhooks.test',
      method: 'POST',
      path: '/api/partner/v1/webhooks/:id/test',
      params: { id: ENDPOINT_ID },
      summary: 'Send a test event to a webhook endpoint (extension)',
      description:
        'Sends a signed webhook.test event to the endpoint at once (tenant_id null, resource {type: "webhook", id}), under the same URL policy and signature as every delivery, and answers with the delivery and its one attempt: what the receiver answered, or why it could not be reached. A test is never retried. Another partner\'s endpoint is 404.',
      tag: 'Webhooks',
      tenantScoped: false,
      envelope: 'A',
      status: 200,
      response: testWebhookResponse,
      errors: ['NOT_FOUND'],
      outsideTransaction: true,
      responseExample: {
        delivery: {
          id: '8812',
          event_id: '6f0c7c9e-52d4-4a8e-9a51-1e0b8f3c2d47',
          event_type: 'webhook.test',
          endpoint_id: '4',
          url: 'https://partner.example/hooks/pits',
          status: 'succeeded',
          attempts: 1,
          next_attempt_at: null,
          last_status_code: 200,
          last_error: null,
          delivered_at: '2026-01-31T08:15:30.342Z',
          created_at: '2026-01-31T08:15:30.123Z',
          attempt_log: [{ attempt: 1, started_at: '2026-01-31T08:15:30.130Z', duration_ms: 212, status_code: 200, error: null, response_body: 'ok', succeeded: true }],
        },
      },
      handler: async ({ db, partner, params, now }) => {
        // Written, sent and recorded in three steps: no transaction is open while the partner's server answers.
        const delivery = await createTestDelivery(db, cipher, partner.partnerId, numericId(params.id), { holder: TEST_SENDER, leaseMs: testTimeoutMs * 3, now });
        const attempt = await sendDelivery(delivery, { timeoutMs: testTimeoutMs, policy: urlPolicy, resolve: resolveHost, now: () => new Date(), logger: testLogger });
        await recordDeliveryAttempt(db, delivery, TEST_SENDER, { ...attempt, retryAt: null });
        const [recorded] = await listDeliveries(db, partner.partnerId, { limit: 1, deliveryId: delivery.id });
        if (!recorded) throw new Error(`test delivery ${delivery.id} was not found after it was recorded`);
        return { delivery: presentDelivery(recorded) };
      },
    }),
  ];
}
