import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { REQUEST_LOG_FIELDS, metricSample } from '@pits/service-runtime';
import { type Database, approveTransfer, createReservation, createTransfer, findKeyOwner } from '@pits/persistence';
import { type TestDatabase, connectTenant, embeddedTestDialect, openTestDatabase } from '@pits/persistence/testing';
import { TRPCClientError, createInternalClient } from './client.js';
import { type InternalApiConfig, loadInternalApiConfig } from './config.js';
import { type InternalApi, createInternalApi } from './create-internal-api.js';
import { TEST_CREDENTIALS_KEY, TEST_SERVICE_TOKEN, silentLogger, testHostResolver } from './testing/test-api.js';

function testConfig(): InternalApiConfig {
  return loadInternalApiConfig({
    INTERNAL_API_PORT: '0',
    DATABASE_URL: 'sqlite::memory:',
    INTERNAL_API_TOKEN: TEST_SERVICE_TOKEN,
    CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
    LOG_LEVEL: 'silent',
    SHUTDOWN_TIMEOUT_MS: '2000',
  });
}

async function refusalOver(call: Promise<unknown>) {
  try {
    await call;
  } catch (error) {
    if (error instanceof TRPCClientError) return { message: error.message, data: error.data as Record<string, unknown> };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('internal API over HTTP (an embedded database in a file)', () => {
  let t: TestDatabase;
  let api: InternalApi;
  let url: string;
  beforeAll(async () => {
    t = await openTestDatabase(embeddedTestDialect(), { file: true });
    api = createInternalApi(testConfig(), { database: t.database, logger: silentLogger(), resolveHost: testHostResolver });
    ({ url } = await api.listen());
  });
  afterAll(async () => {
    await api.close();
    await t.cleanup();
  });

  it('serves the typed client end to end: partner, key shown once, rotation, tenant, location, masked logistics', async () => {
    const client = createInternalClient(url, TEST_SERVICE_TOKEN);
    const partner = await client.partners.create.mutate({ name: 'Acme', email: 'dev@acme.example', tier: 'small' });
    const [created, list] = await Promise.all([
      client.apiKeys.create.mutate({ partnerId: partner.id, environment: 'live' }),
      client.partners.list.query(),
    ]);
    expect(created.secret.startsWith('pk_live_')).toBe(true);
    expect(list.map((p) => p.id)).toContain(partner.id);
    const rotated = await client.apiKeys.rotate.mutate({ partnerId: partner.id, keyId: created.key.id });
    expect(await findKeyOwner(t.database, created.secret)).toBeNull();
    expect(await findKeyOwner(t.database, rotated.secret)).not.toBeNull();
    expect(JSON.stringify(await client.apiKeys.list.query({ partnerId: partner.id }))).not.toContain(rotated.secret);

    const tenant = await client.tenants.create.mutate({ name: 'Store' });
    const location = await client.locations.create.mutate({ tenantId: tenant.id, code: 'WH-1', name: 'Main' });
    expect((await client.locations.list.query({ tenantId: tenant.id })).locations).toEqual([location]);
    const preference = await client.logisticPreferences.create.mutate({
      tenantId: tenant.id, logisticProviderId: 1, logisticProviderName: 'JNE', username: 'user-name', password: 'password-1234', apiKey: 'key', apiSecret: 'secret-9999',
    });
    expect(preference).toMatchObject({ username: '*****name', password: '*********1234', apiKey: '***', apiSecret: '*******9999' });
  });

  it('serves products, stock and transfers end to end: conflicts are 409 with the kind, stock moves, books balance', async () => {
    const client = createInternalClient(url, TEST_SERVICE_TOKEN);
    const partner = await client.partners.create.mutate({ name: 'Stocker', email: 'dev@stocker.example', tier: 'medium' });
    const actor = { id: partner.id, name: partner.name, email: partner.email };
    const tenant = await client.tenants.create.mutate({ name: 'Stock Store' });
    const [from, to] = await Promise.all([
      client.locations.create.mutate({ tenantId: tenant.id, code: 'A', name: 'A' }),
      client.locations.create.mutate({ tenantId: tenant.id, code: 'B', name: 'B' }),
    ]);
    const product = await client.products.create.mutate({ tenantId: tenant.id, sku: 'SKU-HTTP', name: 'Over HTTP', costPrice: '19.9' });
    expect(product.costPrice).toBe('19.90');
    expect(await client.products.bySku.query({ tenantId: tenant.id, sku: 'SKU-HTTP' })).toEqual(product);
    const duplicate = await refusalOver(client.products.create.mutate({ tenantId: tenant.id, sku: 'SKU-HTTP', name: 'Again' }));
    expect(duplicate.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, kind: 'VALIDATION_ERROR', field: 'sku' });

    await client.stock.recordOpening.mutate({ tenantId: tenant.id, locationId: from.id, productId: product.id, good: '5', reference: 'OPEN' });
    const transfer = await createTransfer(
      t.database,
      { tenantId: tenant.id, partnerId: partner.id, actor, fromLocationId: from.id, toLocationId: to.id, transferDate: '2026-11-22', items: [{ productId: product.id, quantity: '1.5' }] },
      new Date(),
    );
    const early = await refusalOver(client.transfers.ship.mutate({ tenantId: tenant.id, number: transfer.number }));
    expect(early.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409, kind: 'INVALID_STATE', path: 'transfers.ship' });
    await approveTransfer(t.database, { tenantId: tenant.id, number: transfer.number, actor }, new Date());
    await client.transfers.ship.mutate({ tenantId: tenant.id, number: transfer.number });
    const received = await client.transfers.receive.mutate({ tenantId: tenant.id, number: transfer.number });
    expect(received).toMatchObject({ status: 'completed', totalQuantity: '1.5', totalValue: '29.85' });
    const levels = await client.stock.levels.query({ tenantId: tenant.id });
    expect(levels.levels.map((l) => [l.locationId, l.good, l.available])).toEqual([[from.id, '3.5', '3.5'], [to.id, '1.5', '1.5']]);
    expect(await client.stock.checkLedger.query()).toEqual({ balanced: true, mismatches: [] });
    const missing = await refusalOver(client.transfers.byNumber.query({ tenantId: tenant.id, number: 'TRF-20000101-000001' }));
    expect(missing.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, kind: 'NOT_FOUND', field: 'number' });
  });

  it('serves reservations and stock.verify end to end: a release gives the stock back, a second is 409 INVALID_STATE', async () => {
    const client = createInternalClient(url, TEST_SERVICE_TOKEN);
    const partner = await client.partners.create.mutate({ name: 'Holder', email: 'dev@holder.example', tier: 'small' });
    const tenant = await client.tenants.create.mutate({ name: 'Hold Store' });
    const location = await client.locations.create.mutate({ tenantId: tenant.id, code: 'H', name: 'H' });
    const product = await client.products.create.mutate({ tenantId: tenant.id, sku: 'SKU-HOLD', name: 'Held' });
    await client.stock.recordOpening.mutate({ tenantId: tenant.id, locationId: location.id, productId: product.id, good: '4', reference: 'OPEN' });
    const held = await createReservation(t.database, {
      tenantId: tenant.id, partnerId: partner.id, actor: { id: partner.id, name: partner.name, email: partner.email }, locationId: location.id, reference: 'ORDER-HTTP', expiresIn: 900, items: [{ productId: product.id, quantity: '1.5' }],
    });
    const reservationNumber = held.number;
    expect((await client.reservations.list.query({ tenantId: tenant.id, status: 'active' })).reservations.map((r) => r.reservationNumber)).toEqual([reservationNumber]);
    expect(await client.reservations.get.query({ tenantId: tenant.id, reservationNumber })).toMatchObject({ status: 'active', items: [{ sku: 'SKU-HOLD', quantity: '1.5' }] });
    expect((await client.stock.levels.query({ tenantId: tenant.id })).levels[0]).toMatchObject({ reserved: '1.5', reservedForOrders: '1.5', reservedForTransfers: '0', available: '2.5' });

    expect(await client.reservations.release.mutate({ tenantId: tenant.id, reservationNumber, reason: 'cancelled by support' })).toMatchObject({ status: 'released', releaseReason: 'cancelled by support' });
    expect((await client.stock.levels.query({ tenantId: tenant.id })).levels[0]).toMatchObject({ reserved: '0', reservedForOrders: '0', available: '4' });
    const again = await refusalOver(client.reservations.release.mutate({ tenantId: tenant.id, reservationNumber }));
    expect(again.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409, kind: 'INVALID_STATE', path: 'reservations.release' });
    const missing = await refusalOver(client.reservations.get.query({ tenantId: tenant.id, reservationNumber: 'RSV-20000101-000001' }));
    expect(missing.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, field: 'reservationNumber' });
    expect(await client.stock.verify.query()).toEqual([]);
  });

  it('serves inbound shipments and webhooks end to end: secret shown once, cancel emits a delivery, a second cancel is 409', async () => {
    const client = createInternalClient(url, TEST_SERVICE_TOKEN);
    const partner = await client.partners.create.mutate({ name: 'Hooked', email: 'dev@hooked.example', tier: 'small' });
    const { endpoint, secret } = await client.webhooks.create.mutate({ partnerId: partner.id, url: 'https://hooked.example/pits', eventTypes: ['inbound.status_changed'] });
    expect(secret.startsWith('whsec_')).toBe(true);
    expect(JSON.stringify(await client.webhooks.list.query({ partnerId: partner.id }))).not.toContain(secret.slice('whsec_'.length));

    const tenant = await client.tenants.create.mutate({ name: 'Inbound Store' });
    await connectTenant(t.database, { partnerId: partner.id, tenantId: tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
    const location = await client.locations.create.mutate({ tenantId: tenant.id, code: 'WH-IN', name: 'Receiving' });
    const product = await client.products.create.mutate({ tenantId: tenant.id, sku: 'SKU-IN', name: 'Inbound', costPrice: '2' });
    const shipment = await client.inbound.create.mutate({
      tenantId: tenant.id, locationId: location.id, sourceType: 'po', sourceId: 7, sourceCode: 'PO-7', lines: [{ productId: product.id, expectedQuantity: '2.5' }],
    });
    expect(shipment.lines).toMatchObject([{ expected: '2.5', pending: '2.5', unitPrice: '2.00', product: { id: product.id, sku: 'SKU-IN' } }]);
    expect((await client.inbound.cancel.mutate({ tenantId: tenant.id, id: shipment.id })).status).toBe('cancelled');
    const again = await refusalOver(client.inbound.cancel.mutate({ tenantId: tenant.id, id: shipment.id }));
    expect(again.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409, kind: 'INVALID_STATE', path: 'inbound.cancel' });
    const twice = await refusalOver(client.inbound.create.mutate({
      tenantId: tenant.id, locationId: location.id, sourceType: 'po', sourceId: 7, sourceCode: 'PO-7', lines: [{ productId: product.id, expectedQuantity: 1 }, { productId: product.id, expectedQuantity: 1 }],
    }));
    expect(twice.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, kind: 'VALIDATION_ERROR', field: 'lines[1].productId' });

    const deliveries = await client.webhooks.deliveries.query({ partnerId: partner.id });
    expect(deliveries).toMatchObject([{ eventType: 'inbound.status_changed', endpointId: endpoint.id, status: 'pending', attempts: 0 }]);
    const pending = await refusalOver(client.webhooks.redeliver.mutate({ partnerId: partner.id, deliveryId: deliveries[0]!.id }));
    expect(pending.data).toMatchObject({ code: 'CONFLICT', httpStatus: 409, kind: 'INVALID_STATE', field: 'deliveryId' });
  });

  it('a wrong or missing token is UNAUTHORIZED (401) with the domain kind in error.data', async () => {
    for (const token of ['wrong-token', '']) {
      const r = await refusalOver(createInternalClient(url, token).partners.list.query());
      expect(r.data).toMatchObject({ code: 'UNAUTHORIZED', httpStatus: 401, kind: 'UNAUTHORIZED', field: 'Authorization' });
    }
    const raw = await fetch(`${url}/trpc/partners.list`);
    expect(raw.status).toBe(401);
  });

  it('refusals carry kind, field and issues; no stack trace is ever sent', async () => {
    const client = createInternalClient(`${url}/trpc`, TEST_SERVICE_TOKEN);
    const notFound = await refusalOver(client.tenants.byId.query({ id: '00000000-0000-4000-8000-000000000000' }));
    expect(notFound.data).toMatchObject({ code: 'NOT_FOUND', httpStatus: 404, kind: 'NOT_FOUND', field: 'id', path: 'tenants.byId' });
    const invalid = await refusalOver(client.partners.create.mutate({ name: '', email: 'nope', tier: 'small' }));
    expect(invalid.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, kind: 'VALIDATION_ERROR', field: 'name' });
    expect((invalid.data.issues as { field: string }[]).map((i) => i.field)).toEqual(['name', 'email']);
    const body = await (await fetch(`${url}/trpc/partners.byId?input=${encodeURIComponent('{"id":"x"}')}`, { headers: { authorization: `Bearer ${TEST_SERVICE_TOKEN}` } })).text();
    expect(body).not.toMatch(/stack|\.ts:\d+/);
  });

  it('refuses a 200,000-level body as BAD_REQUEST kind INVALID_REQUEST without overflowing, and keeps serving', async () => {
    const post = (body: string) =>
      fetch(`${url}/trpc/tenants.create?batch=1`, { method: 'POST', headers: { authorization: `Bearer ${TEST_SERVICE_TOKEN}`, 'content-type': 'application/json' }, body });
    const res = await post(`{"0":{"name":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`);
    expect(res.status).toBe(400);
    const [answer] = (await res.json()) as [{ error: { data: Record<string, unknown> } }];
    expect(answer.error.data).toMatchObject({ code: 'BAD_REQUEST', kind: 'INVALID_REQUEST', field: '' });
    const client = createInternalClient(url, TEST_SERVICE_TOKEN);
    const nul = await refusalOver(client.tenants.create.mutate({ name: 'Toko\u0000' }));
    expect(nul.data).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'name', issues: [{ field: 'name', issue: 'must not contain the NUL character' }] });
    expect((await post('{"0":{"name":"Shallow Store"}}')).status).toBe(200);
  });

  it('answers /healthz and /readyz without a token, and 404 elsewhere', async () => {
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    // The edge both HTTP apps share (@pits/http-edge): a fresh request id and the security headers, on refusals too.
    for (const res of [health, await fetch(`${url}/trpc/partners.list`)]) {
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready' });
    expect((await fetch(`${url}/nowhere`)).status).toBe(404);
    expect((await fetch(`${url}/healthz`, { method: 'POST' })).status).toBe(405);
  });
});

describe('internal API lifecycle', () => {
  it('/readyz is 503 and calls are a generic INTERNAL_SERVER_ERROR when the database is gone', async () => {
    const t = await openTestDatabase(embeddedTestDialect(), { file: true });
    const lines: Record<string, unknown>[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const api = createInternalApi(testConfig(), { database: t.database, logger });
    const { url } = await api.listen();
    try {
      await t.cleanup();
      expect((await fetch(`${url}/readyz`)).status).toBe(503);
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      const r = await refusalOver(createInternalClient(url, TEST_SERVICE_TOKEN).partners.list.query());
      expect(r.message).toBe('internal error');
      expect(r.data).toMatchObject({ code: 'INTERNAL_SERVER_ERROR', httpStatus: 500, kind: 'INTERNAL_ERROR' });
      expect(lines.find((l) => l.msg === 'request finished' && l.route === 'partners.list')).toMatchObject({ status: 500, error_code: 'INTERNAL_SERVER_ERROR' });
    } finally {
      await api.close();
    }
  });

  it('close() lets an in-flight request finish, then refuses new connections', async () => {
    const t = await openTestDatabase(embeddedTestDialect(), { file: true });
    // A database whose queries take a while, so that a request is still running when close() starts.
    const slow: Database = {
      ...t.database,
      db: new Proxy(t.database.db, {
        get(target, key, receiver) {
          const value = Reflect.get(target, key, receiver) as unknown;
          if (key !== 'executeQuery' || typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            await new Promise((r) => setTimeout(r, 300));
            return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
          };
        },
      }),
    };
    const api = createInternalApi(testConfig(), { database: slow, logger: silentLogger() });
    const { url } = await api.listen();
    try {
      await fetch(`${url}/healthz`); // leaves an idle keep-alive connection behind
      const inFlight = fetch(`${url}/readyz`);
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      await api.close();
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1500);
      await expect(fetch(`${url}/healthz`)).rejects.toThrow();
    } finally {
      await api.close();
      await t.cleanup();
    }
  });

  it('opens and closes its own database when none is given', async () => {
    const api = createInternalApi({ ...testConfig(), database: { dialect: 'sqlite', location: ':memory:' } }, { logger: silentLogger() });
    const { url } = await api.listen();
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    await api.close();
    await api.close();
  });
});

describe('internal API logs and metrics', () => {
  let t: TestDatabase;
  let api: InternalApi;
  let url: string;
  let metricsUrl: string;
  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    t = await openTestDatabase(embeddedTestDialect(), { file: true });
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const config = { ...testConfig(), metrics: { host: '127.0.0.1', port: 0 } };
    api = createInternalApi(config, { database: t.database, logger, resolveHost: testHostResolver });
    const listening = await api.listen();
    url = listening.url;
    metricsUrl = listening.metricsUrl!;
  });
  afterAll(async () => {
    await api.close();
    await t.cleanup();
  });

  const TRACE = '0af7651916cd43dd8448eb211c80319c';

  it('logs each procedure call in the shared schema, with the trace of a valid traceparent, and meters it under the procedure path', async () => {
    const client = createInternalClient(url, TEST_SERVICE_TOKEN);
    const tenant = await client.tenants.create.mutate({ name: 'Logged Store' });
    const res = await fetch(`${url}/trpc/locations.list?input=${encodeURIComponent(JSON.stringify({ tenantId: tenant.id }))}`, {
      headers: { authorization: `Bearer ${TEST_SERVICE_TOKEN}`, traceparent: `00-${TRACE}-b7ad6b7169203331-01` },
    });
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    const line = lines.find((l) => l.request_id === requestId);
    expect(line).toBeDefined();
    for (const field of REQUEST_LOG_FIELDS) expect(line).toHaveProperty(field);
    expect(line).toMatchObject({ route: 'locations.list', method: 'GET', status: 200, tenant_id: tenant.id, partner_id: null, trace_id: TRACE, parent_span_id: 'b7ad6b7169203331', error_code: null, msg: 'request finished' });
    expect(JSON.stringify(line)).not.toContain(TEST_SERVICE_TOKEN);

    // A refused call is logged and counted with its status; an unknown procedure and an unknown path as `unmatched`.
    // Each line of a refusal carries its tRPC code.
    const lineOf = (res: Response) => lines.find((l) => l.request_id === res.headers.get('x-request-id'));
    const refused = await fetch(`${url}/trpc/partners.list`, { headers: { traceparent: 'not-a-trace' } });
    expect(refused.status).toBe(401);
    expect(lineOf(refused)).toMatchObject({ route: 'partners.list', status: 401, trace_id: null, error_code: 'UNAUTHORIZED' });
    const invalid = await fetch(`${url}/trpc/locations.list?input=${encodeURIComponent(JSON.stringify({ tenantId: 'not-a-uuid' }))}`, { headers: { authorization: `Bearer ${TEST_SERVICE_TOKEN}` } });
    expect(invalid.status).toBe(400);
    expect(lineOf(invalid)).toMatchObject({ route: 'locations.list', status: 400, error_code: 'BAD_REQUEST' });
    const unknown = await fetch(`${url}/trpc/no.such.procedure`, { headers: { authorization: `Bearer ${TEST_SERVICE_TOKEN}` } });
    expect(unknown.status).toBe(404);
    expect(lineOf(unknown)).toMatchObject({ route: 'unmatched', status: 404, error_code: 'NOT_FOUND' });
    const nowhere = await fetch(`${url}/nowhere`);
    expect(nowhere.status).toBe(404);
    expect(lineOf(nowhere)).toMatchObject({ route: 'unmatched', status: 404, error_code: 'NOT_FOUND' });

    const scrape = await fetch(metricsUrl);
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    const app = { app: 'internal-api' };
    expect(metricSample(text, 'pits_http_requests_total', { ...app, route: 'locations.list', method: 'GET', status: '200' })).toBe(1);
    expect(metricSample(text, 'pits_http_requests_total', { ...app, route: 'tenants.create', method: 'POST', status: '200' })).toBe(1);
    expect(metricSample(text, 'pits_http_requests_total', { ...app, route: 'partners.list', status: '401' })).toBe(1);
    expect(metricSample(text, 'pits_http_requests_total', { ...app, route: 'unmatched', status: '404' })).toBe(2);
    expect(metricSample(text, 'pits_http_request_duration_seconds_count', { ...app, route: 'locations.list', status: '200' })).toBe(1);
    expect(metricSample(text, 'pits_db_pool_connections', { ...app, state: 'total' })).toBe(1);
    // The API's own port does not serve metrics.
    expect((await fetch(`${url}/metrics`)).status).toBe(404);
  });
});
