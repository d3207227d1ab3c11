// The payload of each webhook event (docs/webhooks.md#payload-types): one schema per type, each the
// same envelope `{event_id, type, occurred_at, tenant_id, resource, data}` with that type's
// resource and data, as persistence writes them to the outbox. The OpenAPI document publishes
// them in its `webhooks` section; `webhookEvent` is their union, whatever the type.
import { z } from 'zod';
import { adjustmentNumber, adjustmentStatus } from './adjustment-schemas.js';
import { LOT_NUMBER_MAX_LENGTH, LOT_NUMBER_PATTERN } from '@pits/domain';
import { TEXT_LIMITS, digitText, storedText } from './text-schemas.js';
import { calendarDate, timestamp } from './date-schemas.js';
import { EXAMPLE_TENANT_ID, type Example } from './examples.js';
import { inboundStatus } from './inbound-schemas.js';
import { reservationNumber, reservationStatus } from './reservation-schemas.js';
import { movementCause, stockLevelEntry, stockLotEntry } from './stock-schemas.js';
import { transferNumber, transferStatus } from './transfer-schemas.js';
import { WEBHOOK_TEST_EVENT, type deliveryEventType } from './webhook-schemas.js';

/** What every event carries besides its resource and data. */
const envelopeFields = {
  event_id: z.uuid().meta({ description: 'Unique per event and partner; the X-Webhook-Id header repeats it. Deduplicate on it: an event can arrive more than once.' }),
  occurred_at: timestamp.meta({ description: 'When the change happened (ISO 8601 UTC with milliseconds); the same on every attempt.' }),
};

const tenantId = z.guid().meta({ description: 'The tenant the change belongs to.' });

/**
 * One event type's schema: the envelope with `type` fixed, the tenant (null for the test event),
 * the resource `{type, id}` and the data.
 */
function eventSchema<Type extends string, Resource extends string, Tenant extends z.ZodType, Id extends z.ZodType, Data extends z.ZodType>(parts: {
  type: Type;
  tenant: Tenant;
  resource: Resource;
  id: Id;
  data: Data;
}) {
  return z.strictObject({
    event_id: envelopeFields.event_id,
    type: z.literal(parts.type),
    occurred_at: envelopeFields.occurred_at,
    tenant_id: parts.tenant,
    resource: z.strictObject({ type: z.literal(parts.resource), id: parts.id }).meta({ description: 'The record that changed: its kind and id.' }),
    data: parts.data,
  });
}

/**
 * A document's status change: its number is the resource id and the data's `<resource>_number`,
 * with the status before and after.
 */
function documentStatusChangedEvent<Type extends string, Resource extends string, Number extends z.ZodType, Status extends z.ZodType>(parts: {
  type: Type;
  resource: Resource;
  number: Number;
  status: Status;
}) {
  const data = { [`${parts.resource}_number`]: parts.number, previous_status: parts.status, status: parts.status } as { [Key in `${Resource}_number`]: Number } & {
    previous_status: Status;
    status: Status;
  };
  return eventSchema({
    type: parts.type,
    tenant: tenantId,
    resource: parts.resource,
    id: parts.number.meta({ description: `The ${parts.resource} number.` }),
    data: z.strictObject(data),
  });
}

/** `adjustment.status_changed`: on approval, rejection, and the approved adjustment a stock count writes. */
export const adjustmentStatusChangedEvent = documentStatusChangedEvent({
  type: 'adjustment.status_changed',
  resource: 'adjustment',
  number: adjustmentNumber,
  status: adjustmentStatus,
}).meta({ id: 'AdjustmentStatusChangedEvent', description: 'An adjustment changed status (approved or rejected).' });

/** `transfer.status_changed`: on approval, rejection, shipping and receipt. */
export const transferStatusChangedEvent = documentStatusChangedEvent({
  type: 'transfer.status_changed',
  resource: 'transfer',
  number: transferNumber,
  status: transferStatus,
}).meta({ id: 'TransferStatusChangedEvent', description: 'A transfer changed status (approved, rejected, in transit or completed).' });

/** `inbound.status_changed`: a receipt made the shipment partial or received, or it was cancelled. */
export const inboundStatusChangedEvent = eventSchema({
  type: 'inbound.status_changed',
  tenant: tenantId,
  resource: 'inbound',
  id: digitText.meta({ description: 'The inbound shipment id, as a digit string.' }),
  data: z.strictObject({
    inbound_id: z.int().min(1),
    code: storedText(TEXT_LIMITS.code).meta({ description: "The shipment's code." }),
    previous_status: inboundStatus,
    status: inboundStatus,
  }),
}).meta({ id: 'InboundStatusChangedEvent', description: 'An inbound shipment changed status (partial, received or cancelled).' });

/** `reservation.status_changed`: a hold was created (previous_status null), consumed, released or expired. */
export const reservationStatusChangedEvent = eventSchema({
  type: 'reservation.status_changed',
  tenant: tenantId,
  resource: 'reservation',
  id: reservationNumber.meta({ description: 'The reservation number.' }),
  data: z.strictObject({
    reservation_number: reservationNumber,
    reference: storedText(TEXT_LIMITS.code).meta({ description: "Your order's reference, as given when the hold was created." }),
    previous_status: reservationStatus.nullable().meta({ description: 'null when the hold was just created.' }),
    status: reservationStatus,
  }),
}).meta({ id: 'ReservationStatusChangedEvent', description: 'An order hold was created, consumed, released or expired.' });

/** The quantities of a stock row as the stock routes answer them (without the product name). */
const levelFields = stockLevelEntry.pick({
  location_id: true,
  product_id: true,
  sku: true,
  good: true,
  damaged: true,
  reserved: true,
  reserved_for_transfers: true,
  reserved_for_orders: true,
  short_dated: true,
  available: true,
  version: true,
}).shape;

/**
 * What changed a stock row: a movement's cause, or `lot_expiry`, a lot turning unsellable at 00:00
 * WIB (no bucket moves; `short_dated` grows and `available` drops, docs/lots.md#events).
 */
export const stockChangeCause = z.enum([...movementCause.options, 'lot_expiry']);

/** `stock.level_changed`: one per stock row a change touched, with the row after the change (docs/holds.md#events). */
export const stockLevelChangedEvent = eventSchema({
  type: 'stock.level_changed',
  tenant: tenantId,
  resource: 'stock_level',
  id: z.string().max(2 * TEXT_LIMITS.digits + 1).regex(/^\d+:\d+$/).meta({ description: '`<location_id>:<product_id>`.' }),
  data: z.strictObject({
    ...levelFields,
    cause: z
      .strictObject({
        type: stockChangeCause,
        id: storedText(TEXT_LIMITS.code).meta({
          description: "The causing document's id: its number (adjustment, transfer, reservation), the inbound shipment id, or the opening reference; for lot_expiry, the lot number of the lot that turned unsellable.",
        }),
        number: storedText(TEXT_LIMITS.code).nullable().meta({ description: "The document's number (an inbound shipment's code); null for opening stock and for lot_expiry." }),
      })
      .meta({ description: 'What moved the stock, as in the movement ledger; or lot_expiry, a lot of the product turning unsellable (no movement).' }),
  }),
}).meta({ id: 'StockLevelChangedEvent', description: 'The quantities of one product at one location changed; the data is the row after the change.' });

/** The figures of a lot as `GET /api/partner/v1/stock/lots` answers them; an expiring lot always has an expiry date. */
const expiringLotFields = {
  ...stockLotEntry.pick({
    location_id: true,
    product_id: true,
    sku: true,
    lot_number: true,
    production_date: true,
    good: true,
    damaged: true,
    reserved: true,
    available: true,
    sellable: true,
  }).shape,
  expiry_date: calendarDate.meta({ description: "The lot's expiry date, a WIB calendar day." }),
  days_left: z.int().meta({ description: 'expiry_date minus the WIB date of occurred_at; negative once expired.' }),
};

/**
 * `stock.lot_expiring`: once per lot and location, 7 days before the lot turns unsellable (at once
 * when it is created with fewer), with the lot's figures (docs/lots.md#events).
 */
export const stockLotExpiringEvent = eventSchema({
  type: 'stock.lot_expiring',
  tenant: tenantId,
  resource: 'stock_lot',
  id: z
    .string()
    .max(2 * TEXT_LIMITS.digits + 2 + LOT_NUMBER_MAX_LENGTH)
    // The lot number rule after the two ids (a lot number has no ":", so the id splits unambiguously).
    .regex(new RegExp(`^\\d+:\\d+:${LOT_NUMBER_PATTERN.source.replace(/^\^/, '')}`))
    .meta({ description: '`<location_id>:<product_id>:<lot_number>`.' }),
  data: z.strictObject({
    ...expiringLotFields,
    unsellable_from: calendarDate.meta({ description: 'The first WIB day the lot is not sellable: from 00:00 WIB that day its free good units are short_dated and it is no longer held, transferred or shipped.' }),
  }),
}).meta({ id: 'StockLotExpiringEvent', description: 'A lot of a product at a location will soon be too close to its expiry date to sell.' });

/** `webhook.test`: sent on request by `POST /api/partner/v1/webhooks/{id}/test`, never subscribed to. */
export const webhookTestEvent = eventSchema({
  type: WEBHOOK_TEST_EVENT,
  tenant: z.null().meta({ description: 'Always null: the test event belongs to no tenant.' }),
  resource: 'webhook',
  id: digitText.meta({ description: 'The webhook endpoint id, as a digit string.' }),
  data: z.strictObject({ message: storedText(TEXT_LIMITS.description) }),
}).meta({ id: 'WebhookTestEvent', description: 'A test event, sent only when asked for.' });

/** Each delivery event type and the schema of its payload. */
export const WEBHOOK_EVENT_SCHEMAS = {
  'adjustment.status_changed': adjustmentStatusChangedEvent,
  'transfer.status_changed': transferStatusChangedEvent,
  'inbound.status_changed': inboundStatusChangedEvent,
  'reservation.status_changed': reservationStatusChangedEvent,
  'stock.level_changed': stockLevelChangedEvent,
  'stock.lot_expiring': stockLotExpiringEvent,
  [WEBHOOK_TEST_EVENT]: webhookTestEvent,
} as const satisfies Record<z.output<typeof deliveryEventType>, z.ZodType>;

/** The JSON body of any delivery: one of the event schemas, by `type`. */
export const webhookEvent = z
  .discriminatedUnion('type', [
    adjustmentStatusChangedEvent,
    transferStatusChangedEvent,
    inboundStatusChangedEvent,
    reservationStatusChangedEvent,
    stockLevelChangedEvent,
    stockLotExpiringEvent,
    webhookTestEvent,
  ])
  .meta({ id: 'WebhookEvent', description: 'One event as delivered to a webhook endpoint.' });
export type WebhookEvent = z.output<typeof webhookEvent>;
/** The payload of one event type, as persistence writes it to the outbox (typed here, never parsed there). */
export type WebhookEventOf<Type extends WebhookEvent['type']> = Extract<WebhookEvent, { type: Type }>;

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts): one payload of each type, as the `webhooks`
// section of the reference shows it.

/** The `event_id` of every example payload, which the example `X-Webhook-Id` header repeats. */
export const EXAMPLE_EVENT_ID = '5b0f3c2e-8a41-4d6b-9c7e-2f1a0b3d4e5f';
/** When the change of every example payload happened, and in which tenant (the demo tenant). */
const exampleChange = { occurred_at: '2026-11-22T08:15:30.123Z', tenant_id: EXAMPLE_TENANT_ID } as const;

export const adjustmentStatusChangedExample: Example<typeof adjustmentStatusChangedEvent> = {
  event_id: EXAMPLE_EVENT_ID,
  type: 'adjustment.status_changed',
  ...exampleChange,
  resource: { type: 'adjustment', id: 'ADJ-20261122-000001' },
  data: { adjustment_number: 'ADJ-20261122-000001', previous_status: 'pending', status: 'approved' },
};

export const transferStatusChangedExample: Example<typeof transferStatusChangedEvent> = {
  event_id: EXAMPLE_EVENT_ID,
  type: 'transfer.status_changed',
  ...exampleChange,
  resource: { type: 'transfer', id: 'TRF-20261122-000002' },
  data: { transfer_number: 'TRF-20261122-000002', previous_status: 'approved', status: 'in_transit' },
};

export const inboundStatusChangedExample: Example<typeof inboundStatusChangedEvent> = {
  event_id: EXAMPLE_EVENT_ID,
  type: 'inbound.status_changed',
  ...exampleChange,
  resource: { type: 'inbound', id: '501' },
  data: { inbound_id: 501, code: 'INB-20261122-000007', previous_status: 'pending', status: 'partial' },
};

/** A hold just created: `previous_status` is null. */
export const reservationStatusChangedExample: Example<typeof reservationStatusChangedEvent> = {
  event_id: EXAMPLE_EVENT_ID,
  type: 'reservation.status_changed',
  ...exampleChange,
  resource: { type: 'reservation', id: 'RSV-20261122-000003' },
  data: { reservation_number: 'RSV-20261122-000003', reference: 'ORD-1001', previous_status: null, status: 'active' },
};

/** The stock row that hold changed. */
export const stockLevelChangedExample: Example<typeof stockLevelChangedEvent> = {
  event_id: EXAMPLE_EVENT_ID,
  type: 'stock.level_changed',
  ...exampleChange,
  resource: { type: 'stock_level', id: '3:1042' },
  data: {
    location_id: 3,
    product_id: '1042',
    sku: 'KOPI-250',
    good: 12.5,
    damaged: 0,
    reserved: 2,
    reserved_for_transfers: 0,
    reserved_for_orders: 2,
    short_dated: 0,
    available: 10.5,
    cause: { type: 'reservation', id: 'RSV-20261122-000003', number: 'RSV-20261122-000003' },
    version: 7,
  },
};

/** A row of the demo's Sambal Bawang whose lot SB-260901-B turned unsellable at 00:00 WIB: its 3 free units became short-dated. */
export const lotExpiryLevelChangedExample: Example<typeof stockLevelChangedEvent> = {
  event_id: EXAMPLE_EVENT_ID,
  type: 'stock.level_changed',
  occurred_at: '2026-11-21T17:00:04.512Z',
  tenant_id: EXAMPLE_TENANT_ID,
  resource: { type: 'stock_level', id: '1:3' },
  data: {
    location_id: 1,
    product_id: '3',
    sku: 'SAMBAL-BAWANG-200',
    good: 80.5,
    damaged: 2,
    reserved: 5,
    reserved_for_transfers: 0,
    reserved_for_orders: 5,
    short_dated: 3,
    available: 72.5,
    cause: { type: 'lot_expiry', id: 'SB-260901-B', number: null },
    version: 21,
  },
};

/**
 * A lot of the demo's Sambal Bawang (outbound_expired 30) with 36 days left: it turns unsellable
 * on 2026-11-29, 7 days after the notice.
 */
export const stockLotExpiringExample: Example<typeof stockLotExpiringEvent> = {
  event_id: EXAMPLE_EVENT_ID,
  type: 'stock.lot_expiring',
  ...exampleChange,
  resource: { type: 'stock_lot', id: '1:3:SB-260928-D' },
  data: {
    location_id: 1,
    product_id: '3',
    sku: 'SAMBAL-BAWANG-200',
    lot_number: 'SB-260928-D',
    expiry_date: '2026-12-28',
    production_date: '2026-09-28',
    good: 12,
    damaged: 0,
    reserved: 4,
    available: 8,
    days_left: 36,
    sellable: true,
    unsellable_from: '2026-11-29',
  },
};

/** The test event: no tenant. */
export const webhookTestExample: Example<typeof webhookTestEvent> = {
  event_id: EXAMPLE_EVENT_ID,
  type: WEBHOOK_TEST_EVENT,
  ...exampleChange,
  tenant_id: null,
  resource: { type: 'webhook', id: '1' },
  data: { message: 'This is a test event sent on request.' },
};

/** Each delivery event type and its example payload. */
export const WEBHOOK_EVENT_EXAMPLES: { readonly [Type in keyof typeof WEBHOOK_EVENT_SCHEMAS]: Example<(typeof WEBHOOK_EVENT_SCHEMAS)[Type]> } = {
  'adjustment.status_changed': adjustmentStatusChangedExample,
  'transfer.status_changed': transferStatusChangedExample,
  'inbound.status_changed': inboundStatusChangedExample,
  'reservation.status_changed': reservationStatusChangedExample,
  'stock.level_changed': stockLevelChangedExample,
  'stock.lot_expiring': stockLotExpiringExample,
  [WEBHOOK_TEST_EVENT]: webhookTestExample,
};
