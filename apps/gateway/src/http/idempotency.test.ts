import { AppError, domainError } from '@pits/domain';
import { afterEach, describe, expect, it } from 'vitest';
import { jsonBody } from './body-parser.js';
import { sendEnvelopeA } from './envelope.js';
import type { AuthenticatedPartner, GatewayMiddleware } from './gateway-state.js';
import {
  canonicalJson,
  createMemoryIdempotencyStore,
  idempotency,
  MAX_FINGERPRINT_DEPTH,
  requestFingerprint,
  type IdempotencyOptions,
} from './idempotency.js';
import { json, PARTNER, recordingLogger, serveRoutes, UUID_V4, type LogLine, type RunningServer } from '../testing/test-server.js';

const OTHER: AuthenticatedPartner = { ...PARTNER, partnerId: 99 };

/** Picks the partner from an `X-Test-Partner` header so one server can act for two partners. */
const partnerFromHeader: GatewayMiddleware = async (ctx, next) => {
  ctx.state.partner = ctx.get('X-Test-Partner') === '99' ? OTHER : PARTNER;
  const tenant = ctx.get('X-Tenant-Id');
  if (tenant !== '') ctx.state.tenantId = tenant;
  await next();
};

describe('idempotency', () => {
  let server: (RunningServer & { lines: LogLine[] }) | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  let runs = 0;
  let failNext: 'crash' | 'refuse' | null = null;
  async function start(options: Partial<IdempotencyOptions> = {}, handlerDelayMs = 0): Promise<string> {
    runs = 0;
    failNext = null;
    const { logger } = recordingLogger();
    const guard = idempotency({ store: createMemoryIdempotencyStore(), logger, ...options });
    server = await serveRoutes((router) => {
      const create: GatewayMiddleware = async (ctx) => {
        runs += 1;
        const run = runs;
        if (handlerDelayMs > 0) await new Promise((r) => setTimeout(r, handlerDelayMs));
        if (failNext === 'crash') {
          failNext = null;
          throw new Error('deadlock detected');
        }
        if (failNext === 'refuse') {
          failNext = null;
          throw new AppError(domainError('VALIDATION_ERROR', 'unknown location', { field: 'location_id' }));
        }
        sendEnvelopeA(ctx, { adjustment: { id: `ADJ-20260131-${String(run).padStart(6, '0')}` } }, 201);
        // What mountRoutes does in the work's transaction; the memory store has none.
        if (ctx.state.idempotency && !(await ctx.state.idempotency.complete(null, ctx.status, ctx.body))) throw new Error('claim lost');
      };
      const forgetful: GatewayMiddleware = (ctx) => {
        runs += 1;
        sendEnvelopeA(ctx, { forgot: true }, 201);
      };
      router.post('/adjustments', jsonBody(), partnerFromHeader, guard, create);
      router.patch('/adjustments/:id/approve', jsonBody(), partnerFromHeader, guard, create);
      router.get('/adjustments', partnerFromHeader, guard, create);
      router.post('/forgetful', jsonBody(), partnerFromHeader, guard, forgetful);
    });
    return server.url;
  }

  const post = (url: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${url}/adjustments`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', ...headers },
    });

  it('replays the first response with a new request_id, without running the handler again', async () => {
    const url = await start();
    const first = await post(url, { reason: 'count', items: [1] }, { 'Idempotency-Key': 'k-1' });
    expect(first.status).toBe(201);
    const firstBody = await json(first);

    const again = await post(url, { items: [1], reason: 'count' }, { 'Idempotency-Key': 'k-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const againBody = await json(again);
    expect(againBody.data).toEqual(firstBody.data);
    expect(againBody.request_id).toMatch(UUID_V4);
    expect(againBody.request_id).not.toBe(firstBody.request_id);
    expect(againBody.request_id).toBe(again.headers.get('x-request-id'));
    expect(runs).toBe(1);
  });

  it('answers the same key with a different body with 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const url = await start();
    await post(url, { reason: 'count' }, { 'Idempotency-Key': 'k-2' });
    const res = await post(url, { reason: 'recount' }, { 'Idempotency-Key': 'k-2' });
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({
      status: 'unprocessable_entity',
      error: { code: 'IDEMPOTENCY_KEY_REUSED', details: { field: 'Idempotency-Key' } },
    });
    expect(runs).toBe(1);
  });

  it('treats another path, method or tenant as a different request', async () => {
    const url = await start();
    await post(url, {}, { 'Idempotency-Key': 'k-3' });
    const otherPath = await fetch(`${url}/adjustments/ADJ-1/approve`, { method: 'PATCH', headers: { 'Idempotency-Key': 'k-3' } });
    expect((await json(otherPath)).error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    const otherTenant = await post(url, {}, { 'Idempotency-Key': 'k-3', 'X-Tenant-Id': '0b6f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b' });
    expect((await json(otherTenant)).error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
    expect(runs).toBe(1);
  });

  it('scopes keys per partner', async () => {
    const url = await start();
    await post(url, {}, { 'Idempotency-Key': 'shared' });
    const other = await post(url, {}, { 'Idempotency-Key': 'shared', 'X-Test-Partner': '99' });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(runs).toBe(2);
  });

  it('runs the handler exactly once for 20 concurrent requests with one key, and all get its response', async () => {
    const url = await start({}, 100);
    const responses = await Promise.all(
      Array.from({ length: 20 }, () => post(url, { reason: 'burst' }, { 'Idempotency-Key': 'burst-1' })),
    );
    const bodies = await Promise.all(responses.map((r) => json(r)));
    expect(runs).toBe(1);
    expect(responses.map((r) => r.status)).toEqual(Array(20).fill(201));
    expect(new Set(bodies.map((b) => JSON.stringify(b.data))).size).toBe(1);
    expect(new Set(bodies.map((b) => b.request_id)).size).toBe(20);
    expect(responses.filter((r) => r.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
  });

  it('gives up waiting on a request still in progress with 422 IDEMPOTENCY_KEY_REUSED', async () => {
    const url = await start({ waitMs: 50 }, 400);
    const slow = post(url, {}, { 'Idempotency-Key': 'slow' });
    await new Promise((r) => setTimeout(r, 50));
    const dup = await post(url, {}, { 'Idempotency-Key': 'slow' });
    expect(dup.status).toBe(422);
    expect(await json(dup)).toMatchObject({
      error: { code: 'IDEMPOTENCY_KEY_REUSED', details: { issue: 'a request with this key is still in progress' } },
    });
    expect((await slow).status).toBe(201);
    expect(runs).toBe(1);
  });

  it('does not store a 5xx: the same key can be retried and runs again', async () => {
    const url = await start();
    failNext = 'crash';
    const crashed = await post(url, {}, { 'Idempotency-Key': 'retry-me' });
    expect(crashed.status).toBe(500);
    const retried = await post(url, {}, { 'Idempotency-Key': 'retry-me' });
    expect(retried.status).toBe(201);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(runs).toBe(2);
  });

  it('stores and replays a 4xx refusal', async () => {
    const url = await start();
    failNext = 'refuse';
    const refused = await post(url, { location_id: 5 }, { 'Idempotency-Key': 'refused' });
    expect(refused.status).toBe(422);
    const first = await json(refused);
    const replay = await post(url, { location_id: 5 }, { 'Idempotency-Key': 'refused' });
    expect(replay.status).toBe(422);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const second = await json(replay);
    expect(second.error).toEqual(first.error);
    expect(second.request_id).toBe(replay.headers.get('x-request-id'));
    expect(runs).toBe(1);
    // The replayed refusal's access line names its code, as the first one's did.
    const logged = (res: Response) => server!.lines.find((l) => l.msg === 'request finished' && l.request_id === res.headers.get('x-request-id'))?.error_code;
    expect([logged(refused), logged(replay)]).toEqual(['VALIDATION_ERROR', 'VALIDATION_ERROR']);
  });

  it('refuses a 2xx the route did not store (500), and releases the key for a retry', async () => {
    const url = await start();
    const forgot = await fetch(`${url}/forgetful`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'forgot' } });
    expect(forgot.status).toBe(500);
    const again = await fetch(`${url}/forgetful`, { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'forgot' } });
    expect(again.status).toBe(500);
    expect(runs).toBe(2);
  });

  it.each([
    ['empty', ''],
    ['longer than 255 characters', 'k'.repeat(256)],
  ])('answers a key that is %s with 422 VALIDATION_ERROR on Idempotency-Key', async (_, key) => {
    const url = await start();
    const res = await post(url, {}, { 'Idempotency-Key': key });
    expect(res.status).toBe(422);
    expect(await json(res)).toMatchObject({ error: { code: 'VALIDATION_ERROR', details: { field: 'Idempotency-Key' } } });
    expect(runs).toBe(0);
  });

  it('accepts a key of 255 characters', async () => {
    const url = await start();
    expect((await post(url, {}, { 'Idempotency-Key': 'k'.repeat(255) })).status).toBe(201);
  });

  it('does nothing without the header, or on GET', async () => {
    const url = await start();
    await post(url, {});
    await post(url, {});
    await fetch(`${url}/adjustments`, { headers: { 'Idempotency-Key': 'get' } });
    await fetch(`${url}/adjustments`, { headers: { 'Idempotency-Key': 'get' } });
    expect(runs).toBe(4);
  });

  it('forgets a key after 24 hours', async () => {
    let clock = Date.UTC(2026, 0, 31);
    const url = await start({ now: () => clock });
    await post(url, {}, { 'Idempotency-Key': 'daily' });
    clock += 24 * 60 * 60 * 1000 - 1;
    expect((await post(url, {}, { 'Idempotency-Key': 'daily' })).headers.get('idempotent-replayed')).toBe('true');
    clock += 1;
    expect((await post(url, {}, { 'Idempotency-Key': 'daily' })).headers.get('idempotent-replayed')).toBeNull();
    expect(runs).toBe(2);
  });
});

describe('memory idempotency store', () => {
  it('lets a dead claim be taken over after its lease, and only the newest claim complete', async () => {
    const store = createMemoryIdempotencyStore({ claimLeaseMs: 1000 });
    const first = await store.begin(1, 'k', 'f', 0);
    expect(first).toMatchObject({ state: 'new' });
    expect(await store.begin(1, 'k', 'f', 999)).toEqual({ state: 'in_progress' });
    expect(await store.begin(1, 'k', 'other', 999)).toEqual({ state: 'mismatch' });
    const second = await store.begin(1, 'k', 'f', 1000);
    expect(second).toMatchObject({ state: 'new' });
    if (first.state !== 'new' || second.state !== 'new') throw new Error('claims expected');
    expect(await store.complete(null, 1, 'k', first.token, 201, { from: 'first' })).toBe(false);
    expect(await store.complete(null, 1, 'k', second.token, 201, { from: 'second' })).toBe(true);
    expect(await store.begin(1, 'k', 'f', 1001)).toEqual({ state: 'replay', status: 201, body: { from: 'second' } });
  });

  it('replays a completed record and releases an abandoned one', async () => {
    const store = createMemoryIdempotencyStore();
    const a = await store.begin(1, 'a', 'f', 0);
    if (a.state !== 'new') throw new Error('claim expected');
    await store.complete(null, 1, 'a', a.token, 201, { data: 1 });
    expect(await store.begin(1, 'a', 'f', 10)).toEqual({ state: 'replay', status: 201, body: { data: 1 } });
    await store.abandon(1, 'a', a.token);
    expect(await store.begin(1, 'a', 'f', 20)).toMatchObject({ state: 'replay' });

    const b = await store.begin(1, 'b', 'f', 0);
    if (b.state !== 'new') throw new Error('claim expected');
    await store.abandon(1, 'b', 'not-the-token');
    expect(await store.begin(1, 'b', 'f', 1)).toEqual({ state: 'in_progress' });
    await store.abandon(1, 'b', b.token);
    expect(await store.begin(1, 'b', 'g', 1)).toMatchObject({ state: 'new' });
  });
});

describe('requestFingerprint', () => {
  it('ignores key order but not values, method, path or tenant', () => {
    const base = requestFingerprint('POST', '/a', null, { x: 1, y: { b: 2, a: [1, { d: 4, c: 3 }] } });
    expect(requestFingerprint('post', '/a', null, { y: { a: [1, { c: 3, d: 4 }], b: 2 }, x: 1 })).toBe(base);
    expect(requestFingerprint('POST', '/a', null, { x: 2, y: { b: 2, a: [1, { d: 4, c: 3 }] } })).not.toBe(base);
    expect(requestFingerprint('PATCH', '/a', null, { x: 1, y: { b: 2, a: [1, { d: 4, c: 3 }] } })).not.toBe(base);
    expect(requestFingerprint('POST', '/b', null, { x: 1, y: { b: 2, a: [1, { d: 4, c: 3 }] } })).not.toBe(base);
    expect(requestFingerprint('POST', '/a', 't', { x: 1, y: { b: 2, a: [1, { d: 4, c: 3 }] } })).not.toBe(base);
  });

  it('writes canonical JSON', () => {
    expect(canonicalJson({ b: [3, { z: 1, a: null }], a: 'x' })).toBe('{"a":"x","b":[3,{"a":null,"z":1}]}');
  });

  it('refuses to recurse without bound: a 200,000-deep value is an INVALID_REQUEST, not a stack overflow', () => {
    let deep: unknown = 1;
    for (let i = 0; i < 200_000; i += 1) deep = [deep];
    expect(() => requestFingerprint('POST', '/a', null, deep)).toThrow(expect.objectContaining({ name: 'AppError', message: 'the request body nests too deeply' }));
    let shallow: unknown = 1;
    for (let i = 0; i < MAX_FINGERPRINT_DEPTH - 5; i += 1) shallow = { a: shallow };
    expect(requestFingerprint('POST', '/a', null, shallow)).toMatch(/^[0-9a-f]{64}$/);
  });
});
