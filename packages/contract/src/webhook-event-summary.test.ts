import { describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_EXAMPLES, lotExpiryLevelChangedExample, webhookEvent } from './webhook-event-schemas.js';
import { summarizeWebhookEvent } from './webhook-event-summary.js';

const summary = (type: keyof typeof WEBHOOK_EVENT_EXAMPLES) => summarizeWebhookEvent(webhookEvent.parse(WEBHOOK_EVENT_EXAMPLES[type]));

describe('summarizeWebhookEvent', () => {
  it('shows a stock row by its version and every level, and what moved it', () => {
    const { data } = WEBHOOK_EVENT_EXAMPLES['stock.level_changed'];
    const line = summary('stock.level_changed');
    expect(line).toBe(
      `location ${data.location_id} product ${data.product_id} ${data.sku} version ${data.version}: good ${data.good}, damaged ${data.damaged}, reserved ${data.reserved} ` +
        `(transfers ${data.reserved_for_transfers}, orders ${data.reserved_for_orders}), short-dated ${data.short_dated}, available ${data.available}; cause ${data.cause.type} ${data.cause.number ?? data.cause.id}`,
    );
  });

  it('names the lot that turned unsellable as the cause of a row change', () => {
    expect(summarizeWebhookEvent(webhookEvent.parse(lotExpiryLevelChangedExample))).toBe(
      'location 1 product 3 SAMBAL-BAWANG-200 version 21: good 80.5, damaged 2, reserved 5 (transfers 0, orders 5), short-dated 3, available 72.5; cause lot_expiry SB-260901-B',
    );
  });

  it('shows an expiring lot by its number, expiry, days left and the day it turns unsellable, with its levels', () => {
    expect(summary('stock.lot_expiring')).toBe(
      'location 1 product 3 SAMBAL-BAWANG-200 lot SB-260928-D expires 2026-12-28 (36 days left), unsellable from 2026-11-29: good 12, damaged 0, reserved 4, available 8',
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
