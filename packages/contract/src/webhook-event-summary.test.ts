import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_EXAMPLES, webhookEvent } from './webhook-event-schemas.js';
import { summarizeWebhookEvent } from './webhook-event-summary.js';

const summary = (type: keyof typeof WEBHOOK_EVENT_EXAMPLES) => summarizeWebhookEvent(webhookEvent.parse(WEBHOOK_EVENT_EXAMPLES[type]));

describe('summarizeWebhookEvent', () => {
  it('shows a stock row by its version and every level, and what moved it', () => {
    const { data } = WEBHOOK_EVENT_EXAMPLES['stock.level_changed'];
    const line = summary('stock.level_changed');
    expect(line).toBe(
      `location ${data.location_id} product ${data.product_id} ${data.sku} version ${data.version}: good ${data.good}, damaged ${data.damaged}, reserved ${data.reserved} ` +
        `(transfers ${data.reserved_for_transfers}, orders ${data.reserved_for_orders}), available ${data.available}; cause ${data.cause.type} ${data.cause.number ?? data.cause.id}`,
    );
  });

  it('shows each status change with the document it belongs to, on one line', () => {
    const hold = WEBHOOK_EVENT_EXAMPLES['reservation.status_changed'].data;
    expect(summary('reservation.status_changed')).toBe(`${hold.reservation_number} (order ${hold.reference}): ${hold.previous_status ?? 'new'} -> ${hold.status}`);
    expect(summarizeWebhookEvent(webhookEvent.parse({ ...WEBHOOK_EVENT_EXAMPLES['reservation.status_changed'], data: { ...hold, previous_status: null, status: 'active' } }))).toMatch(/: new -> active$/);
    const adjustment = WEBHOOK_EVENT_EXAMPLES['adjustment.status_changed'].data;
    expect(summary('adjustment.status_changed')).toBe(`${adjustment.adjustment_number}: ${adjustment.previous_status} -> ${adjustment.status}`);
    expect(summary('transfer.status_changed')).toContain(WEBHOOK_EVENT_EXAMPLES['transfer.status_changed'].data.transfer_number);
    expect(summary('inbound.status_changed')).toMatch(/^inbound \d+ \(.+\): \w+ -> \w+$/);
    expect(summary('webhook.test')).toBe(`endpoint ${WEBHOOK_EVENT_EXAMPLES['webhook.test'].resource.id}: ${WEBHOOK_EVENT_EXAMPLES['webhook.test'].data.message}`);
    for (const type of Object.keys(WEBHOOK_EVENT_EXAMPLES) as (keyof typeof WEBHOOK_EVENT_EXAMPLES)[]) expect(summary(type), type).not.toContain('\n');
  });
});
