// The worker against a real HTTP receiver on loopback, on every dialect.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '@pits/domain';
import { authorizeTenant, createCredentialCipher, createInbound, createWebhookEndpoint, listDeliveries, receiveInbound } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhookWorker } from './webhook-worker.js';

const dialects = await testDialects();
const cipher = createCredentialCipher('w'.repeat(64));
const fastRetry = { maxAttempts: 4, baseDelayMs: 50, factor: 2, maxDelayMs: 1000, jitter: 0.1 };

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  answered: number;
}

async function receiver(answer: (n: number) => number): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const status = answer(received.length + 1);
      received.push({ headers: req.headers, body, answered: status });
      res.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received, server };
}

describe.each(dialects)('[%s] webhook worker', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  async function world(url: string): Promise<{ w: TenantWorld; secret: string; receive: () => Promise<unknown> }> {
    const w = await seedTenantWorld(t.database, { label: `Hook${Math.random().toString(36).slice(2, 7)}` });
    await authorizeTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
    const { secret } = await createWebhookEndpoint(t.database, cipher, w.partner.id, { url, eventTypes: ['inbound.status_changed'] }, new Date());
    const inbound = await createInbound(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: 2 }] }, new Date());
    const receive = () => receiveInbound(t.database, { tenantId: w.tenant.id, id: inbound.shipment.id, actor: w.actor, receipts: [{ itemId: inbound.details[0]!.row.id, quantity: 1 }] }, new Date());
    return { w, secret, receive };
  }

  it('retries a receiver that fails twice; the event is accepted exactly once, signed, with every attempt recorded', async () => {
    const hook = await receiver((n) => (n <= 2 ? 503 : 204));
    const { w, secret, receive } = await world(hook.url);
    await receive();
    const worker = createWebhookWorker({ database: t.database, cipher, logger: pino({ level: 'silent' }), pollMs: 10, retry: fastRetry });
    worker.start();
    const deadline = Date.now() + 10_000;
    while (hook.received.filter((r) => r.answered === 204).length < 1 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));
    await worker.stop();
    hook.server.close();
    expect(hook.received.map((r) => r.answered)).toEqual([503, 503, 204]);
    const accepted = hook.received[2]!;
    const event = JSON.parse(accepted.body) as { event_id: string; type: string; tenant_id: string; data: { status: string } };
    expect(event).toMatchObject({ type: 'inbound.status_changed', tenant_id: w.tenant.id, data: { status: 'partial', previous_status: 'pending' } });
    expect(accepted.headers['x-webhook-id']).toBe(event.event_id);
    expect(new Set(hook.received.map((r) => r.headers['x-webhook-id'])).size).toBe(1);
    const timestamp = accepted.headers['x-webhook-timestamp'] as string;
    expect(verifyWebhook(secret, { timestamp, signature: accepted.headers['x-webhook-signature'] as string }, accepted.body, Math.floor(Date.now() / 1000))).toBe(true);
    const [delivery] = await listDeliveries(t.database, w.partner.id, { limit: 5 });
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, lastStatusCode: 204 });
    expect(delivery?.attemptLog.map((a) => [a.statusCode, a.succeeded])).toEqual([[503, false], [503, false], [204, true]]);
  });

  it('an unreachable receiver neither slows nor fails the call that caused the event, and ends failed after the last attempt', async () => {
    const hook = await receiver(() => 204);
    hook.server.close();
    const { w, receive } = await world(hook.url);
    const started = performance.now();
    await receive();
    expect(performance.now() - started).toBeLessThan(1000);
    const worker = createWebhookWorker({ database: t.database, cipher, logger: pino({ level: 'silent' }), pollMs: 10, timeoutMs: 500, retry: fastRetry });
    worker.start();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const [d] = await listDeliveries(t.database, w.partner.id, { limit: 1 });
      if (d?.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await worker.stop();
    const [delivery] = await listDeliveries(t.database, w.partner.id, { limit: 1 });
    expect(delivery).toMatchObject({ status: 'failed', attempts: 4, lastStatusCode: null });
    expect(delivery?.lastError).toMatch(/ECONNREFUSED|fetch failed/);
  });

  it('two workers deliver 40 events exactly once between them', { timeout: 30_000 }, async () => {
    const hook = await receiver(() => 200);
    const { w } = await world(hook.url);
    for (let i = 0; i < 40; i += 1) {
      const inbound = await createInbound(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, sourceType: 'purchase', sourceId: i, sourceCode: `PO-${i}`, createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: 1 }] }, new Date());
      await receiveInbound(t.database, { tenantId: w.tenant.id, id: inbound.shipment.id, actor: w.actor, receipts: [{ itemId: inbound.details[0]!.row.id, quantity: 1 }] }, new Date());
    }
    const workers = [0, 1].map(() => createWebhookWorker({ database: dialect === 'postgres' ? t.connectAgain() : t.database, cipher, logger: pino({ level: 'silent' }), pollMs: 10, batchSize: 5 }));
    workers.forEach((w) => w.start());
    const deadline = Date.now() + 15_000;
    while (hook.received.length < 40 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 200));
    await Promise.all(workers.map((w) => w.stop()));
    hook.server.close();
    const ids = hook.received.map((r) => r.headers['x-webhook-id']);
    expect(ids).toHaveLength(40);
    expect(new Set(ids).size).toBe(40);
  });
});
