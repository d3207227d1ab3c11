import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEnvelopeA } from './envelope.js';
import { authenticate, type ResolveApiKey } from './authenticate.js';
import { requireTenant } from './tenant-guard.js';
import { asPartner, json, PARTNER, serveRoutes, type RunningServer } from '../testing/test-server.js';

const ACTIVE = '0b6f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';
const INACTIVE = '1b6f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';

describe('requireTenant', () => {
  let server: RunningServer;
  const checks: Array<[number, string | null]> = [];
  beforeAll(async () => {
    const resolve: ResolveApiKey = (_secret, tenantId) => {
      checks.push([PARTNER.partnerId, tenantId]);
      return Promise.resolve({ partner: PARTNER, installation: tenantId === null ? null : tenantId === ACTIVE ? 'active' : tenantId === INACTIVE ? 'inactive' : 'unknown' });
    };
    server = await serveRoutes((router) => {
      router.get('/tenant-data', authenticate(resolve, { tenantScoped: true }), requireTenant(), (ctx) => sendEnvelopeA(ctx, { tenant: ctx.state.tenantId }));
      // A guard without the installation read by authenticate refuses (it never trusts a missing answer).
      router.get('/unchecked', asPartner(), requireTenant(), (ctx) => sendEnvelopeA(ctx, { tenant: ctx.state.tenantId }));
    });
  });
  afterAll(() => server.close());

  const call = (tenant?: string) =>
    fetch(`${server.url}/tenant-data`, { headers: { Authorization: 'pk_test_any', ...(tenant === undefined ? {} : { 'X-Tenant-Id': tenant }) } });

  it('puts an active tenant on ctx.state.tenantId (lower-cased)', async () => {
    const res = await call(`  ${ACTIVE.toUpperCase()} `);
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ tenant: ACTIVE });
    expect(checks.at(-1)).toEqual([PARTNER.partnerId, ACTIVE]);
  });

  it.each([undefined, '', '   '])('answers a missing or blank header (%j) with 400 on X-Tenant-Id', async (tenant) => {
    const res = await call(tenant);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({
      status: 'bad_request',
      error: { code: 'INVALID_REQUEST', details: { field: 'X-Tenant-Id' } },
    });
  });

  it('answers a value that is not a UUID with 403, without asking for an installation', async () => {
    const res = await call('tenant-42');
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ status: 'forbidden', error: { code: 'FORBIDDEN', details: { field: 'X-Tenant-Id' } } });
    expect(checks.at(-1)).toEqual([PARTNER.partnerId, null]);
  });

  it('refuses when no installation was read for the tenant', async () => {
    const res = await fetch(`${server.url}/unchecked`, { headers: { 'X-Tenant-Id': ACTIVE } });
    expect(res.status).toBe(403);
  });

  it.each([
    ['deauthorized', INACTIVE],
    ['unknown', '9b6f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b'],
  ])('answers a %s tenant with 403 FORBIDDEN', async (_, tenant) => {
    const res = await call(tenant);
    expect(res.status).toBe(403);
    expect((await json(res)).error?.code).toBe('FORBIDDEN');
  });
});
