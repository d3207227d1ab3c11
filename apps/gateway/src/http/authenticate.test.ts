import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate, createCachedKeyLookup, parseAuthorization, type LookupApiKey } from './authenticate.js';
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
  beforeAll(async () => {
    const lookup: LookupApiKey = (secret) => {
      lookups += 1;
      return Promise.resolve(secret === KEY ? PARTNER : null);
    };
    server = await serveRoutes((router) => {
      router.get('/me', authenticate(lookup), (ctx) => sendEnvelopeA(ctx, { partner: ctx.state.partner }));
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
});

describe('createCachedKeyLookup', () => {
  it('asks the database once per key within the TTL, and a revoked key fails after it', async () => {
    let revoked = false;
    let calls = 0;
    let clock = 1_000_000;
    const cached = createCachedKeyLookup(
      (secret) => {
        calls += 1;
        return Promise.resolve(secret === KEY && !revoked ? PARTNER : null);
      },
      { ttlMs: 2000, now: () => clock },
    );
    const server = await serveRoutes((router) => {
      router.get('/me', authenticate(cached), (ctx) => sendEnvelopeA(ctx, { id: ctx.state.partner?.partnerId }));
    });
    try {
      const call = () => fetch(`${server.url}/me`, { headers: { Authorization: `Bearer ${KEY}` } });
      for (let i = 0; i < 5; i += 1) expect((await call()).status).toBe(200);
      expect(calls).toBe(1);

      revoked = true;
      clock += 1999;
      expect((await call()).status).toBe(200);
      clock += 1;
      expect((await call()).status).toBe(401);
      expect((await call()).status).toBe(401);
      expect(calls).toBe(3);
    } finally {
      await server.close();
    }
  });

  it('does not cache unknown keys by default, so a key works as soon as it exists', async () => {
    let exists = false;
    let calls = 0;
    const cached = createCachedKeyLookup((secret) => {
      calls += 1;
      return Promise.resolve(exists && secret === KEY ? PARTNER : null);
    });
    expect(await cached(KEY)).toBeNull();
    exists = true;
    expect(await cached(KEY)).toEqual(PARTNER);
    expect(calls).toBe(2);
  });

  it('caches unknown keys only as long as negativeTtlMs', async () => {
    let clock = 0;
    let calls = 0;
    const cached = createCachedKeyLookup(
      () => {
        calls += 1;
        return Promise.resolve(null);
      },
      { negativeTtlMs: 500, now: () => clock },
    );
    await cached('nope');
    await cached('nope');
    expect(calls).toBe(1);
    clock += 500;
    await cached('nope');
    expect(calls).toBe(2);
  });

  it('shares one lookup among concurrent requests for the same key and never caches failures', async () => {
    let calls = 0;
    let fail = true;
    const cached = createCachedKeyLookup(async () => {
      calls += 1;
      await new Promise((r) => setTimeout(r, 20));
      if (fail) throw new Error('database down');
      return PARTNER;
    });
    const results = await Promise.allSettled(Array.from({ length: 10 }, () => cached(KEY)));
    expect(calls).toBe(1);
    expect(results.every((r) => r.status === 'rejected')).toBe(true);
    fail = false;
    expect(await cached(KEY)).toEqual(PARTNER);
    expect(calls).toBe(2);
  });

  it('keeps at most maxEntries keys', async () => {
    let calls = 0;
    const cached = createCachedKeyLookup(
      () => {
        calls += 1;
        return Promise.resolve(PARTNER);
      },
      { maxEntries: 2 },
    );
    await cached('a');
    await cached('b');
    await cached('c');
    await cached('a');
    expect(calls).toBe(4);
    await cached('c');
    expect(calls).toBe(4);
  });
});
