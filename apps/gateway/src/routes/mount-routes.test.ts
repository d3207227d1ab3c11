// What every mounted route gets from mountRoutes whatever its spec says: path parameters checked
// with the text rule, deep bodies refused before the idempotency layer reads them, and a read's
// statements on one session of the database. Run through the assembled gateway on both dialects,
// over every route of its OpenAPI document.
import { errorEnvelope } from '@pits/contract';
import { createApiKey } from '@pits/persistence';
import { type TenantWorld, type TestDatabase, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../config.js';
import { type Gateway, createGateway } from '../create-gateway.js';

const dialects = await testDialects();

interface Operation {
  method: string;
  path: string;
  params: string[];
}

describe.each(dialects)('[%s] mountRoutes', (dialect) => {
  let t: TestDatabase;
  let gateway: Gateway;
  let url: string;
  let w: TenantWorld;
  let key: string;
  let withParams: Operation[];
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database, { openingGood: '10' });
    key = (await createApiKey(t.database, w.partner.id, { environment: 'test' }, new Date())).secret;
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, new Date());
    const config = loadGatewayConfig({ CREDENTIALS_KEY: 'c'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0' });
    gateway = createGateway(config, { database: t.database, logger: pino({ level: 'silent' }) });
    url = (await gateway.listen()).url;
    const document = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    withParams = Object.entries(document.paths).flatMap(([path, methods]) => {
      const params = [...path.matchAll(/\{([A-Za-z_]+)\}/g)].map((m) => m[1]!);
      return params.length === 0 ? [] : Object.keys(methods).map((method) => ({ method: method.toUpperCase(), path, params }));
    });
  });
  afterAll(async () => {
    await gateway.close();
    await t.cleanup();
  });

  const headers = () => ({ Authorization: key, 'X-Tenant-Id': w.tenant.id, 'Content-Type': 'application/json' });

  async function send(method: string, path: string, body?: string, extra: Record<string, string> = {}) {
    const res = await fetch(`${url}${path}`, { method, headers: { ...headers(), ...extra }, ...(body === undefined ? {} : { body }) });
    return { status: res.status, body: errorEnvelope.parse(await res.json()) };
  }

  it('finds the routes with path parameters in the document', () => {
    expect(withParams.map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(['GET /api/engine/v1/adjustments/{id}', 'PATCH /api/partner/v1/transfers/{id}/approve', 'POST /api/partner/v1/inbound/{id}/receive', 'DELETE /api/partner/v1/webhooks/{id}']),
    );
  });

  it.each([
    ['a NUL', 'ADJ-20261122-000001%00', 'must not contain the NUL character'],
    ['a lone surrogate', '%ED%A0%80', 'must be valid UTF-8 once percent-decoded (no unpaired surrogates)'],
  ])('answers %s in the path parameter of every route with 422 on the parameter, never 5xx', async (_, raw, issue) => {
    for (const { method, path, params } of withParams) {
      const concrete = params.reduce((p, name) => p.replace(`{${name}}`, raw), path);
      const res = await send(method, concrete, method === 'GET' || method === 'DELETE' ? undefined : '{}');
      expect({ route: `${method} ${path}`, status: res.status }).toEqual({ route: `${method} ${path}`, status: 422 });
      expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: params[0], issue } });
    }
  });

  it('still answers an unknown but well-formed id with 404', async () => {
    const res = await send('GET', '/api/engine/v1/adjustments/ADJ-20000101-000001');
    expect(res.status).toBe(404);
  });

  it.each([
    ['without', {}],
    ['with', { 'Idempotency-Key': 'deep-body-1' }],
  ])('answers a 200,000-level body %s an Idempotency-Key with 400 INVALID_REQUEST, and stores nothing', async (_, extra) => {
    const deep = `{"location_id":1,"type":"increase","stock_source":"good","reason":"deep","items":[{"notes":${'['.repeat(200_000)}${']'.repeat(200_000)}}]}`;
    const res = await send('POST', '/api/partner/v1/adjustments', deep, extra);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'INVALID_REQUEST', details: { field: '' } });
    const list = await fetch(`${url}/api/engine/v1/adjustments`, { headers: headers() });
    expect(((await list.json()) as { data: { adjustments: unknown[] } }).data.adjustments).toEqual([]);
  });

  it('refuses a transfer whose total_value would not be exact as a JSON number, and stores nothing', async () => {
    // Product 1 costs 1.50: 99999999999.9999 x 1.50 = 149999999999.99985 has 17 significant digits.
    const body = { from_location_id: w.locations[0].id, to_location_id: w.locations[1].id, transfer_date: '2026-11-22', items: [{ product_id: w.products[0]!.id, quantity: '99999999999.9999' }] };
    const res = await send('POST', '/api/partner/v1/transfers', JSON.stringify(body));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'items[0].quantity', issue: expect.stringContaining('149999999999.99985') } });
    const list = await fetch(`${url}/api/engine/v1/transfers`, { headers: headers() });
    expect(((await list.json()) as { data: { transfers: unknown[] } }).data.transfers).toEqual([]);
  });

  it('runs a read route\'s handler in one session of the database, and a write in a transaction of its own', async () => {
    // The same database, its runner counting the sessions it opens.
    const sessions: string[] = [];
    let current = '';
    const runner = new Proxy(t.database.runner, {
      get(target, name) {
        if (name === 'session') return (work: Parameters<typeof target.session>[0]) => (sessions.push(current), target.session(work));
        const value: unknown = Reflect.get(target, name, target);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    const config = loadGatewayConfig({ CREDENTIALS_KEY: 'c'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0' });
    const counted = createGateway(config, { database: { ...t.database, runner }, logger: pino({ level: 'silent' }) });
    const at = (await counted.listen()).url;
    try {
      current = 'list';
      const list = await fetch(`${at}/api/engine/v1/adjustments`, { headers: headers() });
      expect(list.status).toBe(200);
      current = 'create';
      const body = { location_id: w.locations[0].id, type: 'increase', stock_source: 'good', reason: 'session', items: [{ product_id: String(w.products[0]!.id), quantity: 1, unit_cost: 1 }] };
      const created = await fetch(`${at}/api/partner/v1/adjustments`, { method: 'POST', headers: headers(), body: JSON.stringify(body) });
      expect(created.status).toBe(201);
      expect(sessions).toEqual(['list']);
    } finally {
      await counted.close();
    }
  });
});
