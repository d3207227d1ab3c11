import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { parseWith } from './validation-issues.js';
import {
  registerWebhookBody,
  registerWebhookResponse,
  updateWebhookBody,
  updateWebhookExample,
  updatedWebhookEndpointExample,
  webhookEndpoint,
  webhookResponse,
} from './webhook-schemas.js';

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
      'must be one of: inbound.status_changed, adjustment.status_changed, transfer.status_changed, reservation.status_changed, stock.level_changed, stock.lot_expiring',
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

describe('updateWebhookBody', () => {
  it('takes new event kinds, the active flag, or both', () => {
    expect(parseWith(updateWebhookBody, { active: false })).toEqual({ ok: true, value: { active: false } });
    expect(parseWith(updateWebhookBody, { event_types: ['stock.level_changed'] })).toEqual({ ok: true, value: { event_types: ['stock.level_changed'] } });
    expect(parseWith(updateWebhookBody, updateWebhookExample)).toEqual({ ok: true, value: updateWebhookExample });
  });

  it.each([
    [{}, '', 'must give event_types, active or both'],
    [{ url: 'https://elsewhere.example/hook' }, '', 'must give event_types, active or both'],
    [{ active: 'false' }, 'active', 'must be true or false'],
    [{ active: null }, 'active', 'must be true or false'],
    [{ event_types: [] }, 'event_types', 'must have at least 1 item'],
    [{ event_types: 'stock.level_changed' }, 'event_types', 'must be an array'],
    [
      { event_types: ['api.update'] },
      'event_types[0]',
      'must be one of: inbound.status_changed, adjustment.status_changed, transfer.status_changed, reservation.status_changed, stock.level_changed, stock.lot_expiring',
    ],
    [{ event_types: ['stock.level_changed', 'inbound.status_changed', 'stock.level_changed'], active: true }, 'event_types[2]', 'is listed twice'],
  ])('refuses %j', (body, field, issue) => {
    expect(refusal(updateWebhookBody, body).details).toEqual({ field, issue });
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

  it('answers a change with the endpoint as it now is, never its secret', () => {
    expect(webhookResponse.safeParse({ status: 'ok', data: { webhook: updatedWebhookEndpointExample }, errors: null, request_id: 'r' }).success).toBe(true);
    expect(webhookResponse.safeParse({ status: 'ok', data: { webhook: { ...endpoint, signing_secret: 'whsec_abc' } }, errors: null, request_id: 'r' }).success).toBe(false);
  });
});
