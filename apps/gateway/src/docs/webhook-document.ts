// The `webhooks` section of the OpenAPI 3.1 document: one `post` per event type, the request the
// webhook worker sends to a partner's endpoint (docs/webhooks.md), with the payload schema of
// packages/contract's webhook-event-schemas.ts, the signature headers of WEBHOOK_HEADERS, and the
// answers the receiver gives.
import { EXAMPLE_EVENT_ID, WEBHOOK_EVENT_EXAMPLES, WEBHOOK_EVENT_SCHEMAS } from '@pits/contract';
import { WEBHOOK_HEADERS } from '@pits/domain';
import type { z } from 'zod';
import { WEBHOOK_ANSWER_SECONDS, webhookRetrySchedule } from './guides.js';

type Json = Record<string, unknown>;
export type WebhookEventType = keyof typeof WEBHOOK_EVENT_SCHEMAS;

/** The tag of the webhook operations: the same section as the endpoint and delivery routes. */
export const WEBHOOK_TAG = 'Webhooks';

/**
 * The largest Unix time in seconds a header states (9999-12-31T23:59:59Z): a delivery's timestamp
 * header here, and the document's X-RateLimit-Reset.
 */
export const MAX_UNIX_SECONDS = 253_402_300_799;

/** 2026-11-22T08:15:31Z: the first attempt, a second after the change of the example payloads. */
const EXAMPLE_SENT_AT = 1_795_335_331;

/** When each event is sent (its example payload is the contract's WEBHOOK_EVENT_EXAMPLES, checked against its schema by the tests and by Redocly). */
const WEBHOOK_EVENTS: Readonly<Record<WebhookEventType, { summary: string; when: string }>> = {
  'adjustment.status_changed': {
    summary: 'An adjustment changed status',
    when: 'Sent when an adjustment is approved or rejected, and when a stock count (`POST /api/partner/v1/stock/counts`) writes its approved adjustment.',
  },
  'transfer.status_changed': {
    summary: 'A transfer changed status',
    when: 'Sent when a transfer is approved, rejected, shipped (`in_transit`) or received (`completed`).',
  },
  'inbound.status_changed': {
    summary: 'An inbound shipment changed status',
    when: 'Sent when a receipt makes an inbound shipment `partial` or `received`, and when it is cancelled. `resource.id` is the shipment id as a string; `data.inbound_id` the same id as a number.',
  },
  'reservation.status_changed': {
    summary: 'An order hold was created or ended',
    when: 'Sent when an order hold is created (`previous_status` null, `status` `active`), consumed, released or expired (docs: the guide chapter Holding stock for orders).',
  },
  'stock.level_changed': {
    summary: 'The stock of a product at a location changed',
    when:
      'Sent once per stock row (one product at one location) that a change touched: an approved adjustment or stock count, a transfer approved, shipped or received, an inbound receipt, an order hold created, consumed, released or expired, opening stock, and a lot turning unsellable at 00:00 WIB (cause `lot_expiry`, `id` the lot number, `number` null; `short_dated` grows, `available` drops). `data` is the row after the change, as `GET /api/partner/v1/stock` answers it (quantities are JSON numbers), with the cause and the row\'s `version`; events of one row may arrive out of order, so keep the one with the highest `version`.',
  },
  'stock.lot_expiring': {
    summary: 'A lot will soon be too close to its expiry date to sell',
    when:
      "Sent once per lot and location of a lot-tracked product, 7 days before the lot becomes unsellable (its days left below the product's `outbound_expired`, and at least 1), or at once when the lot is created with fewer. `data` is the lot as `GET /api/partner/v1/stock/lots` answers it, with `unsellable_from`, the first WIB day it can no longer be held, transferred or shipped; on that day its free units become `short_dated` and a `stock.level_changed` with cause `lot_expiry` follows.",
  },
  'webhook.test': {
    summary: 'A test event, on request',
    when: 'Sent only by `POST /api/partner/v1/webhooks/{id}/test`, at once, to that endpoint, whatever it subscribes to; it belongs to no tenant (`tenant_id` null). Its first attempt is in that call\'s answer; a failed one is retried like any other.',
  },
};

/** The headers every delivery carries (docs/webhooks.md#signing), as the receiver reads them. */
const SIGNATURE_PARAMETERS: Json[] = [
  {
    name: WEBHOOK_HEADERS.id,
    in: 'header',
    required: true,
    description: 'The `event_id` of the body. The same on every attempt of an event: deduplicate on it.',
    schema: { type: 'string', format: 'uuid' },
    example: EXAMPLE_EVENT_ID,
  },
  {
    name: WEBHOOK_HEADERS.timestamp,
    in: 'header',
    required: true,
    description: 'Unix time in seconds when this attempt was sent; part of what is signed. Refuse a timestamp more than 5 minutes from your clock (a replay).',
    schema: { type: 'integer', minimum: 0, maximum: MAX_UNIX_SECONDS },
    example: EXAMPLE_SENT_AT,
  },
  {
    name: WEBHOOK_HEADERS.signature,
    in: 'header',
    required: true,
    description: `\`v1=\` and the lowercase hex HMAC-SHA256, keyed with the endpoint's \`signing_secret\`, of \`<${WEBHOOK_HEADERS.timestamp}>.<raw body>\`. Recompute it over the body bytes as received, before parsing them, and compare in constant time.`,
    schema: { type: 'string', minLength: 67, maxLength: 67, pattern: '^v1=[0-9a-f]{64}$' },
    example: 'v1=3b5c0c1f8a2e4d6b9f7a1c3e5d7b9f0a2c4e6a8b0d2f4a6c8e0b2d4f6a8c0e2f',
  },
];

const RETRIED = `retried: ${webhookRetrySchedule()}, after which the delivery is failed. \`POST /api/partner/v1/webhooks/deliveries/{id}/redeliver\` sends it again`;

/** What the receiver answers, and what the sender makes of it (docs/webhooks.md#delivery-and-retries). */
const RECEIVER_RESPONSES: Json = {
  '2XX': { description: `Received: any 2xx within ${WEBHOOK_ANSWER_SECONDS} seconds acknowledges the event, and it is not sent again. The body is not read beyond its first 1 KiB, which is recorded with the attempt.` },
  '4XX': { description: `Refused (a bad signature, a stale timestamp): recorded as \`HTTP <status>\` and ${RETRIED}.` },
  '5XX': { description: `Failed: recorded as \`HTTP <status>\` and ${RETRIED}.` },
  default: { description: `Any other status (redirects are not followed), or no answer within ${WEBHOOK_ANSWER_SECONDS} seconds: ${RETRIED}.` },
};

/**
 * The document's `webhooks` map: for each event type, the `post` the worker sends. `add` turns a
 * schema into the document's form (a `$ref` to its component, for the named event schemas).
 */
export function webhookOperations(add: (schema: z.ZodType) => Json): Record<string, Json> {
  return Object.fromEntries(
    (Object.keys(WEBHOOK_EVENT_SCHEMAS) as WebhookEventType[]).map((type) => {
      const event = WEBHOOK_EVENTS[type];
      return [
        type,
        {
          post: {
            operationId: `webhook.${type}`,
            summary: event.summary,
            description:
              `${event.when}\n\n` +
              `A JSON \`POST\` to each endpoint of yours subscribed to \`${type}\`, signed with that endpoint's secret. Delivery is at least once: ` +
              `an event can arrive more than once (after a timeout, a retry or a redelivery), so deduplicate on \`event_id\` (\`${WEBHOOK_HEADERS.id}\`); ` +
              'and events are not ordered across retries. Answer 2xx quickly and do the work afterwards.',
            tags: [WEBHOOK_TAG],
            // The receiver checks the signature headers below; it takes no API key of this service.
            security: [],
            parameters: SIGNATURE_PARAMETERS,
            requestBody: {
              required: true,
              description: `The \`${type}\` event, exactly the bytes that were signed.`,
              content: { 'application/json': { schema: add(WEBHOOK_EVENT_SCHEMAS[type]), example: WEBHOOK_EVENT_EXAMPLES[type] } },
            },
            responses: RECEIVER_RESPONSES,
          },
        },
      ];
    }),
  );
}
