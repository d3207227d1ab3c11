// Webhooks end to end (docs/webhooks.md): partners register endpoints through the gateway, a real
// delivery worker process POSTs signed events to real HTTP receivers on the loopback, retries on
// failure with the published schedule, records every attempt, never slows the API call that caused
// the event, loses no event when it is killed mid-delivery, and redelivers on request.
import { createHmac } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { freePort } from './harness/free-port.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { JsonBody } from './harness/gateway-response.js';
import { type ShipmentView, createProduct, createShipment } from './harness/inbound-fixtures.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { type LiveContract, expectWebhookContract, liveContract } from './harness/openapi-contract.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { pollUntil } from './harness/poll-until.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { type ReceiverPolicy, type WebhookArrival, type WebhookReceiver, startWebhookReceiver } from './harness/webhook-receiver.js';
import { type WorkerProcess, startWorkerProcess } from './harness/webhook-worker-process.js';

const WEBHOOKS = '/api/partner/v1/webhooks';
const DELIVERIES = '/api/partner/v1/webhooks/deliveries';
const REDELIVER = '/api/partner/v1/webhooks/deliveries/{id}/redeliver';
const EVENT = 'inbound.status_changed';

/**
 * Every worker of this file: a short request timeout and the shortest lease it allows (timeout +
 * 1 s), so a killed worker's claim runs out in seconds. The retry schedule is the production one.
 * The receivers listen on 127.0.0.1, a private address: the gateway and the workers are told to
 * allow it, as an operator would for development (webhook-url-policy.test.ts runs without it).
 */
const WORKER_TIMEOUT_MS = 3000;
const ALLOW_PRIVATE = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
const WORKER_ENV = { WEBHOOK_TIMEOUT_MS: String(WORKER_TIMEOUT_MS), WEBHOOK_LEASE_MS: String(WORKER_TIMEOUT_MS + 1000), ...ALLOW_PRIVATE };

const MILLIS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dialects = await e2eDialects();

describe.each(dialects)('[%s] webhooks', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let worker: WorkerProcess;
  let contract: LiveContract;
  const workers: WorkerProcess[] = [];
  const receivers: WebhookReceiver[] = [];

  const startWorker = async (name: string) => {
    const started = await startWorkerProcess({ databaseUrl: stack.database.url, credentialsKey: stack.credentialsKey, name, env: WORKER_ENV });
    workers.push(started);
    return started;
  };
  const receiver = async (name: string, policy?: ReceiverPolicy) => {
    const started = await startWebhookReceiver(name, policy);
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: ALLOW_PRIVATE });
    gw = gatewayClient(stack.gateway.url);
    worker = await startWorker('webhook-worker-1');
    contract = await liveContract(stack.gateway.url);
  });
  afterAll(async () => {
    try {
      await Promise.all(workers.map((w) => w.stop(5000)));
      await Promise.all(receivers.map((r) => r.close()));
    } finally {
      await stopAfterLedgerCheck(stack);
    }
  });
  showOutputOnFailure(() => stack?.services() ?? []);
  afterEach((context) => {
    if (context.task.result?.state === 'fail') for (const w of workers) console.error(w.describe(40));
  });

  const register = async (partner: OnboardedPartner, url: string, description = 'e2e receiver') => {
    const res = await gw.post(WEBHOOKS, { url, event_types: [EVENT], description }, { key: partner.key });
    expect(res.status, res.text).toBe(201);
    return { id: res.body.data.webhook.id as string, secret: res.body.data.webhook.signing_secret as string, body: res.body };
  };
  const deliveries = async (partner: OnboardedPartner, query: Record<string, string | number> = {}) => {
    const res = await gw.get(DELIVERIES, { key: partner.key, query });
    expect(res.status, res.text).toBe(200);
    return res.body.data.deliveries as JsonBody[];
  };
  /** The partner's one delivery to `endpointId`, once `ready` holds for it. */
  const deliveryWhen = (partner: OnboardedPartner, endpointId: string, what: string, timeoutMs: number, ready: (d: JsonBody) => boolean) =>
    pollUntil(`delivery to endpoint ${endpointId}: ${what}`, timeoutMs, async () => {
      const rows = await deliveries(partner, { endpoint_id: endpointId });
      expect(rows.length, 'one event, one delivery').toBeLessThanOrEqual(1);
      return rows[0] && ready(rows[0]) ? rows[0] : undefined;
    }, 200);
  /** An inbound status change (pending → partial) for the partner's first tenant, caused by a receipt through the gateway. */
  const causeEvent = async (partner: OnboardedPartner) => {
    const tenant = partner.tenants[0]!;
    const product = await createProduct(stack.internal, tenant.id, 'Hook');
    const shipment = await createShipment(stack.internal, tenant.id, tenant.locationIds[0]!, [[product.id, 5]]);
    const started = performance.now();
    const res = await gw.post(`/api/partner/v1/inbound/${shipment.id}/receive`, { items: [{ item_id: String(shipment.lines[0]!.id), received_quantity: 2 }] }, {
      key: partner.key,
      tenant: tenant.id,
      template: '/api/partner/v1/inbound/{id}/receive',
    });
    const latencyMs = performance.now() - started;
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.inbound.status).toBe('partial');
    return { shipment, tenant, latencyMs };
  };
  /** Verifies the delivery the way a partner would: HMAC-SHA256 of `<timestamp>.<raw body>` with the secret, a fresh timestamp, and the documented event. */
  const expectSignedEvent = (arrival: WebhookArrival, secret: string, expected: { tenantId: string; shipment: ShipmentView; previous: string; status: string }) => {
    expect(arrival.method).toBe('POST');
    expect(arrival.contentType).toMatch(/^application\/json/);
    expect(arrival.timestamp).toMatch(/^\d+$/);
    expect(Math.abs(Date.now() / 1000 - Number(arrival.timestamp)), 'timestamp is fresh').toBeLessThan(300);
    const mac = createHmac('sha256', secret).update(`${arrival.timestamp}.${arrival.body}`, 'utf8').digest('hex');
    expect(arrival.signature, 'X-Webhook-Signature verifies with the signing secret').toBe(`v1=${mac}`);
    const payload = JSON.parse(arrival.body) as JsonBody;
    expect(payload).toEqual({
      event_id: arrival.id,
      type: EVENT,
      occurred_at: expect.stringMatching(MILLIS),
      tenant_id: expected.tenantId,
      resource: { type: 'inbound', id: String(expected.shipment.id) },
      data: { inbound_id: expected.shipment.id, code: expected.shipment.code, previous_status: expected.previous, status: expected.status },
    });
    expect(arrival.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // What /openapi.json publishes under `webhooks` for this type: the payload schema and the headers.
    expectWebhookContract(contract, { body: arrival.body, headers: { 'x-webhook-id': arrival.id, 'x-webhook-timestamp': arrival.timestamp, 'x-webhook-signature': arrival.signature } });
    return payload;
  };

  describe('endpoints', () => {
    it('register (201, secret shown once), list without the secret, delete', async () => {
      const partner = await onboardPartner(stack.internal, gw, { label: 'HookCrud', tenants: 0 });
      const other = await onboardPartner(stack.internal, gw, { label: 'HookOther', tenants: 0 });
      const first = await register(partner, 'http://127.0.0.1:9/hooks/pits', 'warehouse app');
      expect(first.body).toMatchObject({ status: 'ok', errors: null });
      expect(first.body.data.webhook).toEqual({
        id: expect.stringMatching(/^\d+$/),
        url: 'http://127.0.0.1:9/hooks/pits',
        event_types: [EVENT],
        description: 'warehouse app',
        is_active: true,
        created_at: expect.stringMatching(MILLIS),
        updated_at: expect.stringMatching(MILLIS),
        signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{24,}$/),
      });
      const second = await register(partner, 'http://127.0.0.1:9/second');
      expect(second.secret).not.toBe(first.secret);
      const theirs = await register(other, 'http://127.0.0.1:9/hook');

      const listed = await gw.get(WEBHOOKS, { key: partner.key });
      expect(listed.status, listed.text).toBe(200);
      const { signing_secret: _secret, ...shown } = first.body.data.webhook as JsonBody;
      expect(listed.body.data.webhooks.map((w: JsonBody) => w.id)).toEqual([first.id, second.id]);
      expect(listed.body.data.webhooks[0]).toEqual(shown);
      for (const secret of [first.secret, second.secret, theirs.secret]) expect(listed.text, 'no secret in the list').not.toContain(secret);
      expect(listed.text).not.toContain('signing_secret');

      // PATCH changes the event types and pauses the endpoint; the answer is the endpoint as it now is, without its secret.
      const patch = (id: string, json: unknown, key = partner.key) => gw.request('PATCH', `${WEBHOOKS}/${id}`, { key, json, template: `${WEBHOOKS}/{id}` });
      const paused = await patch(second.id, { event_types: ['reservation.status_changed', 'stock.level_changed'], active: false });
      expect(paused.status, paused.text).toBe(200);
      expect(paused.body.data.webhook).toMatchObject({ id: second.id, url: 'http://127.0.0.1:9/second', event_types: ['reservation.status_changed', 'stock.level_changed'], is_active: false });
      expect(paused.text).not.toContain('signing_secret');
      expect((await gw.get(WEBHOOKS, { key: partner.key })).body.data.webhooks[1]).toMatchObject({ id: second.id, is_active: false });
      expectError(await patch(second.id, {}), 'VALIDATION_ERROR', '');
      expectError(await patch(second.id, { active: 'yes' }), 'VALIDATION_ERROR', 'active');
      expectError(await patch(second.id, { event_types: [EVENT, EVENT] }), 'VALIDATION_ERROR', 'event_types[1]');
      expectError(await patch(theirs.id, { active: false }), 'NOT_FOUND');
      expect((await patch(second.id, { active: true })).body.data.webhook).toMatchObject({ event_types: ['reservation.status_changed', 'stock.level_changed'], is_active: true });

      // Another partner's endpoint is not found, and stays.
      expectError(await gw.request('DELETE', `${WEBHOOKS}/${theirs.id}`, { key: partner.key, template: `${WEBHOOKS}/{id}` }), 'NOT_FOUND');
      const deleted = await gw.request('DELETE', `${WEBHOOKS}/${first.id}`, { key: partner.key, template: `${WEBHOOKS}/{id}` });
      expect(deleted.status, deleted.text).toBe(200);
      expect(deleted.body).toMatchObject({ status: 'ok', data: null, errors: null });
      expect((await gw.get(WEBHOOKS, { key: partner.key })).body.data.webhooks.map((w: JsonBody) => w.id)).toEqual([second.id]);
      expectError(await gw.request('DELETE', `${WEBHOOKS}/${first.id}`, { key: partner.key, template: `${WEBHOOKS}/{id}` }), 'NOT_FOUND');
      for (const id of ['999999999', 'abc']) expectError(await gw.request('DELETE', `${WEBHOOKS}/${id}`, { key: partner.key, template: `${WEBHOOKS}/{id}` }), 'NOT_FOUND');
      expect((await gw.get(WEBHOOKS, { key: other.key })).body.data.webhooks.map((w: JsonBody) => w.id)).toEqual([theirs.id]);
    });

    it('refusals: invalid registrations are 422 on the field, bad JSON 400, no key 401, bad deliveries queries 422', async () => {
      const partner = await onboardPartner(stack.internal, gw, { label: 'HookRefuse', tenants: 0 });
      const ok = { url: 'https://partner.example/hook', event_types: [EVENT] };
      const refusals: Array<[unknown, string]> = [
        [{ event_types: [EVENT] }, 'url'],
        [{ ...ok, url: 'ftp://partner.example/hook' }, 'url'],
        [{ ...ok, url: 'not a url' }, 'url'],
        [{ ...ok, url: `https://partner.example/${'x'.repeat(2000)}` }, 'url'],
        [{ ...ok, url: 42 }, 'url'],
        [{ url: ok.url }, 'event_types'],
        [{ ...ok, event_types: [] }, 'event_types'],
        [{ ...ok, event_types: ['inbound.created'] }, 'event_types[0]'],
        [{ ...ok, event_types: [EVENT, 'transfer.status_changed', EVENT] }, 'event_types[2]'],
        [{ ...ok, description: 'd'.repeat(201) }, 'description'],
      ];
      for (const [body, field] of refusals) expectError(await gw.post(WEBHOOKS, body, { key: partner.key }), 'VALIDATION_ERROR', field);
      expectError(await gw.request('POST', WEBHOOKS, { key: partner.key, rawBody: '{"url": ' }), 'INVALID_REQUEST');
      expectError(await gw.post(WEBHOOKS, ok, {}), 'UNAUTHORIZED');
      expectError(await gw.get(WEBHOOKS, {}), 'UNAUTHORIZED');
      expect((await gw.get(WEBHOOKS, { key: partner.key })).body.data.webhooks, 'nothing was registered').toEqual([]);

      for (const limit of [0, 101, 'x']) expectError(await gw.get(DELIVERIES, { key: partner.key, query: { limit } }), 'VALIDATION_ERROR', 'limit');
      expectError(await gw.get(DELIVERIES, { key: partner.key, query: { status: 'done' } }), 'VALIDATION_ERROR', 'status');
      expectError(await gw.get(DELIVERIES, { key: partner.key, query: { endpoint_id: 'abc' } }), 'VALIDATION_ERROR', 'endpoint_id');
      for (const id of ['999999999', 'abc']) expectError(await gw.post(`${DELIVERIES}/${id}/redeliver`, {}, { key: partner.key, template: REDELIVER }), 'NOT_FOUND');
    });
  });

  describe('delivery by a real worker process', () => {
    // The production schedule waits 10-12 s before the 2nd attempt and 40-48 s before the 3rd, so
    // this test takes about a minute: it runs on SQLite only to keep the file within its budget.
    it.skipIf(dialect !== 'sqlite')(
      '(a) a receiver failing twice gets the event accepted exactly once on the 3rd attempt, signed, with every attempt recorded',
      async () => {
        const partner = await onboardPartner(stack.internal, gw, { label: 'HookRetry', tenants: 1 });
        const flaky = await receiver('flaky', (a) => (a.seq === 1 ? 500 : a.seq === 2 ? 503 : 200));
        const endpoint = await register(partner, flaky.url);
        const { shipment, tenant } = await causeEvent(partner);

        const [first] = await flaky.waitForArrivals(1, 5000);
        const second = (await flaky.waitForArrivals(2, 16_000))[1]!;
        const third = (await flaky.waitForArrivals(3, 52_000))[2]!;
        expect([first!.outcome, second.outcome, third.outcome]).toEqual([500, 503, 200]);
        expect(new Set([first!.id, second.id, third.id]).size, 'every attempt carries the same X-Webhook-Id').toBe(1);
        expect(second.body).toBe(first!.body);
        expect(third.body).toBe(first!.body);
        for (const arrival of [first!, second, third]) expectSignedEvent(arrival, endpoint.secret, { tenantId: tenant.id, shipment, previous: 'pending', status: 'partial' });
        // The published schedule: 10 s then 40 s, each stretched by up to 20 %.
        expect(second.arrivedAt - first!.arrivedAt).toBeGreaterThanOrEqual(9_500);
        expect(second.arrivedAt - first!.arrivedAt).toBeLessThan(14_000);
        expect(third.arrivedAt - second.arrivedAt).toBeGreaterThanOrEqual(39_500);
        expect(third.arrivedAt - second.arrivedAt).toBeLessThan(50_000);

        const delivery = await deliveryWhen(partner, endpoint.id, 'succeeded', 5000, (d) => d.status === 'succeeded');
        expect(delivery).toEqual({
          id: expect.stringMatching(/^\d+$/),
          event_id: first!.id,
          event_type: EVENT,
          endpoint_id: endpoint.id,
          url: flaky.url,
          status: 'succeeded',
          attempts: 3,
          next_attempt_at: null,
          last_status_code: 200,
          last_error: null,
          delivered_at: expect.stringMatching(MILLIS),
          created_at: expect.stringMatching(MILLIS),
          attempt_log: [
            { attempt: 1, started_at: expect.stringMatching(MILLIS), duration_ms: expect.any(Number), status_code: 500, error: 'HTTP 500', response_body: 'not now', succeeded: false },
            { attempt: 2, started_at: expect.stringMatching(MILLIS), duration_ms: expect.any(Number), status_code: 503, error: 'HTTP 503', response_body: 'not now', succeeded: false },
            { attempt: 3, started_at: expect.stringMatching(MILLIS), duration_ms: expect.any(Number), status_code: 200, error: null, response_body: 'ok', succeeded: true },
          ],
        });
        await sleep(1500);
        expect(flaky.arrivals, 'nothing arrives after the accepted attempt').toHaveLength(3);
        expect(flaky.acceptedCount(first!.id!), 'accepted exactly once').toBe(1);
      },
      90_000,
    );

    it('(b) a receiver that is down, or that never answers, neither slows nor fails the API call; the failed attempts are recorded', async () => {
      const partner = await onboardPartner(stack.internal, gw, { label: 'HookDown', tenants: 1 });
      const silent = await receiver('silent', () => 'hold');
      const down = await register(partner, `http://127.0.0.1:${await freePort()}/hooks/down`);
      const hanging = await register(partner, silent.url);

      const { latencyMs, shipment } = await causeEvent(partner);
      expect(latencyMs, `the receive call took ${Math.round(latencyMs)} ms; the worker waits up to ${WORKER_TIMEOUT_MS} ms per delivery`).toBeLessThan(WORKER_TIMEOUT_MS / 3);

      const refused = await deliveryWhen(partner, down.id, 'a failed attempt', 5000, (d) => d.attempts >= 1);
      expect(refused).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null, last_error: 'connection refused', delivered_at: null });
      expect(refused.attempt_log).toEqual([{ attempt: 1, started_at: expect.stringMatching(MILLIS), duration_ms: expect.any(Number), status_code: null, error: 'connection refused', response_body: null, succeeded: false }]);
      const retryIn = Date.parse(refused.next_attempt_at) - Date.parse(refused.attempt_log[0].started_at);
      expect(retryIn, 'the next attempt follows the schedule (10 s, up to 20 % more)').toBeGreaterThanOrEqual(10_000);
      expect(retryIn).toBeLessThanOrEqual(12_500);

      const timedOut = await deliveryWhen(partner, hanging.id, 'a timed-out attempt', WORKER_TIMEOUT_MS + 5000, (d) => d.attempts >= 1);
      expect(timedOut).toMatchObject({ status: 'pending', attempts: 1, last_status_code: null, last_error: `timeout after ${WORKER_TIMEOUT_MS} ms` });
      expect(timedOut.attempt_log[0].duration_ms).toBeGreaterThanOrEqual(WORKER_TIMEOUT_MS - 100);
      expect(silent.arrivals[0]!.outcome, 'the worker gave up on the silent receiver').toBe('aborted');

      // The API call's effect stands; a delivery still pending cannot be redelivered.
      const read = await gw.get(`/api/partner/v1/inbound/${shipment.id}`, { key: partner.key, tenant: partner.tenants[0]!.id, template: '/api/partner/v1/inbound/{id}' });
      expect(read.body.data.inbound.status).toBe('partial');
      expectError(await gw.post(`${DELIVERIES}/${refused.id}/redeliver`, {}, { key: partner.key, template: REDELIVER }), 'INVALID_STATE');

      // Deleting the endpoints ends their pending deliveries (and keeps their retries out of the next tests).
      for (const endpoint of [down, hanging]) {
        const res = await gw.request('DELETE', `${WEBHOOKS}/${endpoint.id}`, { key: partner.key, template: `${WEBHOOKS}/{id}` });
        expect(res.status, res.text).toBe(200);
      }
      const ended = await deliveries(partner);
      expect(ended.map((d) => [d.endpoint_id, d.status, d.last_error]).sort()).toEqual(
        [
          [down.id, 'failed', 'endpoint deleted'],
          [hanging.id, 'failed', 'endpoint deleted'],
        ].sort(),
      );
    });

    it('(d) redelivering a succeeded delivery sends the same event again, with the same X-Webhook-Id', async () => {
      const partner = await onboardPartner(stack.internal, gw, { label: 'HookAgain', tenants: 1 });
      const stranger = await onboardPartner(stack.internal, gw, { label: 'HookStranger', tenants: 0 });
      const happy = await receiver('happy');
      const endpoint = await register(partner, happy.url);
      const { shipment, tenant } = await causeEvent(partner);
      const [first] = await happy.waitForArrivals(1, 5000);
      const delivered = await deliveryWhen(partner, endpoint.id, 'succeeded', 5000, (d) => d.status === 'succeeded');
      expect(delivered).toMatchObject({ event_id: first!.id, attempts: 1 });

      expectError(await gw.post(`${DELIVERIES}/${delivered.id}/redeliver`, {}, { key: stranger.key, template: REDELIVER }), 'NOT_FOUND');
      const res = await gw.post(`${DELIVERIES}/${delivered.id}/redeliver`, {}, { key: partner.key, template: REDELIVER });
      expect(res.status, res.text).toBe(200);
      expect(res.body).toMatchObject({ status: 'ok', data: null, errors: null });

      const again = (await happy.waitForArrivals(2, 5000))[1]!;
      expect(again.id, 'same X-Webhook-Id').toBe(first!.id);
      expect(again.body, 'same event body').toBe(first!.body);
      expectSignedEvent(again, endpoint.secret, { tenantId: tenant.id, shipment, previous: 'pending', status: 'partial' });
      const after = await deliveryWhen(partner, endpoint.id, 'succeeded twice', 5000, (d) => d.status === 'succeeded' && d.attempts === 2);
      expect(after.attempt_log.map((a: JsonBody) => [a.attempt, a.status_code, a.succeeded])).toEqual([
        [1, 200, true],
        [2, 200, true],
      ]);
      expect(after.id).toBe(delivered.id);
    });

    it('(c) a worker killed (SIGKILL) mid-delivery loses no event: a new worker delivers it once its lease runs out', async () => {
      const partner = await onboardPartner(stack.internal, gw, { label: 'HookCrash', tenants: 1 });
      // Holds every request open until told otherwise: the worker is killed while it waits.
      const slow = await receiver('slow', () => 'hold');
      const endpoint = await register(partner, slow.url);
      const { shipment, tenant } = await causeEvent(partner);

      const [held] = await slow.waitForArrivals(1, 5000);
      expect(held!.outcome).toBe('held');
      const exit = await worker.kill('SIGKILL');
      expect(exit.signal).toBe('SIGKILL');
      await pollUntil('the held request to be dropped with its worker', 2000, () => (held!.outcome === 'aborted' ? true : undefined), 25);
      slow.answerWith(() => 200);

      worker = await startWorker('webhook-worker-2');
      const redelivered = (await slow.waitForArrivals(2, WORKER_TIMEOUT_MS + 1000 + 8000))[1]!;
      expect(redelivered.id, 'the same event').toBe(held!.id);
      expect(redelivered.body).toBe(held!.body);
      expect(redelivered.outcome).toBe(200);
      expect(redelivered.arrivedAt - held!.arrivedAt, 'sent again only once the killed worker’s lease ran out').toBeGreaterThanOrEqual(WORKER_TIMEOUT_MS + 1000 - 500);
      expectSignedEvent(redelivered, endpoint.secret, { tenantId: tenant.id, shipment, previous: 'pending', status: 'partial' });

      const delivery = await deliveryWhen(partner, endpoint.id, 'succeeded', 5000, (d) => d.status === 'succeeded');
      expect(delivery).toMatchObject({ event_id: held!.id, last_status_code: 200, last_error: null, delivered_at: expect.stringMatching(MILLIS) });
      expect(delivery.attempt_log.filter((a: JsonBody) => a.succeeded)).toHaveLength(1);
      expect(delivery.attempt_log.at(-1)).toMatchObject({ status_code: 200, succeeded: true });
      await sleep(1000);
      expect(slow.arrivals, 'no further arrival').toHaveLength(2);
      expect(slow.acceptedCount(held!.id!), 'accepted exactly once').toBe(1);
    });
  });
});
