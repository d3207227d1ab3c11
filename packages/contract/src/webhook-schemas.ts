// Webhooks (extension, docs/webhooks.md): the registration body, the endpoint resource and the
// deliveries, with the reference's examples. The payload of each event type is in
// webhook-event-schemas.ts.
import { z } from 'zod';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS, digitText, safeTextCheck, storedText, textField } from './text-schemas.js';
import { timestamp } from './date-schemas.js';
import { queryId, queryInteger } from './query-schemas.js';
import { MAX_PER_PAGE } from './pagination-schemas.js';
import { INT32_MAX, envelopeA } from './envelope-schemas.js';
import { EXAMPLE_CREATED_AT, EXAMPLE_LATER_AT, type Example } from './examples.js';

/**
 * The event kinds a partner can subscribe to: the one list, which persistence takes too (its type
 * needs no zod, so the internal API client's declarations carry it as it is).
 */
export const WEBHOOK_EVENT_TYPES = [
  'inbound.status_changed',
  'adjustment.status_changed',
  'transfer.status_changed',
  'reservation.status_changed',
  'stock.level_changed',
  'stock.lot_expiring',
] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];
export const webhookEventType = z.enum(WEBHOOK_EVENT_TYPES);

/** The event `POST /api/partner/v1/webhooks/{id}/test` sends; never subscribed to, always sent on request. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/** What a delivery can carry: a subscribed event type, or the test event. */
export const deliveryEventType = z.enum([...webhookEventType.options, WEBHOOK_TEST_EVENT]);

// ---------------------------------------------------------------------------------------------
// Requests

/** Event kinds of a body: 1 to all of them, none twice (a repeat is refused on its index). */
const subscribedEventTypes = z
  .array(webhookEventType)
  .min(1)
  .meta({ maxItems: webhookEventType.options.length })
  .superRefine((types, ctx) => {
    const seen = new Set<string>();
    types.forEach((type, index) => {
      if (seen.has(type)) ctx.addIssue({ code: 'custom', path: [index], message: 'is listed twice' });
      seen.add(type);
    });
  });

/**
 * Body of `POST /api/partner/v1/webhooks`: an http(s) URL, the event kinds (no kind twice), a
 * description. Where the URL may point (https, a public host) is `checkWebhookUrlForRegistration`'s
 * decision, taken after this parse because it depends on the operator's setting and on DNS.
 */
export const registerWebhookBody = z
  .object({
    url: z
      .url({ protocol: /^https?$/, error: requiredOr('must be an http or https URL') })
      .max(TEXT_LIMITS.url, { error: `must be at most ${TEXT_LIMITS.url} characters` })
      .superRefine(safeTextCheck)
      .meta({ description: 'An https URL of a public host, without user information (a deployment may allow http and private hosts for development).' }),
    event_types: subscribedEventTypes,
    description: textField({ max: TEXT_LIMITS.description }).optional(),
  })
  .meta({ id: 'RegisterWebhookBody', description: 'Where to deliver which events.' });
export type RegisterWebhookBody = z.output<typeof registerWebhookBody>;

/**
 * Body of `PATCH /api/partner/v1/webhooks/{id}`: new event kinds (the same rules as registration;
 * they replace the old ones), whether the endpoint is active, or both. At least one of them.
 *
 * @example parseWith(updateWebhookBody, { active: false })
 */
export const updateWebhookBody = z
  .object({
    event_types: subscribedEventTypes.optional().meta({ description: 'The event kinds to receive from now on, replacing the current ones; none twice.' }),
    active: z.boolean({ error: 'must be true or false' }).optional().meta({ description: 'false pauses the endpoint: no new events are delivered to it until it is true again.' }),
  })
  .superRefine((body, ctx) => {
    if (body.event_types === undefined && body.active === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'must give event_types, active or both' });
  })
  .meta({ id: 'UpdateWebhookBody', description: 'What to change of an endpoint: its event types, whether it is active, or both.' });
export type UpdateWebhookBody = z.output<typeof updateWebhookBody>;

// ---------------------------------------------------------------------------------------------
// Responses

const endpointFields = {
  id: digitText,
  url: storedText(TEXT_LIMITS.url),
  event_types: z.array(webhookEventType).max(webhookEventType.options.length),
  description: storedText(TEXT_LIMITS.description).nullable(),
  is_active: z.boolean(),
  created_at: timestamp,
  updated_at: timestamp,
};

/** A registered endpoint. */
export const webhookEndpoint = z
  .strictObject(endpointFields)
  .meta({ id: 'WebhookEndpoint', description: 'A registered webhook endpoint.' });

/** The endpoint as registration returns it, once, with the secret that signs its deliveries. */
export const webhookEndpointCreated = z
  .strictObject({ ...endpointFields, signing_secret: storedText(TEXT_LIMITS.label) })
  .meta({ id: 'WebhookEndpointCreated', description: 'A new endpoint; signing_secret is shown only here.' });

/** 201 of registration: envelope A, `data.webhook`. */
export const registerWebhookResponse = envelopeA(z.strictObject({ webhook: webhookEndpointCreated })).meta({
  id: 'RegisterWebhookResponse',
  description: 'The registered endpoint and its signing secret.',
});

/** 200 of `PATCH /api/partner/v1/webhooks/:id`: envelope A, `data.webhook`, the endpoint as it now is. */
export const webhookResponse = envelopeA(z.strictObject({ webhook: webhookEndpoint })).meta({
  id: 'WebhookResponse',
  description: 'The endpoint as it now is.',
});

/** 200 of `GET /api/partner/v1/webhooks`: envelope A, `data.webhooks`. */
export const listWebhooksResponse = envelopeA(z.strictObject({ webhooks: z.array(webhookEndpoint).meta({ maxItems: INT32_MAX, description: 'Every endpoint of the partner (no cap is enforced).' }) })).meta({
  id: 'ListWebhooksResponse',
  description: "The partner's endpoints, active and paused.",
});

/** 200 of `DELETE /api/partner/v1/webhooks/:id` and of a redelivery: envelope A with `data: null`. */
export const webhookActionResponse = envelopeA(z.null()).meta({ id: 'WebhookActionResponse', description: 'Done.' });

export const deliveryStatus = z.enum(['pending', 'succeeded', 'failed']);

/** Query of `GET /api/partner/v1/webhooks/deliveries`: newest first, `limit` 1 to 100 (default 20). */
export const deliveriesQuery = z
  .object({
    limit: queryInteger({ min: 1, max: MAX_PER_PAGE, defaultValue: 20 }),
    status: deliveryStatus.optional(),
    endpoint_id: queryId.optional(),
  })
  .meta({ id: 'DeliveriesQuery', description: 'Filters of the recent deliveries.' });

/** One delivery of one event to one endpoint, with every attempt. */
export const webhookDelivery = z
  .strictObject({
    id: digitText,
    event_id: z.uuid(),
    event_type: deliveryEventType,
    endpoint_id: digitText,
    url: storedText(TEXT_LIMITS.url),
    status: deliveryStatus,
    attempts: z.int().min(0).max(INT32_MAX),
    next_attempt_at: timestamp.nullable(),
    last_status_code: z.int().min(100).max(599).nullable(),
    last_error: storedText(TEXT_LIMITS.reason).nullable(),
    delivered_at: timestamp.nullable(),
    created_at: timestamp,
    // Redelivery adds attempts without a cap.
    attempt_log: z.array(
      z.strictObject({
        attempt: z.int().min(1),
        started_at: timestamp,
        duration_ms: z.int().min(0).max(INT32_MAX),
        status_code: z.int().min(100).max(599).nullable(),
        error: storedText(TEXT_LIMITS.reason).nullable().meta({
          description: 'Why the attempt failed: `HTTP <status>`, or a generic reason (`connection refused`, `connection reset`, `timeout after <n> ms`, `TLS error`, `host not found`, `address not allowed`); null when it succeeded.',
        }),
        response_body: storedText(1024).nullable().meta({ description: 'At most the first 1 KiB of what the receiver answered; null when no response came.' }),
        succeeded: z.boolean(),
      }),
    ).meta({ maxItems: INT32_MAX }),
  })
  .meta({ id: 'WebhookDelivery', description: 'A delivery and its attempts.' });

/** 200 of the deliveries list: envelope A, `data.deliveries`. */
export const listDeliveriesResponse = envelopeA(z.strictObject({ deliveries: z.array(webhookDelivery).max(MAX_PER_PAGE) })).meta({
  id: 'ListDeliveriesResponse',
  description: 'Recent deliveries, newest first.',
});

/** 200 of `POST /api/partner/v1/webhooks/{id}/test`: envelope A, `data.delivery` with its one attempt. */
export const testWebhookResponse = envelopeA(z.strictObject({ delivery: webhookDelivery })).meta({
  id: 'TestWebhookResponse',
  description: 'The webhook.test delivery and its first attempt.',
});

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

export const webhookEndpointExample: Example<typeof webhookEndpoint> = {
  id: '1',
  url: 'https://hooks.gudang-app.example/pits/events',
  event_types: ['inbound.status_changed', 'adjustment.status_changed', 'transfer.status_changed'],
  description: 'warehouse app',
  is_active: true,
  created_at: EXAMPLE_CREATED_AT,
  updated_at: EXAMPLE_CREATED_AT,
};

/** The example endpoint paused and subscribed to the order-hold events, as `PATCH /api/partner/v1/webhooks/{id}` answers it. */
export const updatedWebhookEndpointExample: Example<typeof webhookEndpoint> = {
  ...webhookEndpointExample,
  event_types: ['reservation.status_changed', 'stock.level_changed'],
  is_active: false,
  updated_at: EXAMPLE_LATER_AT,
};

/** A body of `PATCH /api/partner/v1/webhooks/{id}`: what `updatedWebhookEndpointExample` answers. */
export const updateWebhookExample: Example<typeof updateWebhookBody> = { event_types: ['reservation.status_changed', 'stock.level_changed'], active: false };

export const deliveryExample: Example<typeof webhookDelivery> = {
  id: '5',
  event_id: 'b27e4e94-3ced-4fb1-acd0-d4b3d328629e',
  event_type: 'inbound.status_changed',
  endpoint_id: '1',
  url: 'https://hooks.gudang-app.example/pits/events',
  status: 'succeeded',
  attempts: 2,
  next_attempt_at: null,
  last_status_code: 200,
  last_error: null,
  delivered_at: '2026-11-22T10:05:26.304Z',
  created_at: '2026-11-22T10:04:55.120Z',
  attempt_log: [
    { attempt: 1, started_at: '2026-11-22T10:04:55.388Z', duration_ms: 10001, status_code: null, error: 'timeout after 10000 ms', response_body: null, succeeded: false },
    { attempt: 2, started_at: '2026-11-22T10:05:26.190Z', duration_ms: 114, status_code: 200, error: null, response_body: '{"received":true}', succeeded: true },
  ],
};
