// The assembled gateway in-process, on every dialect: the tenant endpoints through the full
// middleware chain, and the OpenAPI document covering every route served.
import { type Database, createApiKey, createCredentialCipher, createLogisticPreference, revokeApiKey } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metricSample } from '@pits/service-runtime';
import { loadGatewayConfig } from './config.js';
import { type Gateway, createGateway } from './create-gateway.js';

const dialects = await testDialects();
const KEY = 'k'.repeat(64);

describe.each(dialects)('[%s] assembled gateway', (dialect) => {
  let t: TestDatabase;
  let gateway: Gateway;
  let url: string;
  let metricsUrl: string;
  let w: TenantWorld;
  let secret: string;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    const database: Database = t.database;
    w = await seedTenantWorld(database);
    secret = (await createApiKey(database, w.partner.id, { environment: 'test' }, new Date())).secret;
    await connectTenant(database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 3, installationType: 'custom' }, new Date());
    await createLogisticPreference(database, createCredentialCipher(KEY), w.tenant.id, {
      logisticProviderId: 1, logisticProviderName: 'JNE', availableServiceTypes: { Reguler: true, Cargo: false },
      username: 'jne-user-0001', password: 'hunter2-secret', apiKey: 'AKIA1234567890', apiSecret: 'shh-very-secret-9876',
    }, 'seed', new Date());
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', DATABASE_URL: ':memory:', GATEWAY_METRICS_PORT: '0' });
    gateway = createGateway(config, { database, logger: pino({ level: 'silent' }) });
    const listening = await gateway.listen();
    url = listening.url;
    metricsUrl = listening.metricsUrl!;
  });
  afterAll(async () => {
    await gateway.close();
    await t.cleanup();
  });

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(`${url}${path}`, { headers: { Authorization: `Bearer ${secret}`, ...headers } });

  it('lists the tenant locations in envelope B with the has_more_pages pagination', async () => {
    const res = await get('/api/partner/v1/tenants/locations?per_page=1&page=2', { 'X-Tenant-Id': w.tenant.id });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { status: number; message: string; data: { locations: { code: string }[]; pagination: unknown } };
    expect(body.status).toBe(200);
    expect(body.message).toBe('Ok');
    expect(body.data.locations.map((l) => l.code)).toEqual(['WH-SBY']);
    expect(body.data.pagination).toEqual({ current_page: 2, per_page: 1, total: 2, last_page: 2, from: 2, to: 2, has_more_pages: false });
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
  });

  it('serves /metrics on the operator port only: a partner key gets the contract’s 404 on the partner port', async () => {
    await get('/api/partner/v1/tenants/locations?per_page=1', { 'X-Tenant-Id': w.tenant.id });
    const partnerPort = new URL(url).port;
    expect(new URL(metricsUrl).port).not.toBe(partnerPort);
    const refused = await get('/metrics');
    expect(refused.status).toBe(404);
    expect(await refused.json()).toMatchObject({ error: { code: 'NOT_FOUND' }, request_id: refused.headers.get('x-request-id') });
    const scrape = await fetch(metricsUrl);
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    const app = { app: 'gateway' };
    expect(metricSample(text, 'pits_http_requests_total', { ...app, route: '/api/partner/v1/tenants/locations', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, 'pits_http_request_duration_seconds_count', { ...app, route: '/api/partner/v1/tenants/locations', method: 'GET', status: '200' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, 'pits_http_requests_total', { ...app, route: 'unmatched', method: 'GET', status: '404' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, 'pits_db_pool_connections', { ...app, state: 'total' })).toBeGreaterThanOrEqual(1);
    expect(metricSample(text, 'pits_rate_limit_refusals_total', { ...app, limit: 'tier' })).toBe(0);
    expect(metricSample(text, 'pits_idempotency_replays_total', app)).toBe(0);
  });

  it('masks logistics credentials', async () => {
    const res = await get('/api/partner/v1/tenants/available-logistics', { 'X-Tenant-Id': w.tenant.id });
    const body = (await res.json()) as { data: { logistics: Record<string, unknown>[] } };
    expect(body.data.logistics[0]).toMatchObject({ username: '*********0001', password: '**********cret', api_key: '**********7890', api_secret: '****************9876', available_service_types: { Reguler: true, Cargo: false } });
  });

  it('serves an OpenAPI 3.1 document listing every route it serves', async () => {
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, Record<string, unknown>> };
    expect(doc.openapi).toBe('3.1.0');
    for (const route of gateway.routes) {
      const path = route.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      for (const method of [route.method, ...(route.alsoMethods ?? [])]) expect(doc.paths[path]?.[method.toLowerCase()]).toBeDefined();
    }
    for (const path of ['/healthz', '/readyz', '/openapi.json', '/docs']) expect(doc.paths[path]?.get).toBeDefined();
    const docs = await fetch(`${url}/docs`);
    expect(docs.headers.get('content-type')).toContain('text/html');
    const page = await docs.text();
    expect(page).toContain('data-url="/openapi.json"');
    expect(page).toContain('<script src="/docs/scalar.js"></script>');
    // The renderer comes from this server (the npm package's standalone bundle), never a CDN.
    const bundle = await fetch(`${url}/docs/scalar.js`);
    expect(bundle.headers.get('content-type')).toContain('text/javascript');
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(1_000_000);
    expect(page).not.toMatch(/https?:\/\//);
  });

  it('lets a request through uncounted after RATE_LIMIT_STORE_TIMEOUT_MS when the rate-limit store hangs', async () => {
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', DATABASE_URL: ':memory:', RATE_LIMIT_STORE_TIMEOUT_MS: '40' });
    const logged: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(line) });
    const hanging = createGateway(config, { database: t.database, logger, rateLimitStore: { hit: () => new Promise(() => undefined) } });
    const { url: hangingUrl } = await hanging.listen();
    try {
      const started = performance.now();
      const res = await fetch(`${hangingUrl}/api/partner/v1/tenants/locations`, { headers: { Authorization: `Bearer ${secret}`, 'X-Tenant-Id': w.tenant.id } });
      const elapsed = performance.now() - started;
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      // The limiter gave up after the configured 40 ms (the default is 250 ms), and said so.
      expect(elapsed).toBeGreaterThanOrEqual(35);
      expect(elapsed).toBeLessThan(2000);
      expect(logged.some((line) => line.includes('rate-limit store did not answer within 40 ms'))).toBe(true);
    } finally {
      await hanging.close();
    }
  });

  it('sends the headers a security review expects, on successes and refusals alike', async () => {
    for (const res of [
      await get('/api/partner/v1/tenants/locations', { 'X-Tenant-Id': w.tenant.id }),
      await fetch(`${url}/api/partner/v1/tenants`),
      await get('/api/partner/v1/nothing-here'),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('x-powered-by')).toBeNull();
      await res.body?.cancel();
    }
    const docs = await fetch(`${url}/docs`);
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
    expect(docs.headers.get('cache-control')).toBe('no-cache');
    await docs.body?.cancel();
  });

  it('a key revoked through one gateway process fails at once on another (no key cache)', async () => {
    const other = createGateway(loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0' }), { database: t.database, logger: pino({ level: 'silent' }) });
    const { url: otherUrl } = await other.listen();
    try {
      const { key, secret: doomed } = await createApiKey(t.database, w.partner.id, { environment: 'test' }, new Date());
      const call = (base: string) => fetch(`${base}/api/partner/v1/tenants/locations`, { headers: { Authorization: doomed, 'X-Tenant-Id': w.tenant.id } });
      for (const base of [url, otherUrl]) expect((await call(base)).status).toBe(200);
      await revokeApiKey(t.database, w.partner.id, key.id, new Date());
      for (const base of [url, otherUrl]) expect((await call(base)).status).toBe(401);
    } finally {
      await other.close();
    }
  });

  it('answers health and readiness without a key', async () => {
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ok', database: 'ok' });
  });

  it('answers the probes from an address over its keyless budget, which the other public routes refuse', async () => {
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', DATABASE_URL: ':memory:', RATE_LIMIT_ANONYMOUS: '2' });
    const small = createGateway(config, { database: t.database, logger: pino({ level: 'silent' }) });
    const { url: smallUrl } = await small.listen();
    try {
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await fetch(`${smallUrl}/api/partner/v1/tenants/locations`, { headers: { Authorization: 'Bearer pits_test_wrong' } })).status);
      expect(statuses).toEqual([401, 401, 429]);
      expect((await fetch(`${smallUrl}/openapi.json`)).status).toBe(429);
      for (const probe of ['/healthz', '/readyz']) {
        const res = await fetch(`${smallUrl}${probe}`);
        expect(res.status, probe).toBe(200);
        // Not counted, so no budget to report.
        expect(res.headers.get('ratelimit-policy'), probe).toBeNull();
      }
    } finally {
      await small.close();
    }
  });
});
