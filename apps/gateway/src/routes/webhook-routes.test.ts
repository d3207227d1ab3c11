// Webhook registration and deliveries through the assembled gateway, on every dialect: the URL
// policy of docs/webhooks.md#endpoint-urls (with a test resolver, so no real DNS), and what the
// deliveries list shows of each attempt.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorEnvelope, testWebhookResponse, webhookEvent, webhookResponse } from '@pits/contract';
import { type HostResolver, WEBHOOK_HEADERS, verifyWebhook } from '@pits/domain';
import {
  claimDueDeliveries,
  createApiKey,
  createCredentialCipher,
  createInbound,
  receiveInbound,
  recordDeliveryAttempt,
} from '@pits/persistence';
import { type TestDatabase, type TenantWorld, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../config.js';
import { type Gateway, createGateway } from '../create-gateway.js';

const dialects = await testDialects();
const KEY = 'k'.repeat(64);
const WEBHOOKS = '/api/partner/v1/webhooks';

/** Names the test world knows; anything else does not resolve. */
const HOSTS: Record<string, string[]> = {
  'hooks.partner.test': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'evil.test': ['10.0.0.7'],
  'rebind.test': ['93.184.215.14', '127.0.0.1'],
};

describe.each(dialects)('[%s] webhook routes', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let secret: string;
  const asked: string[] = [];
  const resolveHost: HostResolver = async (name) => {
    asked.push(name);
    const found = HOSTS[name];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
    return found;
  };
  const gateways: Gateway[] = [];
  const start = async (env: Record<string, string> = {}) => {
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', DATABASE_URL: ':memory:', ...env });
    const gateway = createGateway(config, { database: t.database, logger: pino({ level: 'silent' }), resolveHost });
    gateways.push(gateway);
    const { url } = await gateway.listen();
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      return { status: res.status, text, body: JSON.parse(text) as { data: Record<string, any>; error: { code: string; details: { field: string; issue: string } } } };
    };
    return Object.assign(call, { url });
  };

  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database, { label: 'Hooks' });
    secret = (await createApiKey(t.database, w.partner.id, { environment: 'test' }, new Date())).secret;
  });
  afterAll(async () => {
    await Promise.all(gateways.map((g) => g.close()));
    await t.cleanup();
  });

  it('refuses every non-public spelling with 422 on url, stores nothing, and registers a public https host', async () => {
    const call = await start();
    const register = (url: string) => call('POST', WEBHOOKS, { url, event_types: ['inbound.status_changed'] });
    const refusals: Array<[string, string]> = [
      ['http://127.0.0.1/hook', 'must use https'],
      ['https://127.0.0.1/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://2130706433/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://0x7f000001/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://0177.0.0.1/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://[::ffff:127.0.0.1]/hook', 'must point to a public address (::ffff:7f00:1 maps to 127.0.0.1, which is loopback)'],
      ['https://169.254.169.254/latest', 'must point to a public address (169.254.169.254 is a cloud metadata address)'],
      ['https://localhost./hook', 'must point to a public host (localhost is a local name)'],
      ['https://evil.test/hook', 'must point to a public address (the host name resolves to a non-public address)'],
      ['https://rebind.test/hook', 'must point to a public address (the host name resolves to a non-public address)'],
      ['https://unresolvable.invalid/hook', 'host name does not resolve'],
    ];
    for (const [url, issue] of refusals) {
      const res = await register(url);
      expect(res.status, url).toBe(422);
      expect(res.body.error.code, url).toBe('VALIDATION_ERROR');
      expect(res.body.error.details, url).toEqual({ field: 'url', issue });
    }
    // The name's addresses are never shown: they may be ones only our network resolves.
    expect((await register('https://evil.test/hook')).text).not.toContain('10.0.0.7');
    const userInfo = await register('https://ops:hunter2@hooks.partner.test/hook');
    expect(userInfo.body.error.details).toEqual({ field: 'url', issue: 'must not contain user information' });
    expect(userInfo.text).not.toMatch(/hunter2|ops:/);
    expect((await call('GET', WEBHOOKS)).body.data.webhooks).toEqual([]);

    const created = await register('https://hooks.partner.test/pits');
    expect(created.status, created.text).toBe(201);
    expect(created.body.data.webhook.url).toBe('https://hooks.partner.test/pits');
    expect((await register('https://93.184.215.14/pits')).status).toBe(201);
    expect((await call('GET', WEBHOOKS)).body.data.webhooks.map((e: { url: string }) => e.url)).toEqual(['https://hooks.partner.test/pits', 'https://93.184.215.14/pits']);
    // Only names were resolved, never the IP literals.
    expect(new Set(asked)).toEqual(new Set(['evil.test', 'rebind.test', 'unresolvable.invalid', 'hooks.partner.test']));
  });

  it('with WEBHOOK_ALLOW_PRIVATE_URLS=true accepts http and private hosts without resolving them, but never user information', async () => {
    const call = await start({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    asked.length = 0;
    for (const url of ['http://127.0.0.1:9/hook', 'https://localhost/hook', 'http://evil.test/hook', 'https://not-yet.partner.example/hook']) {
      const res = await call('POST', WEBHOOKS, { url, event_types: ['transfer.status_changed'] });
      expect(res.status, `${url}: ${res.text}`).toBe(201);
    }
    expect(asked).toEqual([]);
    const res = await call('POST', WEBHOOKS, { url: 'http://a:b@127.0.0.1/hook', event_types: ['transfer.status_changed'] });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toEqual({ field: 'url', issue: 'must not contain user information' });
  });

  it('lists each attempt with its status, generic error and at most 1 KiB of response body', async () => {
    const call = await start();
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
    const inbound = await createInbound(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: 2 }] }, new Date());
    await receiveInbound(t.database, { tenantId: w.tenant.id, id: inbound.id, actor: w.actor, receipts: [{ itemId: inbound.details[0]!.id, quantity: 1 }] }, new Date());
    const cipher = createCredentialCipher(KEY);
    const [claimed] = await claimDueDeliveries(t.database, cipher, 'test-worker', { limit: 1, leaseMs: 30_000, now: new Date() });
    await recordDeliveryAttempt(t.database, claimed!, 'test-worker', { startedAt: new Date(), durationMs: 12, statusCode: 503, error: 'HTTP 503', responseBody: 'maintenance until 10:00', succeeded: false, retryAt: new Date() });
    // Two endpoints take this event; the first delivery is due again, and its second attempt fails to connect.
    const again = (await claimDueDeliveries(t.database, cipher, 'test-worker', { limit: 10, leaseMs: 30_000, now: new Date(Date.now() + 1000) })).find((d) => d.id === claimed!.id);
    await recordDeliveryAttempt(t.database, again!, 'test-worker', { startedAt: new Date(), durationMs: 3, statusCode: null, error: 'connection refused', succeeded: false, retryAt: null });

    const res = await call('GET', '/api/partner/v1/webhooks/deliveries?limit=5');
    expect(res.status, res.text).toBe(200);
    const delivery = (res.body.data.deliveries as Array<{ id: string; attempt_log: unknown[] }>).find((d) => d.id === String(claimed!.id));
    expect(delivery?.attempt_log).toEqual([
      { attempt: 1, started_at: expect.any(String), duration_ms: 12, status_code: 503, error: 'HTTP 503', response_body: 'maintenance until 10:00', succeeded: false },
      { attempt: 2, started_at: expect.any(String), duration_ms: 3, status_code: null, error: 'connection refused', response_body: null, succeeded: false },
    ]);
  });

  it('sends a signed webhook.test at once and answers with the delivery and its attempt; another partner\'s endpoint is 404', async () => {
    const received: { headers: Record<string, string | string[] | undefined>; body: string }[] = [];
    const receiver = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => {
        received.push({ headers: req.headers, body });
        res.writeHead(received.length === 1 ? 200 : 500).end(received.length === 1 ? 'ok' : 'down');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const call = await start({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
      const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      const created = await call('POST', WEBHOOKS, { url: hookUrl, event_types: ['adjustment.status_changed'] });
      const { id, signing_secret: signingSecret } = created.body.data.webhook as { id: string; signing_secret: string };

      const sent = await call('POST', `${WEBHOOKS}/${id}/test`);
      expect(sent.status, sent.text).toBe(200);
      const delivery = testWebhookResponse.parse(sent.body).data.delivery;
      expect(delivery).toMatchObject({ event_type: 'webhook.test', endpoint_id: id, url: hookUrl, status: 'succeeded', attempts: 1, last_status_code: 200, next_attempt_at: null });
      expect(delivery.attempt_log).toEqual([{ attempt: 1, started_at: expect.any(String), duration_ms: expect.any(Number), status_code: 200, error: null, response_body: 'ok', succeeded: true }]);
      expect(received).toHaveLength(1);
      const event = webhookEvent.parse(JSON.parse(received[0]!.body));
      expect(event).toMatchObject({ event_id: delivery.event_id, type: 'webhook.test', tenant_id: null, resource: { type: 'webhook', id } });
      const header = (name: string) => received[0]!.headers[name.toLowerCase()] as string | undefined;
      expect(verifyWebhook(signingSecret, { timestamp: header(WEBHOOK_HEADERS.timestamp), signature: header(WEBHOOK_HEADERS.signature) }, received[0]!.body, Math.floor(Date.now() / 1000))).toBe(true);

      // A failing receiver: the attempt says so and the test is not retried.
      const failed = testWebhookResponse.parse((await call('POST', `${WEBHOOKS}/${id}/test`)).body).data.delivery;
      expect(failed).toMatchObject({ status: 'failed', last_error: 'HTTP 500', attempt_log: [{ status_code: 500, response_body: 'down', succeeded: false }] });
      const listed = await call('GET', '/api/partner/v1/webhooks/deliveries?limit=2');
      expect((listed.body.data.deliveries as { id: string }[]).map((d) => d.id)).toEqual([failed.id, delivery.id]);

      // The same endpoint seen by a gateway with the policy on: refused at delivery, nothing connects.
      const strict = await start();
      const refused = testWebhookResponse.parse((await strict('POST', `${WEBHOOKS}/${id}/test`)).body).data.delivery;
      expect(refused.attempt_log[0]).toMatchObject({ status_code: null, error: 'address not allowed', succeeded: false });
      expect(received).toHaveLength(2);

      const other = await seedTenantWorld(t.database, { label: 'HooksOther' });
      const otherKey = (await createApiKey(t.database, other.partner.id, { environment: 'test' }, new Date())).secret;
      for (const [path, key] of [[`${WEBHOOKS}/${id}/test`, otherKey], [`${WEBHOOKS}/999999/test`, secret], [`${WEBHOOKS}/abc/test`, secret]] as const) {
        const res = await fetch(`${strict.url}${path}`, { method: 'POST', headers: { Authorization: key } });
        expect(res.status, path).toBe(404);
        expect(errorEnvelope.parse(await res.json()).error.code).toBe('NOT_FOUND');
      }
      expect(received).toHaveLength(2);
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('PATCH changes event types and pauses an endpoint; a paused endpoint gets no new events; bad input is 422, others\' ids 404', async () => {
    const call = await start({ WEBHOOK_ALLOW_PRIVATE_URLS: 'true' });
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
    const created = await call('POST', WEBHOOKS, { url: 'http://127.0.0.1:9/patched', event_types: ['inbound.status_changed'], description: 'to change' });
    const { id, created_at: createdAt } = created.body.data.webhook as { id: string; created_at: string };
    const patch = (body: unknown, key = secret, path = `${WEBHOOKS}/${id}`) =>
      fetch(`${call.url}${path}`, { method: 'PATCH', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });

    const retyped = await patch({ event_types: ['stock.level_changed', 'reservation.status_changed'] });
    expect(retyped.status).toBe(200);
    const endpoint = webhookResponse.parse(await retyped.json()).data.webhook;
    expect(endpoint).toMatchObject({ id, url: 'http://127.0.0.1:9/patched', description: 'to change', event_types: ['stock.level_changed', 'reservation.status_changed'], is_active: true, created_at: createdAt });
    expect(Date.parse(endpoint.updated_at)).toBeGreaterThanOrEqual(Date.parse(createdAt));

    const paused = webhookResponse.parse(await (await patch({ active: false })).json()).data.webhook;
    expect(paused).toMatchObject({ event_types: ['stock.level_changed', 'reservation.status_changed'], is_active: false });
    const listed = (await call('GET', WEBHOOKS)).body.data.webhooks as { id: string; is_active: boolean }[];
    expect(listed.find((e) => e.id === id)).toMatchObject({ is_active: false });

    // A change of stock while paused: deliveries go to the other endpoints, none to this one.
    const deliveriesTo = async () => ((await call('GET', `/api/partner/v1/webhooks/deliveries?limit=100&endpoint_id=${id}`)).body.data.deliveries as unknown[]).length;
    const inbound = await createInbound(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, sourceType: 'purchase', sourceId: 2, sourceCode: 'PO-2', createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: 2 }] }, new Date());
    await receiveInbound(t.database, { tenantId: w.tenant.id, id: inbound.id, actor: w.actor, receipts: [{ itemId: inbound.details[0]!.id, quantity: 1 }] }, new Date());
    expect(await deliveriesTo()).toBe(0);
    const active = webhookResponse.parse(await (await patch({ active: true, event_types: ['stock.level_changed'] })).json()).data.webhook;
    expect(active).toMatchObject({ event_types: ['stock.level_changed'], is_active: true });
    await receiveInbound(t.database, { tenantId: w.tenant.id, id: inbound.id, actor: w.actor, receipts: [{ itemId: inbound.details[0]!.id, quantity: 1 }] }, new Date());
    expect(await deliveriesTo()).toBe(1);

    const refusals: Array<[unknown, string, string]> = [
      [{}, '', 'must give event_types, active or both'],
      [undefined, '', 'must give event_types, active or both'],
      [{ active: 'no' }, 'active', 'must be true or false'],
      [{ event_types: [] }, 'event_types', 'must have at least 1 item'],
      [{ event_types: ['api.update'] }, 'event_types[0]', 'must be one of: inbound.status_changed, adjustment.status_changed, transfer.status_changed, reservation.status_changed, stock.level_changed, stock.lot_expiring'],
      [{ event_types: ['stock.level_changed', 'stock.level_changed'] }, 'event_types[1]', 'is listed twice'],
      [{ event_types: ['stock.level_changed\u0000'] }, 'event_types[0]', 'must be one of: inbound.status_changed, adjustment.status_changed, transfer.status_changed, reservation.status_changed, stock.level_changed, stock.lot_expiring'],
    ];
    for (const [body, field, issue] of refusals) {
      const res = await patch(body);
      const text = await res.text();
      expect(res.status, text).toBe(422);
      expect(errorEnvelope.parse(JSON.parse(text)).error, text).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, issue } });
    }
    // Nothing changed by the refusals.
    expect(((await call('GET', WEBHOOKS)).body.data.webhooks as { id: string }[]).find((e) => e.id === id)).toMatchObject({ event_types: ['stock.level_changed'], is_active: true });

    const other = await seedTenantWorld(t.database, { label: 'HooksPatcher' });
    const otherKey = (await createApiKey(t.database, other.partner.id, { environment: 'test' }, new Date())).secret;
    for (const [key, path] of [[otherKey, `${WEBHOOKS}/${id}`], [secret, `${WEBHOOKS}/999999`], [secret, `${WEBHOOKS}/abc`], [secret, `${WEBHOOKS}/deliveries`]] as const) {
      const res = await patch({ active: false }, key, path);
      expect(res.status, path).toBe(404);
      expect(errorEnvelope.parse(await res.json()).error.code).toBe('NOT_FOUND');
    }
    expect(((await call('GET', WEBHOOKS)).body.data.webhooks as { id: string }[]).find((e) => e.id === id)).toMatchObject({ is_active: true });
    await call('DELETE', `${WEBHOOKS}/${id}`);
    expect((await patch({ active: true })).status).toBe(404);
  });
});
