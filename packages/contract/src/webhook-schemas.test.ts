import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseWith } from './validation-issues.js';
import { registerWebhookBody, registerWebhookResponse, webhookEndpoint, webhookEvent } from './webhook-schemas.js';

function refusal(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

describe('registerWebhookBody', () => {
  const body = { url: 'https://partner.example/hooks/pits', event_types: ['inbound.status_changed'], description: 'Inbound updates' };

  it('accepts an https or http URL with event kinds', () => {
    expect(parseWith(registerWebhookBody, body)).toEqual({ ok: true, value: body });
    expect(parseWith(registerWebhookBody, { url: 'http://localhost:8080/hook', event_types: ['transfer.status_changed'] }).ok).toBe(true);
  });

  it.each([
    [{ url: 'ftp://partner.example/hook' }, 'url', 'must be an http or https URL'],
    [{ url: 'partner.example' }, 'url', 'must be an http or https URL'],
    [{ url: undefined }, 'url', 'is required'],
    [{ url: `https://partner.example/${'p'.repeat(2000)}` }, 'url', 'must be at most 2000 characters'],
    [{ event_types: [] }, 'event_types', 'must have at least 1 item'],
    [
      { event_types: ['api.update'] },
      'event_types[0]',
      'must be one of: inbound.status_changed, adjustment.status_changed, transfer.status_changed, reservation.status_changed, stock.level_changed',
    ],
    [{ event_types: ['inbound.status_changed', 'inbound.status_changed'] }, 'event_types[1]', 'is listed twice'],
    [{ description: 'd'.repeat(201) }, 'description', 'must be at most 200 characters'],
    [{ description: 'inbound\u0000' }, 'description', 'must not contain the NUL character'],
    [{ description: 'inbound \ud83d' }, 'description', 'must not contain unpaired surrogates (invalid Unicode)'],
    [{ url: 'https://partner.example/hook\u0000' }, 'url', 'must not contain the NUL character'],
    [{ url: 'https://partner.example/\udc00' }, 'url', 'must not contain unpaired surrogates (invalid Unicode)'],
  ])('refuses %j', (change, field, issue) => {
    expect(refusal(registerWebhookBody, { ...body, ...change }).details).toEqual({ field, issue });
  });
});

const ts = '2026-01-31T08:15:30.123Z';
const endpoint = {
  id: '1',
  url: 'https://partner.example/hooks/pits',
  event_types: ['inbound.status_changed'],
  description: null,
  is_active: true,
  created_at: ts,
  updated_at: ts,
};

describe('webhook resources', () => {
  it('shows the signing secret only on registration', () => {
    const created = { ...endpoint, signing_secret: 'whsec_abc' };
    expect(registerWebhookResponse.safeParse({ status: 'ok', data: { webhook: created }, errors: null, request_id: 'r' }).success).toBe(true);
    expect(webhookEndpoint.safeParse(endpoint).success).toBe(true);
    expect(webhookEndpoint.safeParse(created).success).toBe(false);
  });

  it('describes a delivered event', () => {
    const event = {
      event_id: '8d1f2a3b-4c5d-4e6f-9a0b-1c2d3e4f5a6b',
      type: 'inbound.status_changed',
      occurred_at: ts,
      tenant_id: '0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b',
      resource: { type: 'inbound', id: '501' },
      data: { from: 'pending', to: 'partial' },
    };
    expect(webhookEvent.safeParse(event).success).toBe(true);
    expect(webhookEvent.safeParse({ ...event, event_id: 'evt-1' }).success).toBe(false);
    expect(webhookEvent.safeParse({ ...event, type: 'api.update' }).success).toBe(false);
    expect(webhookEvent.safeParse({ ...event, resource: { type: 'order', id: '1' } }).success).toBe(false);
  });

  it('documents the delivered event as JSON Schema under its own id (no route responds with it)', () => {
    expect(z.globalRegistry.get(webhookEvent)).toMatchObject({ id: 'WebhookEvent', description: expect.any(String) });
    const json = z.toJSONSchema(webhookEvent) as { $defs: Record<string, { type: string; required: string[] }> };
    expect(json.$defs['WebhookEvent']).toMatchObject({ type: 'object', required: expect.arrayContaining(['event_id', 'type', 'occurred_at']) });
  });
});
