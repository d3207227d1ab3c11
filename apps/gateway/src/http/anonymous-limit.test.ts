import { afterEach, describe, expect, it } from 'vitest';
import { type AnonymousLimitOptions, anonymousLimit, clientAddressKey } from './anonymous-limit.js';
import { authenticate, type ResolveApiKey } from './authenticate.js';
import { sendEnvelopeA } from './envelope.js';
import { createMemoryRateLimitStore, type RateLimitStore } from './rate-limit-store.js';
import { PARTNER, json, recordingLogger, serveRoutes, type RunningServer } from '../testing/test-server.js';

const T0 = Date.UTC(2026, 0, 31, 8, 15, 0);
const VALID = 'pk_test_valid_key_0123456789';
const LIMIT = 5;

describe('clientAddressKey', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['::ffff:127.0.0.1', '127.0.0.1'],
    ['::1', '0:0:0:0::/64'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff::1%eth0', '2001:db8:1:2::/64'],
    ['2001:db8:a::1.2.3.4', '2001:db8:a:0::/64'],
    ['not-an-address', 'not-an-address'],
    [undefined, 'unknown'],
  ])('%j counts as %j', (address, key) => {
    expect(clientAddressKey(address)).toBe(key);
  });
});

describe('anonymousLimit', () => {
  let server: RunningServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  let clock = T0;
  let lookups = 0;
  const refused: string[] = [];

  async function start(options: Partial<AnonymousLimitOptions> = {}) {
    clock = T0 + 15_000;
    lookups = 0;
    refused.length = 0;
    const recording = recordingLogger();
    const anonymous = anonymousLimit({
      store: createMemoryRateLimitStore(),
      logger: recording.logger,
      limit: LIMIT,
      now: () => clock,
      onRefused: (limit) => refused.push(limit),
      ...options,
    });
    let revoked = false;
    const lookup: ResolveApiKey = (secret) => {
      lookups += 1;
      return Promise.resolve(secret === VALID && !revoked ? { partner: PARTNER, installation: null } : null);
    };
    const auth = authenticate(lookup, { guard: anonymous.guard });
    server = await serveRoutes(
      (router) => {
        router.get('/partner', auth, (ctx) => sendEnvelopeA(ctx, { ok: true }));
        router.get('/docs', anonymous.publicRoutes, (ctx) => {
          ctx.body = 'the reference';
        });
        router.get('/broken', anonymous.publicRoutes, () => {
          throw new Error('the handler failed');
        });
      },
      { logger: recording.logger },
    );
    return { url: server.url, revoke: () => (revoked = true), lines: recording.lines };
  }

  const withKey = (key: string) => ({ headers: { authorization: `Bearer ${key}` } });

  it('counts each 401 against the address, then answers 429 with the rate-limit headers before looking the key up', async () => {
    const { url } = await start();
    for (let i = 1; i <= LIMIT; i += 1) {
      const res = await fetch(`${url}/partner`, withKey(`pk_test_wrong_${i}`));
      expect(res.status).toBe(401);
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - i));
      expect(res.headers.get('ratelimit-policy')).toBe(`${LIMIT};w=60`);
    }
    expect(lookups).toBe(LIMIT);

    // The one that goes over was looked up already; it is refused 429 all the same.
    const over = await fetch(`${url}/partner`, withKey('pk_test_wrong_over'));
    expect(over.status).toBe(429);
    expect(lookups).toBe(LIMIT + 1);

    clock = T0 + 50_500;
    for (const init of [withKey('pk_test_wrong_again'), {}, { headers: { authorization: 'Basic x y' } }]) {
      const res = await fetch(`${url}/partner`, init);
      expect(res.status).toBe(429);
      expect(res.headers.get('retry-after')).toBe('10');
      expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect(res.headers.get('x-ratelimit-reset')).toBe(String((T0 + 60_000) / 1000));
      expect(res.headers.get('ratelimit')).toBe(`limit=${LIMIT}, remaining=0, reset=10`);
      expect(await json(res)).toMatchObject({ status: 'too_many_requests', error: { code: 'RATE_LIMITED' } });
    }
    // Refused before the lookup: the database is not asked again.
    expect(lookups).toBe(LIMIT + 1);
    expect(refused.every((name) => name === 'anonymous')).toBe(true);
    expect(refused).toHaveLength(4);

    // The next window starts afresh.
    clock = T0 + 60_000;
    expect((await fetch(`${url}/partner`, withKey('pk_test_wrong_later'))).status).toBe(401);
  });

  it('serves a valid key without counting it, and keeps serving it from an address over the budget', async () => {
    const { url } = await start();
    for (let i = 0; i < 20; i += 1) {
      const res = await fetch(`${url}/partner`, withKey(VALID));
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    for (let i = 0; i <= LIMIT; i += 1) await fetch(`${url}/partner`, withKey(`pk_test_wrong_${i}`));
    expect((await fetch(`${url}/partner`, withKey('pk_test_wrong_x'))).status).toBe(429);

    const lookupsBefore = lookups;
    const res = await fetch(`${url}/partner`, withKey(VALID));
    expect(res.status).toBe(200);
    // Still looked up every time: a revoked key fails on its very next request.
    expect(lookups).toBe(lookupsBefore + 1);
  });

  it('keeps a key in use recognised past its first time to live, and forgets one left unused', async () => {
    // A tenth of the time to live: a key seen again after that gets its full time back.
    const { url } = await start({ validKeyTtlMs: 10_000 });
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(200); // valid until T0 + 25 s
    clock = T0 + 15_500;
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(200); // within the refresh window: unchanged
    clock = T0 + 24_000;
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(200); // refreshed: valid until T0 + 34 s
    for (let i = 0; i <= LIMIT; i += 1) await fetch(`${url}/partner`, withKey(`pk_test_wrong_${i}`));
    clock = T0 + 30_000;
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(200); // past its first 10 s; refreshed to T0 + 40 s
    clock = T0 + 39_500;
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(200); // refreshed to T0 + 49.5 s
    // Unused past its time: refused with the rest while the address is over its budget.
    clock = T0 + 50_000;
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(429);
  });

  it('forgets a key that stops working, so a revoked key is refused with the rest', async () => {
    const { url, revoke } = await start();
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(200);
    for (let i = 0; i <= LIMIT; i += 1) await fetch(`${url}/partner`, withKey(`pk_test_wrong_${i}`));
    revoke();
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(429);
    const lookupsBefore = lookups;
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(429);
    expect(lookups).toBe(lookupsBefore);
  });

  it('limits the public endpoints per address, with the same headers', async () => {
    const { url } = await start();
    for (let i = 1; i <= LIMIT; i += 1) {
      const res = await fetch(`${url}/docs`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - i));
    }
    const over = await fetch(`${url}/docs`);
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('45');
    expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    // The same budget as failed authentication: the address is over it for both.
    expect((await fetch(`${url}/partner`, withKey('pk_test_wrong'))).status).toBe(429);
    expect(lookups).toBe(0);
    // A partner with a key this process has not seen valid yet is refused too, until the window ends (docs/rate-limits.md).
    expect((await fetch(`${url}/partner`, withKey(VALID))).status).toBe(429);
  });

  it('keeps the rate-limit headers on a public route\'s 500: the request was counted before its handler failed', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/broken`);
    expect(res.status).toBe(500);
    expect(await json(res)).toMatchObject({ error: { code: 'INTERNAL_ERROR' } });
    expect(res.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    expect(res.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
    expect(res.headers.get('x-ratelimit-reset')).toBe(String((T0 + 60_000) / 1000));
    expect(res.headers.get('ratelimit')).toBe(`limit=${LIMIT}, remaining=${LIMIT - 1}, reset=45`);
    expect(res.headers.get('ratelimit-policy')).toBe(`${LIMIT};w=60`);
    expect(res.headers.get('retry-after')).toBeNull();
  });

  it('fails open when the store fails, as the partner limits do', async () => {
    const broken: RateLimitStore = { hit: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:6379')) };
    const { url, lines } = await start({ store: broken });
    for (let i = 0; i < LIMIT + 3; i += 1) {
      const res = await fetch(`${url}/docs`);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    }
    expect((await fetch(`${url}/partner`, withKey('pk_test_wrong'))).status).toBe(401);
    expect(lines.some((l) => l.level === 40 && String(l.msg).includes('rate-limit store failed'))).toBe(true);
  });
});
