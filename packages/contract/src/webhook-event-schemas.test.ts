import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EXAMPLE_TENANT_ID } from './examples.js';
import { isLotExpiringDue, isSellable, lotDaysLeft, unsellableFrom, wibDate } from '@pits/domain';
import {
  WEBHOOK_EVENT_EXAMPLES,
  WEBHOOK_EVENT_SCHEMAS,
  lotExpiryLevelChangedExample,
  stockLevelChangedEvent,
  stockLotExpiringEvent,
  webhookEvent,
  webhookTestEvent,
} from './webhook-event-schemas.js';
import { deliveryEventType } from './webhook-schemas.js';

/** One payload of each type, shaped as persistence writes it (the gateway's docs test checks real ones): the reference's examples. */
const EVENTS = WEBHOOK_EVENT_EXAMPLES;

describe('webhook event schemas', () => {
  it('has one named schema per delivery event type, each fixing its type', () => {
    expect(Object.keys(WEBHOOK_EVENT_SCHEMAS).sort()).toEqual([...deliveryEventType.options].sort());
    for (const [type, schema] of Object.entries(WEBHOOK_EVENT_SCHEMAS)) {
      expect(z.globalRegistry.get(schema), type).toMatchObject({ id: expect.stringMatching(/Event$/), description: expect.any(String) });
      expect(schema.parse(EVENTS[type as keyof typeof EVENTS]), type).toEqual(EVENTS[type as keyof typeof EVENTS]);
      // Another type's payload is not this type's.
      const other = type === 'webhook.test' ? EVENTS['inbound.status_changed'] : EVENTS['webhook.test'];
      expect(schema.safeParse(other).success, type).toBe(false);
    }
  });

  it('accepts through the union what each schema accepts, and refuses unknown types, resources and keys', () => {
    for (const event of Object.values(EVENTS)) expect(webhookEvent.parse(event)).toEqual(event);
    const event = EVENTS['inbound.status_changed'];
    expect(webhookEvent.safeParse({ ...event, event_id: 'evt-1' }).success).toBe(false);
    expect(webhookEvent.safeParse({ ...event, type: 'api.update' }).success).toBe(false);
    expect(webhookEvent.safeParse({ ...event, resource: { type: 'order', id: '1' } }).success).toBe(false);
    expect(webhookEvent.safeParse({ ...event, data: { ...event.data, extra: 1 } }).success).toBe(false);
    expect(webhookEvent.safeParse({ ...event, tenant_id: null }).success).toBe(false);
    expect(webhookTestEvent.safeParse({ ...EVENTS['webhook.test'], tenant_id: EXAMPLE_TENANT_ID }).success).toBe(false);
  });

  it('states the stock row as the stock routes do: a digit-string product id, JSON-number quantities, a location:product resource id', () => {
    const event = EVENTS['stock.level_changed'];
    expect(stockLevelChangedEvent.safeParse({ ...event, data: { ...event.data, product_id: 1042 } }).success).toBe(false);
    expect(stockLevelChangedEvent.safeParse({ ...event, data: { ...event.data, good: '12.5' } }).success).toBe(false);
    expect(stockLevelChangedEvent.safeParse({ ...event, resource: { type: 'stock_level', id: '3-1042' } }).success).toBe(false);
    expect(stockLevelChangedEvent.safeParse({ ...event, data: { ...event.data, cause: { type: 'opening', id: 'opening', number: null } } }).success).toBe(true);
  });

  it('carries short_dated on a stock row, and lot_expiry as the cause of a lot turning unsellable: the lot number as id, no number', () => {
    const event = EVENTS['stock.level_changed'];
    expect(stockLevelChangedEvent.safeParse({ ...event, data: { ...event.data, short_dated: undefined } }).success).toBe(false);
    expect(stockLevelChangedEvent.parse(lotExpiryLevelChangedExample)).toEqual(lotExpiryLevelChangedExample);
    const { data } = lotExpiryLevelChangedExample;
    expect(data.available).toBe(data.good - data.reserved - data.short_dated);
    expect(data.cause).toEqual({ type: 'lot_expiry', id: 'SB-260901-B', number: null });
    // The example lot (expiry 2026-12-21, outbound_expired 30) turns unsellable on the WIB day of the event.
    expect(unsellableFrom({ expiryDate: '2026-12-21' }, 30)).toBe(wibDate(lotExpiryLevelChangedExample.occurred_at));
  });

  it('sends stock.lot_expiring with the lot as GET /stock/lots shows it, resource <location_id>:<product_id>:<lot_number>', () => {
    const event = EVENTS['stock.lot_expiring'];
    const { data } = event;
    expect(event.resource.id).toBe(`${data.location_id}:${data.product_id}:${data.lot_number}`);
    const today = wibDate(event.occurred_at);
    expect(data.days_left).toBe(lotDaysLeft({ expiryDate: data.expiry_date }, today));
    expect(data.unsellable_from).toBe(unsellableFrom({ expiryDate: data.expiry_date }, 30));
    expect(data.sellable).toBe(isSellable({ expiryDate: data.expiry_date }, today, 30));
    expect(isLotExpiringDue({ expiryDate: data.expiry_date }, today, 30)).toBe(true);
    expect(data.available).toBe(data.good - data.reserved);
    expect(stockLotExpiringEvent.safeParse({ ...event, resource: { type: 'stock_lot', id: '1:3:SB 1' } }).success).toBe(false);
    expect(stockLotExpiringEvent.safeParse({ ...event, resource: { type: 'stock_lot', id: '1:3' } }).success).toBe(false);
    expect(stockLotExpiringEvent.safeParse({ ...event, resource: { type: 'stock_level', id: event.resource.id } }).success).toBe(false);
  });

  it.each([
    ['no expiry date', { expiry_date: null }],
    ['no days_left', { days_left: null }],
    ['no unsellable_from', { unsellable_from: undefined }],
    ['an unsellable_from that is not a day', { unsellable_from: '2026-11-31' }],
    ['a product id as a number', { product_id: 3 }],
    ['a lot number the rule refuses', { lot_number: 'SB 1' }],
    ['short_dated, which a lot does not have', { short_dated: 0 }],
  ])('refuses stock.lot_expiring data with %s', (_case, change) => {
    const event = EVENTS['stock.lot_expiring'];
    expect(stockLotExpiringEvent.safeParse({ ...event, data: { ...event.data, ...change } }).success).toBe(false);
  });

  it('publishes bounded JSON Schema: every string has a maximum length (a UUID has its fixed one)', () => {
    const strings: string[] = [];
    const walk = (value: unknown, at: string): void => {
      if (Array.isArray(value)) value.forEach((v, i) => walk(v, `${at}/${i}`));
      else if (value && typeof value === 'object') {
        const node = value as Record<string, unknown>;
        if (node.type === 'string' && node.const === undefined && node.enum === undefined && node.maxLength === undefined && node.format !== 'uuid') strings.push(at);
        for (const [key, v] of Object.entries(node)) walk(v, `${at}/${key}`);
      }
    };
    walk(z.toJSONSchema(webhookEvent, { io: 'output' }), '#');
    expect(strings).toEqual([]);
  });
});
