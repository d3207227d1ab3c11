// The assembled gateway in-process, on every dialect: the tenant endpoints through the full
// middleware chain, and the OpenAPI document covering every route served.
import { type Database, authorizeTenant, createApiKey, createCredentialCipher, createLogisticPreference } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './config.js';
import { type Gateway, createGateway } from './create-gateway.js';

const dialects = await testDialects();
const KEY = 'k'.repeat(64);

describe.each(dialects)('[%s] assembled gateway', (dialect) => {
  let t: TestDatabase;
  let gateway: Gateway;
  let url: string;
  let w: TenantWorld;
  let secret: string;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    const database: Database = t.database;
    w = await seedTenantWorld(database);
    secret = (await createApiKey(database, w.partner.id, { environment: 'test' }, new Date())).secret;
    await authorizeTenant(database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 3, installationType: 'custom' }, new Date());
    await createLogisticPreference(database, createCredentialCipher(KEY), w.tenant.id, {
      logisticProviderId: 1, logisticProviderName: 'JNE', availableServiceTypes: { Reguler: true, Cargo: false },
      username: 'jne-user-0001', password: 'hunter2-secret', apiKey: 'AKIA1234567890', apiSecret: 'shh-very-secret-9876',
    }, 'seed', new Date());
    const config = loadGatewayConfig({ CREDENTIALS_KEY: KEY, GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', DATABASE_URL: ':memory:' });
    gateway = createGateway(config, { database, logger: pino({ level: 'silent' }) });
    url = (await gateway.listen()).url;
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
    expect(await docs.text()).toContain('/api/partner/v1/tenants/available-logistics');
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

  it('answers health and readiness without a key', async () => {
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
    expect(await (await fetch(`${url}/readyz`)).json()).toEqual({ status: 'ok', database: 'ok' });
  });
});
