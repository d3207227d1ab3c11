import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, parseAuthorization, type ResolveApiKey } from './authenticate.js';
import { sendEnvelopeA } from './envelope.js';
import { json, PARTNER, serveRoutes, type RunningServer } from '../testing/test-server.js';

const KEY = 'pk_live_Zx8sQ2vN4mR7tY1uI3oP5aS6dF9gH0jK';

describe('parseAuthorization', () => {
  it.each([
    [KEY, KEY],
    [`Bearer ${KEY}`, KEY],
    [`bearer ${KEY}`, KEY],
    [`  BEARER   ${KEY}  `, KEY],
    [`  ${KEY}\t`, KEY],
  ])('accepts %j', (header, key) => {
    expect(parseAuthorization(header)).toEqual({ ok: true, key });
  });

  it.each([undefined, '', '   '])('reports a missing key for %j', (header) => {
    const parsed = parseAuthorization(header);
    expect(parsed.ok).toBe(false);
  });

  it.each(['Bearer', 'Bearer  ', `Basic ${KEY}`, `Bearer ${KEY} extra`, `Token=${KEY} x`, 'pk_é', 'x'.repeat(600)])(
    'rejects malformed %j',
    (header) => {
      expect(parseAuthorization(header).ok).toBe(false);
    },
  );
});

describe('authenticate', () => {
  let server: RunningServer;
  let lookups = 0;
  let revoked = false;
  const asked: (string | null)[] = [];
  beforeAll(async () => {
    const lookup: ResolveApiKey = (secret, tenantId) => {
      lookups += 1;
      asked.push(tenantId);
      if (secret !== KEY || revoked) return Promise.resolve(null);
      return Promise.resolve({ partner: PARTNER, installation: tenantId === null ? null : 'active' });
    };
    server = await serveRoutes((router) => {
      router.get('/me', authenticate(lookup), (ctx) => sendEnvelopeA(ctx, { partner: ctx.state.partner }));
      router.get('/tenant-me', authenticate(lookup, { tenantScoped: true }), (ctx) => sendEnvelopeA(ctx, { installation: ctx.state.installation ?? null }));
    });
  });
  afterAll(() => server.close());

  const call = (authorization?: string) =>
    fetch(`${server.url}/me`, authorization === undefined ? {} : { headers: { Authorization: authorization } });

  it.each([KEY, `Bearer ${KEY}`, ` bEaReR ${KEY} `])('accepts the key as %j', async (header) => {
    const res = await call(header);
    expect(res.status).toBe(200);
    expect((await json(res)).data).toEqual({ partner: PARTNER });
  });

  it('answers a missing header with 401 on field Authorization', async () => {
    const res = await call();
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(await json(res)).toMatchObject({
      status: 'unauthorized',
      error: { code: 'UNAUTHORIZED', details: { field: 'Authorization' } },
      request_id: res.headers.get('x-request-id'),
    });
  });

  it.each(['Bearer', `Basic ${KEY}`, `Bearer ${KEY} ${KEY}`])('answers malformed %j with 401 without a lookup', async (header) => {
    const before = lookups;
    const res = await call(header);
    expect(res.status).toBe(401);
    expect((await json(res)).error?.details.field).toBe('Authorization');
    expect(lookups).toBe(before);
  });

  it('answers an unknown key with 401, without echoing it', async () => {
    const res = await call('Bearer pk_live_not_a_real_key');
    expect(res.status).toBe(401);
    const text = await res.text();
    expect(text).toContain('UNAUTHORIZED');
    expect(text).not.toContain('pk_live_not_a_real_key');
  });

  it('asks on every request, so a revoked key fails on the very next one', async () => {
    const before = lookups;
    for (let i = 0; i < 3; i += 1) expect((await call(KEY)).status).toBe(200);
    expect(lookups - before).toBe(3);
    revoked = true;
    try {
      const res = await call(KEY);
      expect(res.status).toBe(401);
      expect((await json(res)).error?.details.issue).toBe('the API key is unknown or has been revoked');
    } finally {
      revoked = false;
    }
  });

  it('on a tenant-scoped route, reads the installation of a well-formed X-Tenant-Id in the same lookup', async () => {
    const tenant = '0B6F6A1E-3C2D-4E5F-8A9B-0C1D2E3F4A5B';
    const res = await fetch(`${server.url}/tenant-me`, { headers: { Authorization: KEY, 'X-Tenant-Id': ` ${tenant} ` } });
    expect((await json(res)).data).toEqual({ installation: { tenantId: tenant.toLowerCase(), state: 'active' } });
    expect(asked.at(-1)).toBe(tenant.toLowerCase());
    const malformed = await fetch(`${server.url}/tenant-me`, { headers: { Authorization: KEY, 'X-Tenant-Id': 'tenant-42' } });
    expect((await json(malformed)).data).toEqual({ installation: null });
    expect(asked.at(-1)).toBeNull();
  });
});
