// The worker against a real HTTP receiver on loopback, on every dialect. Receivers on 127.0.0.1 are
// private addresses: the tests that deliver to them say so with allowPrivateUrls, as an operator
// would with WEBHOOK_ALLOW_PRIVATE_URLS; the others prove that without it nothing reaches them.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { type HostResolver, verifyWebhook } from '@pits/domain';
import { createCredentialCipher, createInbound, createWebhookEndpoint, listDeliveries, receiveInbound, redeliver, DATABASE_ERROR_KINDS, classifyDatabaseError } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, capabilitiesOf, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DELIVERY_LOG_FIELDS, createProcessMetrics, metricSample } from '@pits/service-runtime';
import { webhookMetrics } from './webhook-metrics.js';
import { createWebhookWorker } from './webhook-worker.js';

const dialects = await testDialects();
const cipher = createCredentialCipher('w'.repeat(64));
const fastRetry = { maxAttempts: 4, baseDelayMs: 50, factor: 2, maxDelayMs: 1000, jitter: 0.1 };

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
  answered: number;
}

/** A receiver on 127.0.0.1 that counts every TCP connection, whether or not a request follows. */
async function receiver(answer: (n: number) => number, body: (n: number) => string = () => ''): Promise<{ url: string; port: number; received: Received[]; connections: () => number; server: Server }> {
  const received: Received[] = [];
  let connections = 0;
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => {
      const status = answer(received.length + 1);
      received.push({ headers: req.headers, body: text, answered: status });
      res.writeHead(status).end(body(received.length));
    });
  });
  server.on('connection', () => (connections += 1));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, port, received, connections: () => connections, server };
}

const silent = pino({ level: 'silent' });
const until = async (what: () => Promise<boolean> | boolean, ms = 10_000) => {
  const deadline = Date.now() + ms;
  while (!(await what()) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
};

describe.each(dialects)('[%s] webhook worker', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  async function world(url: string): Promise<{ w: TenantWorld; secret: string; receive: () => Promise<unknown> }> {
    const w = await seedTenantWorld(t.database, { label: `Hook${Math.random().toString(36).slice(2, 7)}` });
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
    const { secret } = await createWebhookEndpoint(t.database, cipher, w.partner.id, { url, eventTypes: ['inbound.status_changed'] }, new Date());
    const inbound = await createInbound(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: 2 }] }, new Date());
    const receive = () => receiveInbound(t.database, { tenantId: w.tenant.id, id: inbound.id, actor: w.actor, receipts: [{ itemId: inbound.details[0]!.id, quantity: 1 }] }, new Date());
    return { w, secret, receive };
  }

  it('retries a receiver that fails twice; the event is accepted exactly once, signed, with every attempt recorded', async () => {
    const hook = await receiver((n) => (n <= 2 ? 503 : 204));
    const { w, secret, receive } = await world(hook.url);
    await receive();
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const metrics = createProcessMetrics('webhook-worker', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
    const worker = createWebhookWorker({ database: t.database, cipher, logger, pollMs: 10, retry: fastRetry, allowPrivateUrls: true, metrics: webhookMetrics(metrics.registry, t.database) });
    worker.start();
    await until(() => hook.received.filter((r) => r.answered === 204).length >= 1);
    await new Promise((r) => setTimeout(r, 300));
    await worker.stop();
    hook.server.close();
    expect(hook.received.map((r) => r.answered)).toEqual([503, 503, 204]);
    // Every attempt is logged in the shared schema, the successful one too, and counted by outcome.
    const attempts = lines.filter((l) => typeof l.event_id === 'string');
    for (const line of attempts) for (const field of DELIVERY_LOG_FIELDS) expect(line).toHaveProperty(field);
    // Failed attempts at warn (40), the delivered one at info (30).
    expect(attempts.map((l) => [l.attempt, l.status, l.outcome, l.msg, l.level])).toEqual([
      [1, 503, 'retrying', 'webhook delivery failed', 40],
      [2, 503, 'retrying', 'webhook delivery failed', 40],
      [3, 204, 'delivered', 'webhook delivered', 30],
    ]);
    expect(attempts[2]).toMatchObject({ event_id: hook.received[2]!.headers['x-webhook-id'] });
    const scraped = await metrics.registry.metrics();
    const app = { app: 'webhook-worker' };
    expect(metricSample(scraped, 'pits_webhook_deliveries_total', { ...app, outcome: 'retrying' })).toBe(2);
    expect(metricSample(scraped, 'pits_webhook_deliveries_total', { ...app, outcome: 'delivered' })).toBe(1);
    expect(metricSample(scraped, 'pits_webhook_deliveries_total', { ...app, outcome: 'failed' })).toBe(0);
    expect(metricSample(scraped, 'pits_webhook_delivery_duration_seconds_count', { ...app, outcome: 'delivered' })).toBe(1);
    expect(metricSample(scraped, 'pits_webhook_backlog', app)).toBeGreaterThanOrEqual(0);
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
    const worker = createWebhookWorker({ database: t.database, cipher, logger: silent, pollMs: 10, timeoutMs: 500, retry: fastRetry, allowPrivateUrls: true });
    worker.start();
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const [d] = await listDeliveries(t.database, w.partner.id, { limit: 1 });
      if (d?.status === 'failed') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    await worker.stop();
    const [delivery] = await listDeliveries(t.database, w.partner.id, { limit: 1 });
    // A generic reason, the same for every attempt: never the socket error's own text.
    expect(delivery).toMatchObject({ status: 'failed', attempts: 4, lastStatusCode: null, lastError: 'connection refused' });
    expect(delivery?.attemptLog.map((a) => [a.error, a.statusCode, a.responseBody])).toEqual(Array(4).fill(['connection refused', null, null]));
  });

  it('two workers deliver 40 events exactly once between them', { timeout: 30_000 }, async () => {
    const hook = await receiver(() => 200);
    const { w } = await world(hook.url);
    for (let i = 0; i < 40; i += 1) {
      const inbound = await createInbound(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, sourceType: 'purchase', sourceId: i, sourceCode: `PO-${i}`, createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: 1 }] }, new Date());
      await receiveInbound(t.database, { tenantId: w.tenant.id, id: inbound.id, actor: w.actor, receipts: [{ itemId: inbound.details[0]!.id, quantity: 1 }] }, new Date());
    }
    const workers = [0, 1].map(() => createWebhookWorker({ database: capabilitiesOf(dialect).hasRowLocks ? t.connectAgain() : t.database, cipher, logger: silent, pollMs: 10, batchSize: 5, allowPrivateUrls: true }));
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
  it('a name that resolves to a loopback address is refused without connecting, and retried like any failure; with the operator setting the same deliveries go out', async () => {
    const hook = await receiver(() => 204);
    const asked: string[] = [];
    const resolveHost: HostResolver = async (name) => {
      asked.push(name);
      return name === 'evil.test' ? ['127.0.0.1'] : [];
    };
    const { w, receive } = await world(`https://evil.test:${hook.port}/hook`);
    await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: `http://evil.test:${hook.port}/hook`, eventTypes: ['inbound.status_changed'] }, new Date());
    await receive();

    const strict = createWebhookWorker({ database: t.database, cipher, logger: silent, pollMs: 10, retry: fastRetry, resolveHost });
    strict.start();
    await until(async () => (await listDeliveries(t.database, w.partner.id, { limit: 5 })).every((d) => d.status === 'failed'));
    await strict.stop();
    const refused = await listDeliveries(t.database, w.partner.id, { limit: 5 });
    expect(refused).toHaveLength(2);
    for (const d of refused) {
      // The whole schedule was used (a DNS answer can change), and no attempt ever connected.
      expect(d).toMatchObject({ status: 'failed', attempts: fastRetry.maxAttempts, lastStatusCode: null, lastError: 'address not allowed' });
      expect(d.attemptLog.map((a) => [a.error, a.responseBody])).toEqual(Array(fastRetry.maxAttempts).fill(['address not allowed', null]));
    }
    expect(hook.connections(), 'the receiver on 127.0.0.1 saw no connection').toBe(0);
    // The https endpoint was refused on its resolved address; the http one before any lookup.
    expect(asked).toEqual(Array(fastRetry.maxAttempts).fill('evil.test'));

    for (const d of refused) await redeliver(t.database, w.partner.id, d.id, new Date());
    const lenient = createWebhookWorker({ database: t.database, cipher, logger: silent, pollMs: 10, retry: { ...fastRetry, maxAttempts: 1 }, resolveHost, allowPrivateUrls: true });
    expect(await lenient.runOnce()).toBe(2);
    const [https, http] = [...(await listDeliveries(t.database, w.partner.id, { limit: 5 }))].sort((a, b) => a.endpointId - b.endpointId);
    // evil.test exists only in the test resolver: the request reached 127.0.0.1 through the checked address.
    expect(hook.received).toHaveLength(1);
    expect(hook.received[0]!.headers.host).toBe(`evil.test:${hook.port}`);
    expect(http?.attemptLog.at(-1)).toMatchObject({ statusCode: 204, error: null, responseBody: '', succeeded: true });
    // The https endpoint connected too, to a receiver that speaks plain HTTP: a TLS error, in general words.
    expect(https?.attemptLog.at(-1)).toMatchObject({ statusCode: null, error: 'TLS error', responseBody: null, succeeded: false });
    expect(hook.connections()).toBe(2);
    hook.server.close();
  });

  it('keeps at most 1 KiB of the response body, never half a character, and stops reading there', async () => {
    const long = await receiver(() => 500, () => `${'x'.repeat(1023)}é${'y'.repeat(4000)}`);
    const { w, receive } = await world(long.url);
    await receive();
    // A receiver that sends 2 KiB and then never ends its answer: the worker must not wait for the rest.
    let hungUp = false;
    const endless = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('z'.repeat(2048));
      res.on('close', () => (hungUp = true));
    });
    endless.listen(0, '127.0.0.1');
    await once(endless, 'listening');
    await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: `http://127.0.0.1:${(endless.address() as AddressInfo).port}/endless`, eventTypes: ['inbound.status_changed'] }, new Date());
    await receive();

    const worker = createWebhookWorker({ database: t.database, cipher, logger: silent, pollMs: 10, timeoutMs: 10_000, retry: { ...fastRetry, maxAttempts: 1 }, allowPrivateUrls: true });
    expect(await worker.runOnce()).toBeGreaterThanOrEqual(2);
    const attempts = (await listDeliveries(t.database, w.partner.id, { limit: 10 })).flatMap((d) => d.attemptLog);
    const cut = attempts.find((a) => a.statusCode === 500);
    expect(cut).toMatchObject({ error: 'HTTP 500', responseBody: 'x'.repeat(1023) });
    const stopped = attempts.find((a) => a.statusCode === 200);
    expect(stopped).toMatchObject({ error: null, succeeded: true, responseBody: 'z'.repeat(1024) });
    // Waiting for the rest would have lasted until the 10 s timeout.
    expect(stopped!.durationMs, 'did not wait for the endless body').toBeLessThan(5000);
    await until(() => hungUp, 2000);
    expect(hungUp, 'the worker hung up on the endless answer').toBe(true);
    long.server.close();
    endless.closeAllConnections();
    endless.close();
  });

  it('a port that is not a web server (a database, a cache) is recorded as a generic reason, never its own words', async () => {
    const server = createTcpServer((socket) => socket.end("-ERR unknown command 'POST', internal-cache-7.corp secret banner\r\n"));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { w, receive } = await world(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await receive();
    const worker = createWebhookWorker({ database: t.database, cipher, logger: silent, retry: { ...fastRetry, maxAttempts: 1 }, allowPrivateUrls: true });
    await worker.runOnce();
    const [delivery] = await listDeliveries(t.database, w.partner.id, { limit: 1 });
    expect(delivery).toMatchObject({ status: 'failed', lastError: 'invalid HTTP response', lastStatusCode: null });
    expect(JSON.stringify(delivery)).not.toMatch(/ERR|internal-cache|banner/);
    server.close();
  });
});
