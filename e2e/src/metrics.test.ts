// Operations end to end (issue 14): the gateway, the internal API and the webhook worker run as
// real processes, each with its metrics on an operator port of its own (127.0.0.1). After real
// traffic (a 2xx, a 4xx, a rate-limited request, an idempotent replay, a webhook delivery to a
// receiver) each operator port is scraped and every metric is found with its labels; a partner key
// on the partner port gets the contract's 404 for /metrics. The log lines of each process carry the
// same field names, and the gateway's the trace id of a traceparent header; every line of each process
// has the same base keys (hostname among them) and only snake_case keys.
import { hostname as osHostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_LOG_FIELDS, REQUEST_LOG_FIELDS, metricSample } from '@pits/service-runtime';
import { e2eDialects } from './harness/e2e-database.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { expectError } from './harness/error-envelope.js';
import { freePort } from './harness/free-port.js';
import { readGatewayResponse } from './harness/gateway-response.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import { createProduct, createShipment } from './harness/inbound-fixtures.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { pollUntil } from './harness/poll-until.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { type WebhookReceiver, startWebhookReceiver } from './harness/webhook-receiver.js';
import { type WorkerProcess, startWorkerProcess } from './harness/webhook-worker-process.js';

const dialects = await e2eDialects();
const ALLOW_PRIVATE = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
/** The per-operation buckets (inbound.list among them) allow this many calls per window. */
const OPERATION_LIMIT = 3;

/** The JSON lines of a process's output (the harness prefixes each line with its stream). */
function jsonLines(output: readonly string[]): Record<string, unknown>[] {
  return output.flatMap((line) => {
    const start = line.indexOf('{');
    if (start < 0) return [];
    try {
      return [JSON.parse(line.slice(start)) as Record<string, unknown>];
    } catch {
      return [];
    }
  });
}

async function scrape(url: string): Promise<string> {
  const res = await fetch(url);
  expect(res.status, `scrape of ${url}`).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

describe.each(dialects)('[%s] metrics and logs', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let worker: WorkerProcess;
  let receiver: WebhookReceiver;
  let partner: OnboardedPartner;
  const ports = { gateway: 0, internalApi: 0, worker: 0 };

  beforeAll(async () => {
    ports.gateway = await freePort();
    ports.internalApi = await freePort();
    ports.worker = await freePort();
    stack = await startStack(dialect, {
      gatewayEnv: { ...ALLOW_PRIVATE, RATE_LIMIT_OPERATION: String(OPERATION_LIMIT), GATEWAY_METRICS_PORT: String(ports.gateway) },
      internalApiEnv: { INTERNAL_API_METRICS_PORT: String(ports.internalApi) },
    });
    gw = gatewayClient(stack.gateway.url);
    worker = await startWorkerProcess({
      databaseUrl: stack.database.url,
      credentialsKey: stack.credentialsKey,
      env: { ...ALLOW_PRIVATE, WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_WORKER_METRICS_PORT: String(ports.worker) },
    });
    receiver = await startWebhookReceiver('metrics');
    partner = await onboardPartner(stack.internal, gw, { label: 'Metered' });
  });
  afterAll(async () => {
    await worker?.stop(5000);
    await receiver?.close();
    await stack?.stop();
  });
  showOutputOnFailure(() => stack?.services() ?? []);

  it('counts traffic on every operator port with the right labels, and a partner key cannot read /metrics', async () => {
    const tenant = partner.tenants[0]!;
    // 2xx with a traceparent, and a 4xx (unmatched path).
    const listed = await gw.get('/api/partner/v1/tenants/locations', { key: partner.key, tenant: tenant.id, headers: { traceparent: `00-${TRACE_ID}-00f067aa0ba902b7-01` } });
    expect(listed.status, listed.text).toBe(200);
    const tracedRequestId = listed.headers['x-request-id'];

    // The partner port has no /metrics: the contract's 404 envelope, with a key or without.
    for (const headers of [{ authorization: `Bearer ${partner.key}` }, {}]) {
      const refused = await fetch(`${stack.gateway.url}/metrics`, { headers });
      expectError(await readGatewayResponse(stack.gateway.url, 'GET', '/metrics', refused), 'NOT_FOUND');
    }
    for (const port of Object.values(ports)) expect(String(port)).not.toBe(new URL(stack.gateway.url).port);

    // A webhook delivered to the receiver, caused by a receipt sent with an Idempotency-Key and replayed once.
    const hook = await gw.post('/api/partner/v1/webhooks', { url: receiver.url, event_types: ['inbound.status_changed'] }, { key: partner.key });
    expect(hook.status, hook.text).toBe(201);
    const product = await createProduct(stack.internal, tenant.id, 'Metered');
    const shipment = await createShipment(stack.internal, tenant.id, tenant.locationIds[0]!, [[product.id, 5]]);
    const receive = () =>
      gw.post(`/api/partner/v1/inbound/${shipment.id}/receive`, { items: [{ item_id: String(shipment.lines[0]!.id), received_quantity: 2 }] }, {
        key: partner.key,
        tenant: tenant.id,
        template: '/api/partner/v1/inbound/{id}/receive',
        headers: { 'idempotency-key': `metrics-${dialect}` },
      });
    const first = await receive();
    expect(first.status, first.text).toBe(200);
    const replay = await receive();
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    await receiver.waitForArrivals(1, 30_000);

    // Rate-limited: the inbound.list bucket allows OPERATION_LIMIT calls.
    const statuses: number[] = [];
    for (let i = 0; i <= OPERATION_LIMIT; i += 1) statuses.push((await gw.get('/api/partner/v1/inbound', { key: partner.key, tenant: tenant.id })).status);
    expect(statuses.at(-1)).toBe(429);

    const gateway = await scrape(`http://127.0.0.1:${ports.gateway}/metrics`);
    const g = { app: 'gateway' };
    const locations = { ...g, route: '/api/partner/v1/tenants/locations', method: 'GET', status: '200' };
    expect(metricSample(gateway, 'pits_http_requests_total', locations)).toBeGreaterThanOrEqual(1);
    expect(metricSample(gateway, 'pits_http_request_duration_seconds_count', locations)).toBeGreaterThanOrEqual(1);
    expect(metricSample(gateway, 'pits_http_request_duration_seconds_bucket', { ...locations, le: '+Inf' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(gateway, 'pits_http_requests_total', { ...g, route: 'unmatched', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(gateway, 'pits_http_requests_total', { ...g, route: '/api/partner/v1/inbound', method: 'GET', status: '429' })).toBe(1);
    expect(metricSample(gateway, 'pits_rate_limit_refusals_total', { ...g, limit: 'inbound.list' })).toBe(1);
    expect(metricSample(gateway, 'pits_idempotency_replays_total', g)).toBe(1);
    expect(metricSample(gateway, 'pits_db_pool_connections', { ...g, state: 'total' })).toBeGreaterThanOrEqual(1);
    for (const state of ['idle', 'waiting']) expect(metricSample(gateway, 'pits_db_pool_connections', { ...g, state })).toBeGreaterThanOrEqual(0);
    for (const kind of ['timeout', 'unavailable', 'conflict', 'constraint', 'other']) expect(metricSample(gateway, 'pits_db_query_errors_total', { ...g, kind })).toBeGreaterThanOrEqual(0);
    // The expiry sweep's backlog (docs/holds.md#watching-expiry): nothing due on a fresh database.
    expect(metricSample(gateway, 'pits_reservations_due', g)).toBe(0);
    expect(metricSample(gateway, 'pits_reservations_oldest_due_age_seconds', g)).toBe(0);
    expect(metricSample(gateway, 'pits_reservation_expiry_set_aside_total', g)).toBe(0);
    expect(metricSample(gateway, 'pits_event_loop_busy_seconds_total', g)).toBeGreaterThan(0);
    // No raw path (with its ids) ever becomes a label.
    expect(gateway).not.toContain(`/api/partner/v1/inbound/${shipment.id}`);

    const internal = await scrape(`http://127.0.0.1:${ports.internalApi}/metrics`);
    const i = { app: 'internal-api' };
    expect(metricSample(internal, 'pits_http_requests_total', { ...i, route: 'inbound.create', method: 'POST', status: '200' })).toBe(1);
    expect(metricSample(internal, 'pits_http_request_duration_seconds_count', { ...i, route: 'products.create', method: 'POST', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(internal, 'pits_db_pool_connections', { ...i, state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(internal, 'pits_db_query_errors_total', { ...i, kind: 'other' })).toBeGreaterThanOrEqual(0);
    expect(metricSample(internal, 'pits_event_loop_busy_seconds_total', i)).toBeGreaterThan(0);

    const workerText = await pollUntil('the worker to count the delivery', 10_000, async () => {
      const text = await scrape(`http://127.0.0.1:${ports.worker}/metrics`);
      return (metricSample(text, 'pits_webhook_deliveries_total', { outcome: 'delivered' }) ?? 0) >= 1 ? text : undefined;
    }, 100);
    const w = { app: 'webhook-worker' };
    expect(metricSample(workerText, 'pits_webhook_deliveries_total', { ...w, outcome: 'delivered' })).toBe(1);
    expect(metricSample(workerText, 'pits_webhook_deliveries_total', { ...w, outcome: 'failed' })).toBe(0);
    expect(metricSample(workerText, 'pits_webhook_delivery_duration_seconds_count', { ...w, outcome: 'delivered' })).toBe(1);
    expect(metricSample(workerText, 'pits_webhook_backlog', w)).toBe(0);
    expect(metricSample(workerText, 'pits_db_pool_connections', { ...w, state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(workerText, 'pits_event_loop_busy_seconds_total', w)).toBeGreaterThan(0);

    // One log schema: the gateway's line for the traced request, the internal API's per call, the worker's per delivery.
    const gatewayLine = jsonLines(stack.gateway.output()).find((l) => l.request_id === tracedRequestId);
    expect(gatewayLine).toMatchObject({ app: 'gateway', route: '/api/partner/v1/tenants/locations', status: 200, partner_id: partner.id, tenant_id: tenant.id, trace_id: TRACE_ID });
    for (const field of REQUEST_LOG_FIELDS) expect(gatewayLine).toHaveProperty(field);
    const internalLine = jsonLines(stack.internalApi.output()).find((l) => l.route === 'inbound.create');
    expect(internalLine).toMatchObject({ app: 'internal-api', method: 'POST', status: 200, tenant_id: tenant.id });
    for (const field of REQUEST_LOG_FIELDS) expect(internalLine).toHaveProperty(field);
    const delivered = jsonLines(worker.output()).find((l) => l.outcome === 'delivered');
    expect(delivered).toMatchObject({ app: 'webhook-worker', event_id: receiver.arrivals[0]!.id, status: 200, attempt: 1, msg: 'webhook delivered' });
    for (const field of ['event_id', 'endpoint_id', 'delivery_id', 'attempt', 'status', 'duration_ms', 'outcome']) expect(delivered).toHaveProperty(field);

    // Every line of every process, start-up lines included: the same base keys, hostname among them, and only snake_case keys.
    const hostname = osHostname();
    for (const [app, output] of [['gateway', stack.gateway.output()], ['internal-api', stack.internalApi.output()], ['webhook-worker', worker.output()]] as const) {
      const lines = jsonLines(output);
      expect(lines.length, `${app} logged`).toBeGreaterThanOrEqual(2);
      for (const line of lines) {
        expect(line, `${app}: ${JSON.stringify(line)}`).toMatchObject({ app, hostname, pid: expect.any(Number) as number, msg: expect.any(String) as string });
        for (const field of BASE_LOG_FIELDS) expect(line, `${app}: ${JSON.stringify(line)}`).toHaveProperty(field);
        expect(Object.keys(line).filter((key) => !/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/.test(key)), `${app}: ${JSON.stringify(line)}`).toEqual([]);
      }
    }
    expect(jsonLines(worker.output()).find((l) => l.msg === 'webhook worker started')).toMatchObject({ worker_id: expect.any(String) as string, allow_private_urls: true });
  });
});
