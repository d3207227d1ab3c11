// The guide chapters of the reference: what a partner developer reads before the operations.
// They are Markdown in the OpenAPI document's `info.description` (the reference shows each heading
// as a chapter), generated from the same constants the gateway runs on where there are any: the
// error table, the rate-limit headers, the webhook schedule.
import { webhookEventType } from '@pits/contract';
import { type ErrorKind, RESERVATION_EXPIRY, WEBHOOK_HEADERS, WEBHOOK_RETRY, nextRetryDelayMs } from '@pits/domain';
import { DEMO_PRODUCTS } from '@pits/persistence';
import { RETRY_AFTER_SECONDS } from '@pits/http-edge';
import { ERROR_STATUS } from '../http/index.js';

/** When each error code is answered, as docs/errors.md#kinds-and-statuses states them. */
export const ERROR_CONDITIONS: Readonly<Record<ErrorKind, string>> = {
  INVALID_REQUEST: 'The body is not JSON or not an object, nests deeper than 32 levels, or `X-Tenant-Id` is missing.',
  UNAUTHORIZED: 'The API key is missing, malformed, unknown or revoked.',
  FORBIDDEN: 'The tenant is unknown, not connected to you, or was deauthorized; or you authorize a tenant that has not granted you access.',
  NOT_FOUND: 'No such route, or the id is unknown or belongs to another tenant (indistinguishable on purpose).',
  METHOD_NOT_ALLOWED: 'The path exists but not with this method; `Allow` lists the methods it has.',
  REQUEST_TIMEOUT: 'The request (its body) did not arrive within the request deadline; the connection is closed. Send it again, faster (with the same `Idempotency-Key` for writes).',
  PAYLOAD_TOO_LARGE: 'The body is over 1 MiB, or has more than 500 items.',
  UNSUPPORTED_MEDIA_TYPE: 'The body declares a `Content-Type` other than JSON in UTF-8 (`application/json`, optionally `; charset=utf-8`); send JSON, or no `Content-Type` at all. `fetch` with a string body and no headers declares `text/plain`: set `Content-Type: application/json`.',
  VALIDATION_ERROR: 'A field or query parameter is invalid; `details.field` names it (`items[2].quantity`).',
  INVALID_STATE: 'The record is not in a state that allows this (approving an approved adjustment).',
  INSUFFICIENT_STOCK: 'Approving would take stock below zero, or reserve more than is available; nothing changed.',
  SHELF_LIFE_TOO_SHORT: "A received lot has fewer days before its `expiry_date` than the product's `inbound_expired` requires; `details.field` names the line's `expiry_date` and the message the minimum and the lot's days left. Nothing of the receipt was applied.",
  IDEMPOTENCY_KEY_REUSED: 'The `Idempotency-Key` was used with another request, or its first request is still running.',
  STALE_QUANTITY: 'A stock count whose `expected` quantity no longer matches: the stock changed since you read it. Nothing changed; `error.issues` names every stale line with its current quantity. Read again and recount.',
  RATE_LIMITED: 'Too many requests in the window; wait `Retry-After` seconds.',
  INTERNAL_ERROR: 'Something unexpected failed; quote the `request_id` to support.',
  SERVICE_UNAVAILABLE: `The database was unreachable or too slow; nothing changed. Retry after \`Retry-After\` (${RETRY_AFTER_SECONDS} s), with the same \`Idempotency-Key\` for writes.`,
};

function human(ms: number): string {
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(ms % 60_000 ? 1 : 0)} min`;
  return `${(ms / 3_600_000).toFixed(ms % 3_600_000 ? 1 : 0)} h`;
}

/** Where the examples send requests: the gateway as it listens (npm start's default until it does). */
const DEFAULT_ORIGIN = 'http://127.0.0.1:4000';

const gettingStarted = (origin: string, sandboxTenantId: string | null) => `## Getting started

Run the service on your machine with demo data, then call it:

\`\`\`bash
npm ci && npm start
\`\`\`

It prints a demo API key (\`pk_test_…\`), the id of a tenant that is connected to the demo partner, the id of a second tenant that granted the demo partner access but is not connected yet, and the documents waiting in the sandbox (see the Sandbox chapter). With them:

\`\`\`bash
curl -s ${origin}/api/partner/v1/tenants -H "Authorization: Bearer $API_KEY"
curl -s ${origin}/api/partner/v1/tenants/locations -H "Authorization: Bearer $API_KEY" -H "X-Tenant-Id: $TENANT_ID"
\`\`\`

Every operation below has a request example and an example of each answer, in the values of the sandbox; **Test Request** sends it to the server this page came from (put your key under Authentication first). ${
  sandboxTenantId === null
    ? 'Its `X-Tenant-Id` is an example value, not a tenant of this server: replace it with your tenant\'s id (with `npm start`, the "Demo tenant id" it printed).'
    : `Its \`X-Tenant-Id\` is this sandbox's demo tenant, \`${sandboxTenantId}\`, connected to the demo partner.`
}`;

const authentication = `## Authentication

Send your API key in the \`Authorization\` header, bare or as a bearer token (the scheme is case-insensitive):

\`\`\`
Authorization: Bearer pk_live_Zx8sQ2vN4mR7tY1uI3oP5aS6dF9gH0jKz1X2c3V4b5N
\`\`\`

Keys start with \`pk_live_\` (production) or \`pk_test_\` (sandbox). They are shown once when created; the platform keeps only a hash. A revoked key fails on the very next request. Without a valid key the answer is \`401 UNAUTHORIZED\` with \`WWW-Authenticate: Bearer\`.

Calls that read or write a merchant's data name the merchant (the tenant) in \`X-Tenant-Id\`. You act for a tenant only while you hold an active installation for it: the merchant grants your app access on the platform, then you connect with \`POST /api/partner/v1/tenants/authorize\`. Without the merchant's grant, authorize is \`403 FORBIDDEN\`; after \`deauthorize\`, or once the merchant withdraws access, every call for that tenant is \`403\`.`;

function errorsGuide(): string {
  const rows = (Object.keys(ERROR_CONDITIONS) as ErrorKind[])
    .sort((a, b) => ERROR_STATUS[a].http - ERROR_STATUS[b].http)
    .map((kind) => `| \`${kind}\` | ${ERROR_STATUS[kind].http} | ${ERROR_CONDITIONS[kind]} |`)
    .join('\n');
  return `## Errors

Every error has the same shape. \`details.field\` names the input at fault as a path, or is empty when no single input is; when several inputs are wrong, \`issues\` lists them all.

\`\`\`json
{
  "status": "unprocessable_entity",
  "error": {
    "code": "VALIDATION_ERROR",
    "message": "invalid request body",
    "details": { "field": "items[0].quantity", "issue": "must be greater than 0" }
  },
  "request_id": "3f6c1f9e-2b7d-4c11-9a0e-5d8e7f6a1b2c"
}
\`\`\`

| code | HTTP | when |
|---|---|---|
${rows}

Every response, success or error, carries a fresh \`request_id\`, also sent as \`X-Request-Id\`.`;
}

const pagination = `## Pagination

Lists take \`page\` (from 1) and \`per_page\` (1 to 100) and answer with a \`pagination\` object: \`current_page\`, \`per_page\`, \`total\`, \`last_page\` (at least 1), and on some lists \`from\`/\`to\` (the positions of the first and last record on the page, \`null\` on an empty page) and \`has_more_pages\`. A page past the end is an empty list with the true totals. Order is stable across pages: newest first for documents, by id for locations and products, by code for areas.

The stock ledger (\`GET /api/partner/v1/stock/movements\`) is paged by cursor instead: pass the \`next_cursor\` of one page as \`cursor\` to get the next, until it is \`null\`.`;

const rateLimits = `## Rate limits

Each partner has a budget per minute by tier (\`small\` 1,000, \`medium\` 2,000, \`large\` 5,000), and the inbound list, inbound detail, receive and area search have their own budget of 200 per minute each. Every authenticated answer reports the tightest budget that applies:

| header | meaning |
|---|---|
| \`X-RateLimit-Limit\` | requests allowed in the window |
| \`X-RateLimit-Remaining\` | requests left in it |
| \`X-RateLimit-Reset\` | Unix time (seconds) when the window resets |
| \`RateLimit-Policy\`, \`RateLimit\` | the same, in the IETF format |

Over the budget the answer is \`429 RATE_LIMITED\` with \`Retry-After\` (seconds), and the request had no effect.`;

const idempotency = `## Idempotency

Send \`Idempotency-Key: <your unique value>\` (1 to 255 characters) with any \`POST\` or \`PATCH\`. For 24 hours, the same key with the same body answers with the first response (same status and body, a new \`request_id\`, and \`Idempotent-Replayed: true\`) without doing the work again. The same key with another body, path or tenant is \`422 IDEMPOTENCY_KEY_REUSED\`. Keys are yours alone: another partner's key never collides with yours.

The stored response is saved in the same database transaction as the work, so after a timeout, a dropped connection or a \`503\`, retrying with the same key is always safe: it either replays the result or does the work for the first time, never twice. If the first request is still running, the retry waits up to 5 seconds for its answer.`;

/** How long a receiver has to answer a delivery: the worker's default WEBHOOK_TIMEOUT_MS (docs/webhooks.md#delivery-and-retries). */
export const WEBHOOK_ANSWER_SECONDS = 10;

/** The retry schedule in words, from WEBHOOK_RETRY: how many attempts, and the delays between them. */
export function webhookRetrySchedule(): string {
  const delays: string[] = [];
  for (let attempt = 1; attempt < WEBHOOK_RETRY.maxAttempts; attempt += 1) delays.push(human(nextRetryDelayMs(attempt, 0)!));
  return `at most ${WEBHOOK_RETRY.maxAttempts} attempts, the next one after ${delays.join(', ')} (each stretched at random by up to ${WEBHOOK_RETRY.jitter * 100} %)`;
}

/** The event types a partner can subscribe to, in prose: the contract's list. */
function eventTypeList(): string {
  const names = webhookEventType.options.map((type) => `\`${type}\``);
  return `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`;
}

function webhooksGuide(origin: string): string {
  return `## Webhooks

Register an endpoint with \`POST /api/partner/v1/webhooks\` and keep the \`signing_secret\` of the answer: it is shown once. The URL must be \`https://\` to a public host, without user information; private, loopback, link-local and metadata addresses, local names, and names that resolve to such addresses are refused (\`422\` on \`url\`), and the address is checked again at every delivery.

Change what an endpoint receives with \`PATCH /api/partner/v1/webhooks/{id}\`: \`event_types\` replaces its event types (the same rules as registration), \`active: false\` pauses it (no new events are delivered to it; deliveries already queued are still sent) and \`active: true\` resumes it; send either or both. The answer is the endpoint as it now is; its URL and signing secret do not change. To move an endpoint to another URL, register the new one, then delete the old one (\`DELETE /api/partner/v1/webhooks/{id}\`).

\`\`\`bash
curl -s -X PATCH ${origin}/api/partner/v1/webhooks/$WEBHOOK_ID -H "Authorization: Bearer $API_KEY" \\
  -H "Content-Type: application/json" -d '{"event_types": ${JSON.stringify(webhookEventType.options)}, "active": true}'
\`\`\`

Each event is a JSON \`POST\` with \`event_id\`, \`type\`, \`occurred_at\`, \`tenant_id\`, \`resource\` and \`data\`, and these headers:

- \`${WEBHOOK_HEADERS.id}\`: the \`event_id\`; deduplicate on it, since a delivery can arrive again after a timeout
- \`${WEBHOOK_HEADERS.timestamp}\`: Unix seconds when it was sent
- \`${WEBHOOK_HEADERS.signature}\`: \`v1=\` and the hex HMAC-SHA256 of \`<timestamp>.<raw body>\`, keyed with the signing secret

Verify it on the raw body bytes as received, before any JSON parsing, in constant time, and refuse timestamps more than 5 minutes from your clock:

\`\`\`js
import { createHmac, timingSafeEqual } from 'node:crypto';

function verify(secret, timestamp, signature, rawBody) {
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > 300) return false;
  const expected = 'v1=' + createHmac('sha256', secret).update(timestamp + '.' + rawBody).digest('hex');
  return expected.length === signature.length && timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
}
\`\`\`

Answer \`2xx\` within ${WEBHOOK_ANSWER_SECONDS} seconds; anything else, or no answer, is retried: ${webhookRetrySchedule()}. \`GET /api/partner/v1/webhooks/deliveries\` lists deliveries with every attempt (its status code and the first 1 KiB of your answer, or a generic reason such as \`connection refused\` or \`timeout after 10000 ms\`); \`POST /api/partner/v1/webhooks/deliveries/{id}/redeliver\` sends one again.

Events: ${eventTypeList()} (see Holding stock for orders). A slow or unreachable endpoint never slows or fails the call that caused the event.

Each type's payload, with its \`data\` fields, is published in the \`webhooks\` section of \`/openapi.json\` (the reference lists them under Webhooks, with an example each); a client generator gives you a type per event.`;
}

/** The order holds chapter (docs/holds.md): the life of a hold, told in the order a shop meets it. */
function holdsGuide(origin: string): string {
  const { min, max, default: defaultSeconds } = RESERVATION_EXPIRY;
  return `## Holding stock for orders

When you sell one merchant's stock on several channels, hold the stock of an order the moment it is placed, so that no other channel sells the same units: the hold takes the quantities out of \`available\` at once. When the order ships, consume the hold; when it is cancelled, release it; if neither happens in time, it expires and gives the stock back.

**Order placed: hold.** All lines are held or none. Send an \`Idempotency-Key\` so that a retry after a timeout never holds twice, and keep the \`id\` of the answer (\`RSV-…\`):

\`\`\`bash
curl -s -X POST ${origin}/api/partner/v1/reservations \\
  -H "Authorization: Bearer $API_KEY" -H "X-Tenant-Id: $TENANT_ID" \\
  -H "Content-Type: application/json" -H "Idempotency-Key: hold-TOKO-ORDER-58213" \\
  -d '{"location_id": 1, "reference": "TOKO-ORDER-58213", "items": [{"sku": "KOPI-ARABICA-250", "quantity": 2}, {"sku": "TEH-MELATI-100", "quantity": 6}]}'
\`\`\`

A line that asks for more than is available is \`422 INSUFFICIENT_STOCK\` on \`items[i].quantity\`, and \`error.issues\` lists every short line, so you can tell the customer exactly which items are gone; nothing is held then. \`reference\` is your order id: while one hold for it is active, another is \`422 VALIDATION_ERROR\` on \`reference\`.

**Order shipped: consume.** Without a body every line is consumed whole. For a partial shipment name what left: those quantities are consumed and everything else is released (a line you do not name consumes nothing):

\`\`\`bash
curl -s -X POST ${origin}/api/partner/v1/reservations/$RESERVATION_ID/consume \\
  -H "Authorization: Bearer $API_KEY" -H "X-Tenant-Id: $TENANT_ID" \\
  -H "Content-Type: application/json" -H "Idempotency-Key: ship-TOKO-ORDER-58213" \\
  -d '{"items": [{"sku": "TEH-MELATI-100", "quantity": 4}]}'
\`\`\`

Consumed quantities leave the location's \`good\` stock and the held quantity in one step; the stock ledger (\`GET /api/partner/v1/stock/movements\`) shows them with cause \`reservation\` and the reservation's number. Each line of the answer carries its \`consumed_quantity\`.

**Order cancelled: release.** The held quantities become available again; \`reason\` (up to 500 characters) is optional:

\`\`\`bash
curl -s -X POST ${origin}/api/partner/v1/reservations/$RESERVATION_ID/release \\
  -H "Authorization: Bearer $API_KEY" -H "X-Tenant-Id: $TENANT_ID" \\
  -H "Content-Type: application/json" -d '{"reason": "Customer cancelled the order"}'
\`\`\`

**Expiry.** A hold lasts \`expires_in\` seconds (${min} to ${max}, default ${defaultSeconds}), counted by the service's database clock, not yours; \`expires_at\` in every answer says when it ends. While the customer is still paying, extend it: \`POST /api/partner/v1/reservations/$RESERVATION_ID/extend\` with \`{"expires_in": 3600}\` sets a new expiry that many seconds from now. A hold past its \`expires_at\` is expired by the service within 60 seconds, which gives its stock back; from the moment \`expires_at\` passes it reads as \`expired\`, and extend, release and consume on it are \`422 INVALID_STATE\`, even before that sweep has run. The same \`422 INVALID_STATE\` answers any action on a hold that was already consumed or released: read it (\`GET /api/partner/v1/reservations/$RESERVATION_ID\`) to see what happened, and hold again if the order still has to ship.

**What to publish to your channels.** \`available\` in \`GET /api/partner/v1/stock\` already excludes every hold: \`available = good - reserved\`, and \`reserved = reserved_for_transfers + reserved_for_orders\`. Publish \`available\` as it is; do not subtract your own holds again.

**Events.** Subscribe to both types to follow holds and stock without polling:

\`\`\`bash
curl -s -X POST ${origin}/api/partner/v1/webhooks -H "Authorization: Bearer $API_KEY" \\
  -H "Content-Type: application/json" \\
  -d '{"url": "https://partner.example/webhooks", "event_types": ["reservation.status_changed", "stock.level_changed"]}'
\`\`\`

- \`reservation.status_changed\`: every status change of a hold, from its creation (\`previous_status\` null) to its end, expiry included, with \`reservation_number\`, \`reference\`, \`previous_status\` and \`status\` in \`data\`.
- \`stock.level_changed\`: one per location and product a change touched, after the change: \`good\`, \`damaged\`, \`reserved\`, \`reserved_for_transfers\`, \`reserved_for_orders\`, \`available\`, the \`cause\` (\`{type, id, number}\` of the document) and \`version\`, which grows with every change of that stock row.

Deliveries are retried and can overtake each other, so an older level can arrive after a newer one. Keep the last \`version\` you applied per location and product, and drop an event whose \`version\` is not higher:

\`\`\`js
const applied = new Map(); // "location_id:product_id" -> version

function onLevelChanged({ data }) {
  const key = data.location_id + ':' + data.product_id;
  if (data.version <= (applied.get(key) ?? -1)) return; // stale: a newer level is already applied
  applied.set(key, data.version);
  publishAvailable(data.location_id, data.sku, data.available);
}
\`\`\``;
}

/** The sandbox chapter: what `npm start` seeds, in the ids a reader can call with (see demo-data.ts). */
function sandboxGuide(): string {
  const products = DEMO_PRODUCTS.map((p, i) => `| ${i + 1} | \`${p.sku}\` | ${p.name} | ${p.costPrice} |`).join('\n');
  return `## Sandbox

\`pk_test_\` keys work against sandbox tenants: real behaviour, test data. \`npm start\` seeds an empty database with the demo below and prints its API key, its tenant id and the numbers of its documents. Document numbers carry the date the demo was seeded (\`ADJ-YYYYMMDD-000001\`); the examples in this reference use 2026-11-22.

**Partner and tenants.** The partner *Demo Partner* (tier \`small\`) with one \`pk_test_\` key. The tenant *Toko Nusantara* is connected (send its id as \`X-Tenant-Id\`); *Warung Sejahtera* has granted access but is not connected: authorize it with the second id printed. Two logistics accounts (JNE, SiCepat) show the masked credentials.

**Locations.** \`1\` Gudang Jakarta Barat (\`WH-JKT-01\`, the default) and \`2\` Gudang Surabaya (\`WH-SBY-01\`).

**Products** (opening stock at Jakarta; Surabaya holds 60 good and 4 damaged of product 2):

| id | sku | name | cost price |
|---|---|---|---|
${products}

**Documents, one for each flow of this guide:**

| number | state | try |
|---|---|---|
| \`ADJ-…-000001\` | approved | its ledger rows in \`GET /api/partner/v1/stock/movements?product_id=5\` |
| \`ADJ-…-000002\` | pending (increase, damaged) | approve or reject it |
| \`ADJ-…-000003\` | pending (decrease, good) | approve it: stock of products 1 and 2 goes down |
| \`TRF-…-000001\` | pending, Jakarta to Surabaya | approve (reserves stock) or reject |
| \`TRF-…-000002\` | approved | ship it (\`PATCH …/ship\`) |
| \`TRF-…-000003\` | in transit | receive it (\`PATCH …/receive\`) |
| inbound \`1\` | pending, Jakarta | receive items \`1\` and \`2\` (\`POST /api/partner/v1/inbound/1/receive\`) |
| inbound \`2\` | pending, Surabaya | receive part of it, then the rest |
| inbound \`3\` | partial (18 of 30 received) | receive the remaining 12 of item \`5\` |
| \`RSV-…-000001\` | consumed (order \`ORDER-TOKO-1001\`, 2 of product 4 shipped) | read it: \`consumed_quantity\` per line, and its ledger rows in \`GET /api/partner/v1/stock/movements?product_id=4\` |
| \`RSV-…-000002\` | active (order \`ORDER-TOKO-1002\`: 3 of product 1, 5 of product 2, for 7 days) | consume it when the order ships (\`POST …/consume\`), or release it |

**Webhooks.** Endpoint \`1\` is subscribed to every event type and points at a receiver that \`npm start\` runs on \`http://127.0.0.1:4002/webhooks\` (allowed because the demo turns on the operator setting \`WEBHOOK_ALLOW_PRIVATE_URLS\`; a production gateway refuses such URLs). The receiver prints each event on one line, and whether its signature verified: for \`stock.level_changed\` the location, product, \`version\` and levels (\`good\`, \`damaged\`, \`reserved\` with its parts for transfers and orders, \`available\`) and what moved them; for a status change the document and its old and new status. The events of the seed itself (its status changes, holds and stock levels) are its first deliveries. Pause it, or choose its types, with \`PATCH /api/partner/v1/webhooks/1\`. List them with \`GET /api/partner/v1/webhooks/deliveries\`.

**Areas.** Every village of Indonesia (83,762) with its postcode and coordinates: try \`GET /api/partner/v1/areas?search_by=subdistrict&search_value=11730\` or \`GET /api/partner/v1/areas/detail?subdistrict_code=31.73.01.1001\`. Area data © Cahya DSN, MIT licence.`;
}

/**
 * The whole guide, one Markdown chapter per heading; `origin` is where this gateway listens, for
 * the curl lines of Getting started and Holding stock for orders.
 *
 * @example buildOpenApiDocument(routes, publicRoutes, { version, description: partnerGuide({ origin: 'http://127.0.0.1:4100' }) })
 */
export function partnerGuide(server: { origin?: string; sandboxTenantId?: string | null } = {}): string {
  const origin = server.origin ?? DEFAULT_ORIGIN;
  return [
    'The v1 partner API of the fulfillment platform: correct stock, move stock between warehouses, hold stock for orders, receive inbound shipments, connect merchants (tenants), and look up Indonesian administrative areas.',
    gettingStarted(origin, server.sandboxTenantId ?? null),
    authentication,
    errorsGuide(),
    pagination,
    rateLimits,
    idempotency,
    webhooksGuide(origin),
    holdsGuide(origin),
    sandboxGuide(),
  ].join('\n\n');
}
