import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { WEBHOOK_EVENT_SCHEMAS, stockLevelChangedEvent, webhookEvent, webhookTestEvent } from './webhook-event-schemas.js';
import { deliveryEventType } from './webhook-schemas.js';

const head = {
  event_id: '8d1f2a3b-4c5d-4e6f-9a0b-1c2d3e4f5a6b',
  occurred_at: '2026-01-31T08:15:30.123Z',
  tenant_id: '0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b',
};

/** One payload of each type, shaped as persistence writes it (the gateway's docs test checks real ones). */
const EVENTS = {
  'adjustment.status_changed': {
    ...head,
    type: 'adjustment.status_changed',
    resource: { type: 'adjustment', id: 'ADJ-20260131-000001' },
    data: { adjustment_number: 'ADJ-20260131-000001', previous_status: 'pending', status: 'approved' },
  },
  'transfer.status_changed': {
    ...head,
    type: 'transfer.status_changed',
    resource: { type: 'transfer', id: 'TRF-20260131-000002' },
    data: { transfer_number: 'TRF-20260131-000002', previous_status: 'approved', status: 'in_transit' },
  },
  'inbound.status_changed': {
    ...head,
    type: 'inbound.status_changed',
    resource: { type: 'inbound', id: '501' },
    data: { inbound_id: 501, code: 'INB-0501', previous_status: 'pending', status: 'partial' },
  },
  'reservation.status_changed': {
    ...head,
    type: 'reservation.status_changed',
    resource: { type: 'reservation', id: 'RSV-20260131-000003' },
    data: { reservation_number: 'RSV-20260131-000003', reference: 'ORD-1001', previous_status: null, status: 'active' },
  },
  'stock.level_changed': {
    ...head,
    type: 'stock.level_changed',
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
      available: 10.5,
      cause: { type: 'reservation', id: 'RSV-20260131-000003', number: 'RSV-20260131-000003' },
      version: 7,
    },
  },
  'webhook.test': {
    ...head,
    tenant_id: null,
    type: 'webhook.test',
    resource: { type: 'webhook', id: '1' },
    data: { message: 'This is a test event sent on request.' },
  },
} as const;

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
    expect(webhookTestEvent.safeParse({ ...EVENTS['webhook.test'], tenant_id: head.tenant_id }).success).toBe(false);
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
