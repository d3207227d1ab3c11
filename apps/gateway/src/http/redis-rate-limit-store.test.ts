import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { createApiKey } from '@pits/persistence';
import { connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEnvelopeA } from './envelope.js';
import { anonymousLimit } from './anonymous-limit.js';
import { authenticate, type ResolveApiKey } from './authenticate.js';
import { rateLimit } from './rate-limit.js';
import { createRedisRateLimitStore } from './redis-rate-limit-store.js';
import { PARTNER, asPartner, recordingLogger, serveRoutes } from '../testing/test-server.js';
import { loadGatewayConfig } from '../config.js';
import { createGateway } from '../create-gateway.js';

const REDIS_URL = process.env['REDIS_URL'] ?? 'redis://127.0.0.1:6379';
const MINUTE = 60_000;

async function connect(): Promise<Redis | undefined> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 1000, retryStrategy: () => null });
  redis.on('error', () => undefined); // connection failures surface through connect() below
  try {
    await redis.connect();
    await redis.ping();
    return redis;
  } catch (err) {
    redis.disconnect();
    if (process.env['CI'] === 'true') throw err;
    console.warn(`Skipping Redis rate-limit store tests: Redis at ${REDIS_URL} is unreachable (${String(err)}).`);
    return undefined;
  }
}

const redis = await connect();

describe.skipIf(redis === undefined)('Redis rate-limit store', () => {
  const prefix = `test:rl:${randomUUID()}:`;
  let client: Redis;
  beforeAll(() => {
    if (redis === undefined) throw new Error('unreachable');
    client = redis;
  });
  afterAll(async () => {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
    client.disconnect();
  });

  it('counts hits per key and window, with an expiry', async () => {
    const store = createRedisRateLimitStore({ redis: client, prefix });
    const t0 = Date.UTC(2026, 0, 31, 8, 15, 0);
    expect(await store.hit('p:1', MINUTE, t0 + 5)).toEqual({ count: 1, resetAt: t0 + MINUTE });
    expect(await store.hit('p:1', MINUTE, t0 + 59_000)).toEqual({ count: 2, resetAt: t0 + MINUTE });
    expect(await store.hit('p:2', MINUTE, t0 + 10)).toEqual({ count: 1, resetAt: t0 + MINUTE });
    expect(await store.hit('p:1', MINUTE, t0 + MINUTE)).toEqual({ count: 1, resetAt: t0 + 2 * MINUTE });
    const ttl = await client.pttl(`${prefix}p:1:${t0}`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(MINUTE + 1000);
  });

  it('never loses a count under concurrent hits', async () => {
    const store = createRedisRateLimitStore({ redis: client, prefix });
    const now = Date.now();
    const results = await Promise.all(Array.from({ length: 100 }, () => store.hit('concurrent', MINUTE, now)));
    expect(results.map((r) => r.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
  });

  it('holds the limit across two gateway processes sharing one Redis', async () => {
    const second = client.duplicate();
    await second.connect();
    const { logger } = recordingLogger();
    const now = () => Date.UTC(2026, 0, 31, 9, 0, 30);
    const limitA = rateLimit({ store: createRedisRateLimitStore({ redis: client, prefix }), logger, tiers: { small: 7, medium: 7, large: 7 }, now });
    const limitB = rateLimit({ store: createRedisRateLimitStore({ redis: second, prefix }), logger, tiers: { small: 7, medium: 7, large: 7 }, now });
    let handled = 0;
    const processA = await serveRoutes((router) => {
      router.get('/x', asPartner(), limitA, (ctx) => {
        handled += 1;
        sendEnvelopeA(ctx, {});
      });
    });
    const processB = await serveRoutes((router) => {
      router.get('/x', asPartner(), limitB, (ctx) => {
        handled += 1;
        sendEnvelopeA(ctx, {});
      });
    });
    try {
      const responses = await Promise.all(
        Array.from({ length: 20 }, (_, i) => fetch(`${(i % 2 === 0 ? processA : processB).url}/x`)),
      );
      const statuses = responses.map((r) => r.status);
      expect(statuses.filter((s) => s === 200)).toHaveLength(7);
      expect(statuses.filter((s) => s === 429)).toHaveLength(13);
      expect(handled).toBe(7);
    } finally {
      await processA.close();
      await processB.close();
      second.disconnect();
    }
  });

  it('holds the anonymous budget per address across two gateway processes, and still serves a valid key', async () => {
    const second = client.duplicate();
    await second.connect();
    const { logger } = recordingLogger();
    const now = () => Date.UTC(2026, 0, 31, 9, 5, 30);
    const LIMIT = 6;
    let lookups = 0;
    const lookup: ResolveApiKey = (secret) => {
      lookups += 1;
      return Promise.resolve(secret === 'pk_test_valid' ? { partner: PARTNER, installation: null } : null);
    };
    const processes = await Promise.all(
      [client, second].map((redis) => {
        const anonymous = anonymousLimit({ store: createRedisRateLimitStore({ redis, prefix: `${prefix}anon:` }), logger, limit: LIMIT, now });
        return serveRoutes((router) => {
          router.get('/x', authenticate(lookup, { guard: anonymous.guard }), (ctx) => sendEnvelopeA(ctx, {}));
        });
      }),
    );
    try {
      const get = (i: number, key: string) => fetch(`${processes[i % 2]!.url}/x`, { headers: { authorization: `Bearer ${key}` } });
      // The valid key is seen by both processes first.
      expect((await get(0, 'pk_test_valid')).status).toBe(200);
      expect((await get(1, 'pk_test_valid')).status).toBe(200);
      const statuses: number[] = [];
      for (let i = 0; i < 20; i += 1) statuses.push((await get(i, `pk_test_wrong_${i}`)).status);
      // Counted in one budget for both processes: LIMIT answers 401, the rest 429.
      expect(statuses.filter((s) => s === 401)).toHaveLength(LIMIT);
      expect(statuses.filter((s) => s === 429)).toHaveLength(20 - LIMIT);
      // Each process looks a key up at most once after the shared budget is spent, then refuses before the lookup.
      expect(lookups).toBeLessThanOrEqual(2 + LIMIT + 2);
      expect((await get(0, 'pk_test_valid')).status).toBe(200);
      expect((await get(1, 'pk_test_valid')).status).toBe(200);
    } finally {
      await Promise.all(processes.map((p) => p.close()));
      second.disconnect();
    }
  });

  it('lets requests through when Redis goes away', async () => {
    const dead = new Redis('redis://127.0.0.1:1', { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => undefined);
    const { logger, lines } = recordingLogger();
    const limit = rateLimit({ store: createRedisRateLimitStore({ redis: dead, prefix }), logger });
    const server = await serveRoutes((router) => {
      router.get('/x', asPartner(), limit, (ctx) => sendEnvelopeA(ctx, {}));
    });
    try {
      const res = await fetch(`${server.url}/x`);
      expect(res.status).toBe(200);
      expect(lines.some((l) => l.level === 40)).toBe(true);
    } finally {
      await server.close();
      dead.disconnect();
    }
  });

  it('the assembled gateway counts under RATE_LIMIT_KEY_PREFIX, so runs sharing one Redis keep apart', async () => {
    // Any database does: this is about the Redis keys.
    const t = await openTestDatabase((await testDialects())[0]!);
    const gatewayPrefix = `${prefix}gateway:`;
    const gateway = createGateway(loadGatewayConfig({ CREDENTIALS_KEY: 'k'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', REDIS_URL, RATE_LIMIT_KEY_PREFIX: gatewayPrefix, LOG_LEVEL: 'warn' }), { database: t.database });
    try {
      const w = await seedTenantWorld(t.database);
      const { secret } = await createApiKey(t.database, w.partner.id, { environment: 'test' }, new Date());
      await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id }, new Date());
      const { url } = await gateway.listen();
      const call = () => fetch(`${url}/api/partner/v1/tenants`, { headers: { Authorization: `Bearer ${secret}`, 'X-Tenant-Id': w.tenant.id } });
      // Until its Redis connection is up, the gateway lets calls through uncounted (fail open, no headers).
      let remaining: string | null = null;
      for (let attempt = 0; remaining === null && attempt < 100; attempt += 1) {
        const res = await call();
        expect(res.status).toBe(200);
        remaining = res.headers.get('x-ratelimit-remaining');
        if (remaining === null) await new Promise((r) => setTimeout(r, 20));
      }
      const counted = 1000 - Number(remaining);
      expect((await call()).headers.get('x-ratelimit-remaining')).toBe(String(1000 - counted - 1));
      const keys = await client.keys(`${gatewayPrefix}*`);
      expect(keys).toHaveLength(1);
      expect(await client.get(keys[0]!)).toBe(String(counted + 1));
    } finally {
      await gateway.close();
      await t.cleanup();
    }
  });
});
