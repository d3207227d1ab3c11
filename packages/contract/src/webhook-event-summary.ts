// One readable line per webhook event, for people watching deliveries arrive (the demo receiver of
// `npm start` prints it): the levels and version of a stock row, a lot close to expiry, the status
// change of a document.
// Typed by the payload schemas, so a new event type does not compile until it has its line.
import type { WebhookEvent } from './webhook-event-schemas.js';

/** A status change in words; a hold that was just created has no previous status. */
const change = (previous: string | null, status: string) => `${previous ?? 'new'} -> ${status}`;

/**
 * What an event says, in one line without its type.
 *
 * @example
 * summarizeWebhookEvent(event) // 'location 1 product 2 TEH-MELATI-100 version 3: good 340, damaged 0, reserved 5 (transfers 0, orders 5), short-dated 0, available 335; cause reservation RSV-20261122-000002'
 */
export function summarizeWebhookEvent(event: WebhookEvent): string {
  switch (event.type) {
    case 'stock.level_changed': {
      const d = event.data;
      const levels = `good ${d.good}, damaged ${d.damaged}, reserved ${d.reserved} (transfers ${d.reserved_for_transfers}, orders ${d.reserved_for_orders}), short-dated ${d.short_dated}, available ${d.available}`;
      return `location ${d.location_id} product ${d.product_id} ${d.sku} version ${d.version}: ${levels}; cause ${d.cause.type} ${d.cause.number ?? d.cause.id}`;
    }
    case 'stock.lot_expiring': {
      const d = event.data;
      const levels = `good ${d.good}, damaged ${d.damaged}, reserved ${d.reserved}, available ${d.available}`;
      return `location ${d.location_id} product ${d.product_id} ${d.sku} lot ${d.lot_number} expires ${d.expiry_date} (${d.days_left} days left), unsellable from ${d.unsellable_from}: ${levels}`;
    }
    case 'reservation.status_changed':
      return `${event.data.reservation_number} (order ${event.data.reference}): ${change(event.data.previous_status, event.data.status)}`;
    case 'adjustment.status_changed':
      return `${event.data.adjustment_number}: ${change(event.data.previous_status, event.data.status)}`;
    case 'transfer.status_changed':
      return `${event.data.transfer_number}: ${change(event.data.previous_status, event.data.status)}`;
    case 'inbound.status_changed':
      return `inbound ${event.data.inbound_id} (${event.data.code}): ${change(event.data.previous_status, event.data.status)}`;
    case 'webhook.test':
      return `endpoint ${event.resource.id}: ${event.data.message}`;
  }
}
