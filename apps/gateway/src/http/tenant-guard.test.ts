import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEnvelopeA } from './envelope.js';
import { requireTenant, type CheckInstallation } from './tenant-guard.js';
import { asPartner, json, PARTNER, serveRoutes, type RunningServer } from '../testing/test-server.js';

const ACTIVE = '0b6f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';
const INACTIVE = '1b6f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';

describe('requireTenant', () => {
  let server: RunningServer;
  const checks: Array<[number, string]> = [];
  beforeAll(async () => {
    const check: CheckInstallation = (partnerId, tenantId) => {
      checks.push([partnerId, tenantId]);
      return Promise.resolve(tenantId === ACTIVE ? 'active' : tenantId === INACTIVE ? 'inactive' : 'unknown');
    };
    server = await serveRoutes((router) => {
      router.get('/tenant-data', asPartner(), requireTenant(check), (ctx) => sendEnvelopeA(ctx, { tenant: ctx.state.tenantId }));
    });
  });
  afterAll(() => server.close());

  const call = (tenant?: string) =>
    fetch(`${server.url}/tenant-data`, tenant === undefined ? {} : { headers: { 'X-Tenant-Id': tenant } });

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

  it('answers a value that is not a UUID with 403 without asking', async () => {
    const before = checks.length;
    const res = await call('tenant-42');
    expect(res.status).toBe(403);
    expect(await json(res)).toMatchObject({ status: 'forbidden', error: { code: 'FORBIDDEN', details: { field: 'X-Tenant-Id' } } });
    expect(checks.length).toBe(before);
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
