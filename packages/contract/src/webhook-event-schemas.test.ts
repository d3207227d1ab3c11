import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EXAMPLE_TENANT_ID } from './common-schemas.js';
import { WEBHOOK_EVENT_EXAMPLES, WEBHOOK_EVENT_SCHEMAS, stockLevelChangedEvent, webhookEvent, webhookTestEvent } from './webhook-event-schemas.js';
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
