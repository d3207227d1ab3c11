// The headers a security review reads on real responses of both apps: `X-Content-Type-Options:
// nosniff` on every response, `Cache-Control: no-store` on every authenticated response and every
// error, and no `X-Powered-By`. Successes and each kind of refusal of the gateway (400 to 429), its
// probes and public pages, the internal API's procedures and probes, and the answers the HTTP
// parser writes itself (oversized headers, a malformed request line) before any app code runs.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildService } from '../harness/child-service.js';
import { e2eDialects } from '../harness/e2e-database.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { type GatewayClient, gatewayClient } from '../harness/gateway-client.js';
import type { GatewayResponse } from '../harness/gateway-response.js';
import { createProducts } from '../harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from '../harness/ledger-check.js';
import { type OnboardedPartner, onboardPartner } from '../harness/partner-onboarding.js';
import { type ServiceStack, startStack } from '../harness/service-stack.js';

const LONG_WINDOW_MS = 3_600_000;

/** Status and lower-case headers of a response, whoever wrote it. */
interface SeenResponse {
  what: string;
  status: number;
  headers: Record<string, string>;
}

const seen = (what: string, res: GatewayResponse): SeenResponse => ({ what, status: res.status, headers: res.headers });

async function fetched(what: string, url: string, init: RequestInit = {}): Promise<SeenResponse> {
  const res = await fetch(url, init);
  await res.arrayBuffer();
  const headers: Record<string, string> = {};
  res.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
  return { what, status: res.status, headers };
}

/** Sends `bytes` on a fresh connection and reads the status line and headers of whatever comes back. */
function rawExchange(what: string, baseUrl: string, bytes: string): Promise<SeenResponse> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${what}: no answer within 5 s (${JSON.stringify(text.slice(0, 200))})`));
    }, 5000);
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      const [head = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const at = line.indexOf(':');
        if (at > 0) headers[line.slice(0, at).trim().toLowerCase()] = line.slice(at + 1).trim();
      }
      resolve({ what, status: Number(statusLine.split(' ')[1] ?? 0), headers });
    });
    socket.write(bytes);
  });
}

/**
 * What is wrong with a response's headers, one line per problem: nosniff and no X-Powered-By
 * always, and the Cache-Control it must carry when `cache` is given.
 */
function headerProblems(res: SeenResponse, cache?: 'no-store' | 'no-cache'): string[] {
  const problems: string[] = [];
  const where = `${res.what} (${res.status})`;
  if (res.headers['x-content-type-options'] !== 'nosniff') problems.push(`${where}: X-Content-Type-Options is ${res.headers['x-content-type-options'] ?? 'missing'}`);
  if (res.headers['x-powered-by'] !== undefined) problems.push(`${where}: X-Powered-By is ${res.headers['x-powered-by']}`);
  if (cache !== undefined && res.headers['cache-control'] !== cache) problems.push(`${where}: Cache-Control is ${res.headers['cache-control'] ?? 'missing'}, not ${cache}`);
  return problems;
}

/** Every response nosniff, no X-Powered-By and `Cache-Control: no-store`; all problems listed at once. */
function expectNotStored(responses: readonly SeenResponse[]): void {
  expect(responses.flatMap((res) => headerProblems(res, 'no-store'))).toEqual([]);
}

const dialects = await e2eDialects();

describe.each(dialects)('[%s] security: response headers', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let limited: ChildService;
  let partner: OnboardedPartner;
  let tenant: string;
  let location: number;
  let productId: number;

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    limited = await stack.startGateway({ name: 'gateway-small-limit', env: { RATE_LIMIT_SMALL: '2', RATE_LIMIT_WINDOW_MS: String(LONG_WINDOW_MS) } });
    partner = await onboardPartner(stack.internal, gw, { label: 'Headers', tenants: 1, locations: 1 });
    tenant = partner.tenants[0]!.id;
    location = partner.tenants[0]!.locationIds[0]!;
    productId = (await createProducts(stack.internal, tenant, 1, `HDR-${Date.now()}`))[0]!.id;
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  it('gateway: every partner response, success or refusal, is nosniff and no-store, with no X-Powered-By', async () => {
    const key = partner.key;
    const other = await onboardPartner(stack.internal, gw, { label: 'HeadersOther', tenants: 1 });
    const responses: SeenResponse[] = [
      seen('200 tenants list', await gw.get('/api/partner/v1/tenants', { key })),
      seen('200 tenant-scoped list', await gw.get('/api/partner/v1/tenants/locations', { key, tenant })),
      seen(
        '201 adjustment created',
        await gw.post('/api/partner/v1/adjustments', { location_id: location, type: 'increase', stock_source: 'good', reason: 'headers', items: [{ product_id: String(productId), quantity: 1, unit_cost: 1 }] }, { key, tenant }),
      ),
      seen('400 missing X-Tenant-Id', await gw.get('/api/partner/v1/tenants/locations', { key })),
      seen('400 body not JSON', await gw.request('POST', '/api/partner/v1/tenants/authorize', { key, rawBody: '{"tenant_id": ' })),
      seen('401 no key', await gw.get('/api/partner/v1/tenants')),
      seen('401 unknown key', await gw.get('/api/partner/v1/tenants', { key: 'pk_test_not-a-real-key-000000000000000000' })),
      seen("403 another partner's tenant", await gw.get('/api/partner/v1/tenants/locations', { key, tenant: other.tenants[0]!.id })),
      seen('404 unknown route', await gw.get('/api/partner/v1/nothing-here', { key })),
      seen('404 unknown id', await gw.get('/api/engine/v1/adjustments/ADJ-20000101-999999', { key, tenant, template: '/api/engine/v1/adjustments/{id}' })),
      seen('405 wrong method', await gw.request('DELETE', '/api/partner/v1/tenants', { key })),
      seen('413 body over 1 MiB', await gw.request('POST', '/api/partner/v1/tenants/authorize', { key, rawBody: JSON.stringify({ tenant_id: tenant, pad: 'x'.repeat(1_100_000) }) })),
      seen('422 invalid query', await gw.get('/api/partner/v1/tenants', { key, query: { per_page: 0 } })),
    ];
    const limitedGw = gatewayClient(limited.url);
    const spender = await onboardPartner(stack.internal, limitedGw, { label: 'HeadersLimited', tenants: 0 });
    let refused: GatewayResponse | undefined;
    for (let i = 0; i < 5 && refused === undefined; i += 1) {
      const res = await limitedGw.get('/api/partner/v1/tenants', { key: spender.key });
      if (res.status === 429) refused = res;
    }
    expect(refused, 'the small-limit gateway refused within 5 requests').toBeDefined();
    responses.push(seen('429 rate limited', refused!));

    const statuses = responses.map((r) => r.status);
    expect(statuses).toEqual([200, 200, 201, 400, 400, 401, 401, 403, 404, 404, 405, 413, 422, 429]);
    expectNotStored(responses);
    for (const res of responses) expect(res.headers['content-security-policy'], `${res.what}: CSP`).toBe("default-src 'none'; frame-ancestors 'none'");
  });

  it('gateway: probes are no-store; the reference and its document may be revalidated (no-cache); all are nosniff', async () => {
    const probes = [seen('/healthz', await gw.get('/healthz')), seen('/readyz', await gw.get('/readyz'))];
    const pages = [seen('/openapi.json', await gw.get('/openapi.json')), seen('/docs', await gw.get('/docs'))];
    expect([...probes, ...pages].map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expectNotStored(probes);
    expect(pages.flatMap((res) => headerProblems(res, 'no-cache'))).toEqual([]);
  });

  it("gateway: an error on a public page's path is an error like any other: no-store", async () => {
    const errors = [
      seen('405 POST /openapi.json', await gw.request('POST', '/openapi.json', { rawBody: '{}' })),
      seen('405 POST /docs', await gw.request('POST', '/docs', { rawBody: '{}' })),
      seen('404 /docs/missing', await gw.get('/docs/missing')),
    ];
    expect(errors.map((r) => r.status)).toEqual([405, 405, 404]);
    expectNotStored(errors);
  });

  it('internal API: procedures, refusals and probes are nosniff and no-store, with no X-Powered-By', async () => {
    const base = stack.internalApi.url;
    const auth = { authorization: `Bearer ${stack.internalToken}` };
    const responses = [
      await fetched('200 query', `${base}/trpc/partners.list`, { headers: auth }),
      await fetched('200 mutation', `${base}/trpc/tenants.create`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'Headers Store' }) }),
      await fetched('400 invalid input', `${base}/trpc/tenants.create`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ name: 42 }) }),
      await fetched('401 no token', `${base}/trpc/partners.list`),
      await fetched('401 wrong token', `${base}/trpc/partners.list`, { headers: { authorization: 'Bearer not-the-token' } }),
      await fetched('404 unknown procedure', `${base}/trpc/nothing.here`, { headers: auth }),
      await fetched('404 unknown path', `${base}/nothing`),
      await fetched('405 probe method', `${base}/healthz`, { method: 'POST' }),
      await fetched('200 /healthz', `${base}/healthz`),
      await fetched('200 /readyz', `${base}/readyz`),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 200, 400, 401, 401, 404, 404, 405, 200, 200]);
    expectNotStored(responses);
  });

  it('responses the HTTP parser writes itself (431 oversized headers, 400 malformed request) are nosniff and no-store too, on both apps', async () => {
    const responses: SeenResponse[] = [];
    for (const [app, url] of [['gateway', stack.gateway.url], ['internal API', stack.internalApi.url]] as const) {
      responses.push(await rawExchange(`${app}: oversized headers`, url, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ${'a'.repeat(20_000)}\r\n\r\n`));
      responses.push(await rawExchange(`${app}: malformed request line`, url, 'NOT A REQUEST\r\n\r\n'));
    }
    expect(responses.map((r) => r.status)).toEqual([431, 400, 431, 400]);
    expectNotStored(responses);
  });
});
