// GET /openapi.json (docs/extensions.md#reference-and-probes): a valid OpenAPI 3.1 document that lists every route the
// gateway serves. Checked from outside: every documented operation answers (not 404), and every
// contract path that answers is documented. (That every response of the suite validates against
// the document is the job of expectContract, which every request goes through.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { JsonBody } from './harness/gateway-response.js';
import { type LiveContract, liveContract } from './harness/openapi-contract.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';

/** The routes this suite exercises: they must all be documented, with these methods. */
const EXERCISED: Record<string, string[]> = {
  '/api/partner/v1/tenants/authorize': ['post'],
  '/api/partner/v1/tenants/deauthorize': ['post'],
  '/api/partner/v1/tenants': ['get'],
  '/api/partner/v1/tenants/locations': ['get'],
  '/api/partner/v1/tenants/available-logistics': ['get'],
  '/healthz': ['get'],
  '/readyz': ['get'],
  '/openapi.json': ['get'],
  '/docs': ['get'],
};

/** Every partner path of the v1 contract and its documented extensions, implemented yet or not. */
const CONTRACT_PATHS: Array<[string, string[]]> = [
  ['/api/partner/v1/adjustments', ['post']],
  ['/api/engine/v1/adjustments', ['get']],
  ['/api/engine/v1/adjustments/{id}', ['get']],
  ['/api/partner/v1/adjustments/{id}/approve', ['patch', 'post']],
  ['/api/partner/v1/adjustments/{id}/reject', ['patch', 'post']],
  ['/api/partner/v1/transfers', ['post']],
  ['/api/engine/v1/transfers', ['get']],
  ['/api/engine/v1/transfers/{id}', ['get']],
  ['/api/partner/v1/transfers/{id}/approve', ['patch', 'post']],
  ['/api/partner/v1/transfers/{id}/reject', ['patch', 'post']],
  ['/api/partner/v1/transfers/{id}/ship', ['patch']],
  ['/api/partner/v1/transfers/{id}/receive', ['patch']],
  ['/api/partner/v1/inbound', ['get']],
  ['/api/partner/v1/inbound/{id}', ['get']],
  ['/api/partner/v1/inbound/{id}/receive', ['post']],
  ['/api/partner/v1/areas', ['get']],
  ['/api/partner/v1/areas/detail', ['get']],
  ['/api/partner/v1/stock', ['get']],
  ['/api/partner/v1/stock/movements', ['get']],
  ['/api/partner/v1/webhooks', ['get', 'post']],
  ['/api/partner/v1/webhooks/{id}', ['delete']],
  ['/api/partner/v1/webhooks/deliveries', ['get']],
  ['/api/partner/v1/webhooks/deliveries/{id}/redeliver', ['post']],
  ['/api/partner/v1/webhooks/{id}/test', ['post']],
  ['/api/partner/v1/products', ['get']],
  ['/api/partner/v1/products/{id}', ['get']],
  ['/api/partner/v1/stock/counts', ['post']],
  ...Object.entries(EXERCISED).filter(([path]) => path.startsWith('/api/')),
];

/** The query parameters the spec lists for each GET (section Endpoints). */
const SPEC_QUERY_PARAMETERS: Record<string, string[]> = {
  '/api/partner/v1/tenants': ['page', 'per_page'],
  '/api/partner/v1/tenants/locations': ['page', 'per_page'],
  '/api/partner/v1/tenants/available-logistics': ['page', 'per_page'],
  '/api/engine/v1/adjustments': ['page', 'per_page', 'status', 'location_id', 'type'],
  '/api/engine/v1/transfers': ['page', 'per_page', 'status', 'from_location_id', 'to_location_id', 'transfer_date_from', 'transfer_date_to'],
  '/api/partner/v1/inbound': ['page', 'per_page', 'status', 'location_id'],
  '/api/partner/v1/areas': ['page', 'per_page', 'search_by', 'search_value'],
  '/api/partner/v1/areas/detail': ['subdistrict_code'],
};

/** Every event a webhook delivery can carry (docs/webhooks.md#payload-types) and its payload component. */
const WEBHOOK_PAYLOADS: Record<string, string> = {
  'adjustment.status_changed': 'AdjustmentStatusChangedEvent',
  'transfer.status_changed': 'TransferStatusChangedEvent',
  'inbound.status_changed': 'InboundStatusChangedEvent',
  'reservation.status_changed': 'ReservationStatusChangedEvent',
  'stock.level_changed': 'StockLevelChangedEvent',
  'stock.lot_expiring': 'StockLotExpiringEvent',
  'webhook.test': 'WebhookTestEvent',
};

const concrete = (template: string) => template.replace(/\{[^}]+\}/g, 'e2e-probe');

describe('the OpenAPI document', () => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  let document: JsonBody;
  let contract: LiveContract;

  beforeAll(async () => {
    stack = await startStack('sqlite');
    gw = gatewayClient(stack.gateway.url);
    partner = await onboardPartner(stack.internal, gw, { label: 'Docs', tenants: 1 });
    contract = await liveContract(stack.gateway.url);
    document = contract.document;
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator) and matches its own documented response', async () => {
    // liveContract validated the document; this asserts what it found.
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    // Through the contract check like every response: GET /openapi.json must fit what the document says of it.
    const res = await gw.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toEqual(document);
  });

  it('documents every route the suite exercises, with its methods', () => {
    for (const [path, methods] of Object.entries(EXERCISED)) {
      expect(Object.keys(document.paths), path).toContain(path);
      for (const method of methods) expect(Object.keys(document.paths[path]), `${method.toUpperCase()} ${path}`).toContain(method);
    }
  });

  it('every documented operation is served: without a key a partner route is 401, a public one answers', async () => {
    for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, JsonBody>>)) {
      if (template === '/openapi.json') continue; // the test above fetches and checks it
      for (const method of Object.keys(item)) {
        const res = await gw.request(method.toUpperCase(), concrete(template), { template, ...(method === 'get' ? {} : { json: {} }) });
        expect(res.status, `${method.toUpperCase()} ${template}`).not.toBe(404);
        expect(res.status, `${method.toUpperCase()} ${template}`).not.toBe(405);
        if (template.startsWith('/api/')) {
          expect(res.status, `${method.toUpperCase()} ${template} needs a key`).toBe(401);
          expect(item[method].security, `${method.toUpperCase()} ${template} declares its security`).toEqual([{ apiKey: [] }]);
        } else {
          expect(res.status, `${method.toUpperCase()} ${template}`).toBe(200);
        }
      }
    }
  });

  it('every contract path the gateway answers (with a key) is in the document; the rest are 404', async () => {
    const served: string[] = [];
    for (const [template, methods] of CONTRACT_PATHS) {
      for (const method of methods) {
        // gw.request's contract check fails on any answer other than 404 for an undocumented path.
        const res = await gw.request(method.toUpperCase(), concrete(template), {
          template,
          key: partner.key,
          tenant: partner.tenants[0]!.id,
          ...(method === 'get' ? {} : { json: {} }),
        });
        if (res.status !== 404 || document.paths[template]) served.push(`${method.toUpperCase()} ${template}`);
      }
    }
    for (const [path, methods] of Object.entries(EXERCISED).filter(([p]) => p.startsWith('/api/'))) {
      for (const method of methods) expect(served).toContain(`${method.toUpperCase()} ${path}`);
    }
  });

  it('documents the query parameters of every list the spec gives them for', () => {
    const missing: string[] = [];
    for (const [path, names] of Object.entries(SPEC_QUERY_PARAMETERS)) {
      const operation = document.paths[path]?.get;
      if (operation === undefined) continue; // not served yet: the test above covers what is
      const documented = new Set(((operation.parameters ?? []) as Array<{ name: string; in: string }>).filter((p) => p.in === 'query').map((p) => p.name));
      for (const name of names) if (!documented.has(name)) missing.push(`GET ${path} ?${name}`);
    }
    expect(missing, 'query parameters the spec names but /openapi.json does not document').toEqual([]);
  });

  it('documents X-Tenant-Id as a required header exactly on the tenant-scoped routes', () => {
    for (const [path, item] of Object.entries(document.paths as Record<string, Record<string, JsonBody>>)) {
      for (const [method, operation] of Object.entries(item)) {
        const header = (operation.parameters ?? []).find((p: { name: string; in: string }) => p.in === 'header' && p.name.toLowerCase() === 'x-tenant-id');
        const scoped = path === '/api/partner/v1/tenants/locations' || path === '/api/partner/v1/tenants/available-logistics';
        if (scoped) expect(header, `${method.toUpperCase()} ${path}`).toMatchObject({ required: true });
        else if (path.startsWith('/api/partner/v1/tenants')) expect(header, `${method.toUpperCase()} ${path}`).toBeUndefined();
      }
    }
  });

  it('/docs renders this /openapi.json with a renderer the gateway serves itself (nothing fetched from elsewhere)', async () => {
    const res = await gw.get('/docs');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.text).toContain('data-url="/openapi.json"');
    const scripts = [...res.text.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts).toEqual(['/docs/scalar.js']);
    expect(res.text, 'no absolute URL a browser would fetch').not.toMatch(/(?:src|href)="(?:https?:)?\/\//);
    const bundle = await gw.get('/docs/scalar.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(Number(bundle.headers['content-length'] ?? bundle.text.length)).toBeGreaterThan(100_000);
    // Every path this suite exercises is in the document the page renders.
    for (const path of Object.keys(EXERCISED).filter((p) => p.startsWith('/api/'))) expect(Object.keys(document.paths)).toContain(path);
  });

  it('publishes every webhook event under `webhooks`: a signed POST whose body is the payload component, with a valid example', () => {
    expect(Object.keys(document.webhooks ?? {}).sort()).toEqual(Object.keys(WEBHOOK_PAYLOADS).sort());
    for (const [type, component] of Object.entries(WEBHOOK_PAYLOADS)) {
      const operation = document.webhooks[type].post;
      const body = operation.requestBody.content['application/json'];
      expect(body.schema, type).toEqual({ $ref: `#/components/schemas/${component}` });
      expect(contract.validateComponent(component, body.example), `${type} example`).toMatchObject({ valid: true });
      expect(contract.validateComponent(component, { ...body.example, type: 'other.type' }).valid, `${type} fixes its type`).toBe(false);
      expect(operation.parameters.map((p: JsonBody) => p.name)).toEqual(['X-Webhook-Id', 'X-Webhook-Timestamp', 'X-Webhook-Signature']);
      expect(Object.keys(operation.responses)).toContain('2XX');
    }
  });
});
