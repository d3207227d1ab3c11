// Every row of the error table (docs/errors.md#kinds-and-statuses) that the tenant endpoints can answer, against real
// processes, with both Authorization forms. Each response also passes the OpenAPI check.
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTHORIZATION_FORMS, authorizationHeader } from './harness/authorization-forms.js';
import type { ChildService } from './harness/child-service.js';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import { type OnboardedPartner, authorizeThroughGateway, createTenant, grantTenant, onboardPartner } from './harness/partner-onboarding.js';
import { chunkedRequest } from './harness/raw-request.js';
import { roomInWindow } from './harness/rate-window.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';

const AUTHORIZE = '/api/partner/v1/tenants/authorize';
const DEAUTHORIZE = '/api/partner/v1/tenants/deauthorize';
const TENANTS = '/api/partner/v1/tenants';
const LOCATIONS = '/api/partner/v1/tenants/locations';
const LOGISTICS = '/api/partner/v1/tenants/available-logistics';
const TENANT_SCOPED = [LOCATIONS, LOGISTICS];
const LISTS = [TENANTS, LOCATIONS, LOGISTICS];
const ONE_MIB = 1_048_576;
const SMALL_LIMIT = 5;
/** An hour: a window boundary during the 429 test is then all but impossible (roomInWindow still guards it). */
const LONG_WINDOW_MS = 3_600_000;


const dialects = await e2eDialects();

describe.each(dialects)('[%s] error table of the tenant endpoints', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let limited: ChildService;
  let lgw: GatewayClient;
  let alpha: OnboardedPartner;
  /** A tenant that exists on the platform but that alpha never authorized. */
  let strangerTenant: string;

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    limited = await stack.startGateway({ name: 'gateway-small-limit', env: { RATE_LIMIT_SMALL: String(SMALL_LIMIT), RATE_LIMIT_WINDOW_MS: String(LONG_WINDOW_MS) } });
    lgw = gatewayClient(limited.url);
    alpha = await onboardPartner(stack.internal, gw, { label: 'Alpha', tenants: 1 });
    strangerTenant = (await createTenant(stack.internal, 'Stranger', { locations: 1, logistics: 1 })).id;
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  describe.each(AUTHORIZATION_FORMS)('Authorization form: %s', (form) => {
    const auth = () => authorizationHeader(form, alpha.key);
    const tenant = () => alpha.tenants[0]!.id;

    describe('400 INVALID_REQUEST', () => {
      it('a body that is not JSON', async () => {
        for (const path of [AUTHORIZE, DEAUTHORIZE]) {
          for (const rawBody of ['{"tenant_id": ', "{'tenant_id': 1}", 'tenant_id=1', '{"a":1}}']) {
            expectError(await gw.request('POST', path, { authorization: auth(), rawBody }), 'INVALID_REQUEST', '');
          }
        }
      });

      it('a JSON body that is not an object', async () => {
        for (const path of [AUTHORIZE, DEAUTHORIZE]) {
          for (const rawBody of ['[]', '[{"tenant_id":"x"}]', '"text"', '42', 'null', 'true']) {
            expectError(await gw.request('POST', path, { authorization: auth(), rawBody }), 'INVALID_REQUEST', '');
          }
        }
      });

      it('a missing or blank X-Tenant-Id on locations and available-logistics', async () => {
        for (const path of TENANT_SCOPED) {
          expectError(await gw.get(path, { authorization: auth() }), 'INVALID_REQUEST', 'X-Tenant-Id');
          expectError(await gw.get(path, { authorization: auth(), tenant: '' }), 'INVALID_REQUEST', 'X-Tenant-Id');
        }
      });
    });

    describe('401 UNAUTHORIZED', () => {
      const everyEndpoint = () => [
        { method: 'GET', path: TENANTS, json: undefined, tenant: undefined },
        { method: 'GET', path: LOCATIONS, json: undefined, tenant: tenant() },
        { method: 'GET', path: LOGISTICS, json: undefined, tenant: tenant() },
        { method: 'POST', path: AUTHORIZE, json: { tenant_id: tenant(), days_connected: 1, installation_type: 'custom' }, tenant: undefined },
        { method: 'POST', path: DEAUTHORIZE, json: { tenant_id: tenant() }, tenant: undefined },
      ];

      it('a missing key, on every endpoint (before the tenant header is looked at)', async () => {
        for (const { method, path, json } of everyEndpoint()) {
          const res = await gw.request(method, path, { json });
          expectError(res, 'UNAUTHORIZED', 'Authorization');
          expect(res.headers['www-authenticate']).toMatch(/^Bearer/i);
        }
      });

      it('a malformed Authorization value', async () => {
        const malformed = form === 'bare'
          ? [`${alpha.key} ${alpha.key}`, `${alpha.key} extra`, 'Bearer']
          : ['Bearer', `Basic ${Buffer.from('user:pass').toString('base64')}`, `Token ${alpha.key}`, `Bearer ${alpha.key} extra`, `Bearer: ${alpha.key}`];
        for (const authorization of malformed) {
          for (const { method, path, json, tenant: t } of everyEndpoint()) {
            const res = await gw.request(method, path, { authorization, json, ...(t ? { tenant: t } : {}) });
            expectError(res, 'UNAUTHORIZED', 'Authorization');
          }
        }
      });

      it('an unknown key', async () => {
        const unknown = [`pk_test_${randomBytes(32).toString('base64url')}`, `pk_live_${randomBytes(32).toString('base64url')}`, alpha.key.toUpperCase(), alpha.key.slice(0, -1)];
        for (const key of unknown) {
          for (const { method, path, json, tenant: t } of everyEndpoint()) {
            const res = await gw.request(method, path, { authorization: authorizationHeader(form, key), json, ...(t ? { tenant: t } : {}) });
            expectError(res, 'UNAUTHORIZED', 'Authorization');
          }
        }
      });

      it('a revoked key (revoked through the internal API) fails on the very next request', async () => {
        const { key, secret } = await stack.internal.apiKeys.create.mutate({ partnerId: alpha.id, environment: 'test', label: 'to revoke' });
        const header = authorizationHeader(form, secret);
        expect((await gw.get(TENANTS, { authorization: header })).status).toBe(200);
        await stack.internal.apiKeys.revoke.mutate({ partnerId: alpha.id, keyId: key.id });
        for (const { method, path, json, tenant: t } of everyEndpoint()) {
          const res = await gw.request(method, path, { authorization: header, json, ...(t ? { tenant: t } : {}) });
          expectError(res, 'UNAUTHORIZED', 'Authorization');
        }
        expect((await gw.get(TENANTS, { authorization: auth() })).status, 'the partner’s other key still works').toBe(200);
      });
    });

    describe('403 FORBIDDEN', () => {
      it('an unknown tenant', async () => {
        for (const path of TENANT_SCOPED) {
          expectError(await gw.get(path, { authorization: auth(), tenant: randomUUID() }), 'FORBIDDEN', 'X-Tenant-Id');
          expectError(await gw.get(path, { authorization: auth(), tenant: 'not-a-uuid' }), 'FORBIDDEN', 'X-Tenant-Id');
        }
      });

      it('a tenant that exists but is not installed for the partner', async () => {
        for (const path of TENANT_SCOPED) {
          expectError(await gw.get(path, { authorization: auth(), tenant: strangerTenant }), 'FORBIDDEN', 'X-Tenant-Id');
        }
      });

      it('a deauthorized tenant', async () => {
        const gone = await createTenant(stack.internal, 'Gone');
        await grantTenant(stack.internal, gone.id, alpha.id);
        await authorizeThroughGateway(gw, alpha.key, gone.id);
        expect((await gw.get(LOCATIONS, { authorization: auth(), tenant: gone.id })).status).toBe(200);
        const res = await gw.post(DEAUTHORIZE, { tenant_id: gone.id, uninstall_reason: 'closing' }, { authorization: auth() });
        expect(res.status, res.text).toBe(200);
        for (const path of TENANT_SCOPED) {
          expectError(await gw.get(path, { authorization: auth(), tenant: gone.id }), 'FORBIDDEN', 'X-Tenant-Id');
        }
      });
    });

    describe('404 NOT_FOUND', () => {
      it('an unknown route, with or without a key', async () => {
        for (const path of ['/api/partner/v1/nope', '/api/partner/v1/tenants/nope', '/api/partner/v2/tenants', '/', '/api']) {
          expectError(await gw.get(path, { authorization: auth() }), 'NOT_FOUND');
          expectError(await gw.get(path), 'NOT_FOUND');
          expectError(await gw.request('POST', path, { authorization: auth(), json: {} }), 'NOT_FOUND');
        }
      });

      it('deauthorizing a tenant that was never installed, or does not exist', async () => {
        expectError(await gw.post(DEAUTHORIZE, { tenant_id: strangerTenant }, { authorization: auth() }), 'NOT_FOUND', 'tenant_id');
        expectError(await gw.post(DEAUTHORIZE, { tenant_id: randomUUID(), uninstall_reason: 'x' }, { authorization: auth() }), 'NOT_FOUND', 'tenant_id');
      });
    });

    describe('405 METHOD_NOT_ALLOWED', () => {
      it('a known path with the wrong method answers with Allow (checked against the document)', async () => {
        const cases: Array<[string, string, string]> = [
          ['DELETE', TENANTS, 'GET'],
          ['POST', TENANTS, 'GET'],
          ['PUT', LOCATIONS, 'GET'],
          ['PATCH', LOGISTICS, 'GET'],
          ['GET', AUTHORIZE, 'POST'],
          ['DELETE', DEAUTHORIZE, 'POST'],
        ];
        for (const [method, path, allowed] of cases) {
          for (const authorization of [auth(), undefined]) {
            const res = await gw.request(method, path, { ...(authorization ? { authorization } : {}), tenant: tenant(), ...(method === 'GET' || method === 'DELETE' ? {} : { json: {} }) });
            expectError(res, 'METHOD_NOT_ALLOWED');
            expect(res.headers['allow']?.split(/,\s*/)).toContain(allowed);
          }
        }
      });
    });

    describe('413 PAYLOAD_TOO_LARGE', () => {
      const padded = (size: number, days: number) => {
        const head = JSON.stringify({ tenant_id: tenant(), days_connected: days, installation_type: 'custom', pad: '' });
        return `${head.slice(0, -2)}${'x'.repeat(size - head.length)}"}`;
      };

      it('a body over 1 MiB is refused; exactly 1 MiB is read', async () => {
        const over = padded(ONE_MIB + 1, 3);
        expect(Buffer.byteLength(over)).toBe(ONE_MIB + 1);
        expectError(await gw.request('POST', AUTHORIZE, { authorization: auth(), rawBody: over }), 'PAYLOAD_TOO_LARGE');
        const exact = padded(ONE_MIB, 3);
        expect(Buffer.byteLength(exact)).toBe(ONE_MIB);
        const res = await gw.request('POST', AUTHORIZE, { authorization: auth(), rawBody: exact });
        expect(res.status, res.text.slice(0, 300)).toBe(200);
      });

      it('a streamed body without Content-Length that passes 1 MiB', async () => {
        // 1 MiB, then the byte that passes it: the gateway answers once it has read that byte and
        // closes, and nothing more of the upload is left in flight. Bytes still arriving at a
        // closed socket would reset the connection, and the client could lose the answer.
        const res = await chunkedRequest(gw.url, 'POST', AUTHORIZE, {
          headers: { authorization: auth(), 'content-type': 'application/json' },
          chunk: 'x'.repeat(64 * 1024),
          count: 16,
          tail: 'x',
        });
        expectError(res, 'PAYLOAD_TOO_LARGE');
      });
    });

    describe('415 UNSUPPORTED_MEDIA_TYPE', () => {
      const body = () => JSON.stringify({ tenant_id: tenant(), days_connected: 3, installation_type: 'custom' });

      it('a body declared as something other than JSON in UTF-8 is refused on Content-Type', async () => {
        for (const type of ['text/plain', 'text/plain;charset=UTF-8', 'application/x-www-form-urlencoded', 'application/json; charset=utf-16', 'not a media type']) {
          const res = await gw.request('POST', AUTHORIZE, { authorization: auth(), rawBody: body(), headers: { 'content-type': type } });
          expectError(res, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type');
          expect(res.headers['connection']).toBe('close');
        }
      });

      it('JSON with charset=UTF-8 is read, and so is a body without any Content-Type', async () => {
        const declared = await gw.request('POST', AUTHORIZE, { authorization: auth(), rawBody: body(), headers: { 'content-type': 'application/json; charset=UTF-8' } });
        expect(declared.status, declared.text.slice(0, 300)).toBe(200);
        // fetch gives a string body text/plain; bytes go without any Content-Type.
        const bare = await fetch(`${gw.url}${AUTHORIZE}`, { method: 'POST', headers: { authorization: auth() }, body: new TextEncoder().encode(body()) });
        expect(bare.status, await bare.text()).toBe(200);
      });
    });

    describe('422 VALIDATION_ERROR', () => {
      it('authorize: each invalid field is named', async () => {
        const valid = { tenant_id: tenant(), days_connected: 3, installation_type: 'custom' };
        const cases: Array<[Record<string, unknown>, string]> = [
          [{ ...valid, days_connected: -1 }, 'days_connected'],
          [{ ...valid, days_connected: 1.5 }, 'days_connected'],
          [{ ...valid, days_connected: '3' }, 'days_connected'],
          [{ ...valid, installation_type: 'bogus' }, 'installation_type'],
          [{ ...valid, installation_type: undefined }, 'installation_type'],
          [{ ...valid, tenant_id: 'not-a-uuid' }, 'tenant_id'],
          [{ ...valid, tenant_id: 42 }, 'tenant_id'],
          [{ ...valid, tenant_id: randomUUID() }, 'tenant_id'], // not a platform tenant (docs/identity-and-consent.md#consent-and-installations)
        ];
        for (const [body, field] of cases) {
          expectError(await gw.post(AUTHORIZE, body, { authorization: auth() }), 'VALIDATION_ERROR', field);
        }
      });

      it('authorize: several invalid fields are all listed in error.issues', async () => {
        const res = await gw.post(AUTHORIZE, {}, { authorization: auth() });
        expectError(res, 'VALIDATION_ERROR', 'tenant_id');
        expect(res.body.error.issues.map((i: { field: string }) => i.field).sort()).toEqual(['days_connected', 'installation_type', 'tenant_id']);
      });

      it('deauthorize: tenant_id required, uninstall_reason at most 500 characters', async () => {
        expectError(await gw.post(DEAUTHORIZE, {}, { authorization: auth() }), 'VALIDATION_ERROR', 'tenant_id');
        expectError(await gw.post(DEAUTHORIZE, { tenant_id: tenant(), uninstall_reason: 'r'.repeat(501) }, { authorization: auth() }), 'VALIDATION_ERROR', 'uninstall_reason');
        expectError(await gw.post(DEAUTHORIZE, { tenant_id: tenant(), uninstall_reason: 7 }, { authorization: auth() }), 'VALIDATION_ERROR', 'uninstall_reason');
      });

      it('lists: page and per_page out of range or not integers', async () => {
        const cases: Array<[Record<string, string | number>, string]> = [
          [{ per_page: 0 }, 'per_page'],
          [{ per_page: 101 }, 'per_page'],
          [{ per_page: 'abc' }, 'per_page'],
          [{ per_page: '2.5' }, 'per_page'],
          [{ page: 0 }, 'page'],
          [{ page: -1 }, 'page'],
          [{ page: 'x' }, 'page'],
        ];
        for (const path of LISTS) {
          for (const [query, field] of cases) {
            const res = await gw.get(path, { authorization: auth(), query, ...(path === TENANTS ? {} : { tenant: tenant() }) });
            expectError(res, 'VALIDATION_ERROR', field);
          }
          const ok = await gw.get(path, { authorization: auth(), query: { page: 1, per_page: 100 }, ...(path === TENANTS ? {} : { tenant: tenant() }) });
          expect(ok.status, ok.text).toBe(200);
        }
      });
    });

    describe('422 IDEMPOTENCY_KEY_REUSED and replays', () => {
      it('same key and body replays the first response with a new request_id; a different body is refused', async () => {
        const target = await createTenant(stack.internal, 'Idem');
        await grantTenant(stack.internal, target.id, alpha.id);
        const key = `e2e-${randomUUID()}`;
        const body = { tenant_id: target.id, days_connected: 5, installation_type: 'marketplace' };
        const first = await gw.post(AUTHORIZE, body, { authorization: auth(), headers: { 'idempotency-key': key } });
        expect(first.status, first.text).toBe(200);
        const replay = await gw.post(AUTHORIZE, body, { authorization: auth(), headers: { 'idempotency-key': key } });
        expect(replay.status).toBe(200);
        expect(replay.headers['idempotent-replayed']).toBe('true');
        expect(replay.body.request_id).not.toBe(first.body.request_id);
        expect({ ...replay.body, request_id: null }).toEqual({ ...first.body, request_id: null });

        for (const other of [{ ...body, days_connected: 6 }, { ...body, installation_type: 'custom' }, { tenant_id: target.id }]) {
          const reused = await gw.post(AUTHORIZE, other, { authorization: auth(), headers: { 'idempotency-key': key } });
          expectError(reused, 'IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key');
        }
        const elsewhere = await gw.post(DEAUTHORIZE, { tenant_id: target.id }, { authorization: auth(), headers: { 'idempotency-key': key } });
        expectError(elsewhere, 'IDEMPOTENCY_KEY_REUSED', 'Idempotency-Key');

        const listed = await gw.get(TENANTS, { authorization: auth(), query: { per_page: 100 } });
        const installation = listed.body.data.installations.find((i: { tenant_id: string }) => i.tenant_id === target.id);
        expect(installation, 'the refused requests had no effect').toMatchObject({ days_connected: 5, installation_type: 'marketplace', uninstall_at: null });
      });
    });

    describe('429 RATE_LIMITED (a gateway with RATE_LIMIT_SMALL=5 per hour)', () => {
      it('the request over the limit is refused with Retry-After and has no effect', async () => {
        const partner = await onboardPartner(stack.internal, gw, { label: `Busy${form}`, tenants: 0 });
        const header = authorizationHeader(form, partner.key);
        const target = await createTenant(stack.internal, 'Late');
        await grantTenant(stack.internal, target.id, partner.id);
        await roomInWindow(LONG_WINDOW_MS, 10_000);
        const remaining: string[] = [];
        for (let i = 0; i < SMALL_LIMIT; i += 1) {
          const res = await lgw.get(TENANTS, { authorization: header });
          expect(res.status, res.text).toBe(200);
          expect(res.headers['x-ratelimit-limit']).toBe(String(SMALL_LIMIT));
          remaining.push(res.headers['x-ratelimit-remaining']!);
        }
        expect(remaining).toEqual(['4', '3', '2', '1', '0']);
        const refused = await lgw.post(AUTHORIZE, { tenant_id: target.id, days_connected: 1, installation_type: 'custom' }, { authorization: header });
        expectError(refused, 'RATE_LIMITED');
        const retryAfter = Number(refused.headers['retry-after']);
        expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= LONG_WINDOW_MS / 1000, `Retry-After ${refused.headers['retry-after']}`).toBe(true);
        expect(Math.abs(Date.now() / 1000 + retryAfter - Number(refused.headers['x-ratelimit-reset'])), 'Retry-After points at the reset').toBeLessThanOrEqual(2);
        expect(refused.headers['x-ratelimit-remaining']).toBe('0');
        expect(Number(refused.headers['x-ratelimit-reset'])).toBeGreaterThan(Date.now() / 1000);
        expectError(await lgw.get(LOCATIONS, { authorization: header, tenant: randomUUID() }), 'RATE_LIMITED');

        // The other gateway process counts in its own memory: it answers, and shows nothing was installed.
        const listed = await gw.get(TENANTS, { authorization: header });
        expect(listed.status).toBe(200);
        expect(listed.body.data.installations).toEqual([]);
      });
    });
  });
});
