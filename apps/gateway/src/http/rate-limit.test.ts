import { AppError, domainError } from '@pits/domain';
import { afterEach, describe, expect, it } from 'vitest';
import { sendEnvelopeA } from './envelope.js';
import type { AuthenticatedPartner } from './gateway-state.js';
import { nameRoute } from './gateway-state.js';
import { rateLimit, type RateLimitOptions } from './rate-limit.js';
import { createMemoryRateLimitStore, type RateLimitStore } from './rate-limit-store.js';
import { asPartner, json, PARTNER, recordingLogger, serveRoutes, type RunningServer } from '../testing/test-server.js';

const T0 = Date.UTC(2026, 0, 31, 8, 15, 0);
const LARGE: AuthenticatedPartner = { ...PARTNER, partnerId: 8, tier: 'large' };

describe('rateLimit', () => {
  let server: (RunningServer & { lines: Array<Record<string, unknown>> }) | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  let clock = T0;
  let handled = 0;
  async function start(options: Partial<RateLimitOptions> = {}) {
    clock = T0 + 15_000;
    handled = 0;
    const recording = recordingLogger();
    const limit = rateLimit({
      store: createMemoryRateLimitStore(),
      logger: recording.logger,
      tiers: { small: 5, medium: 10, large: 20 },
      operations: { 'inbound.list': 3 },
      now: () => clock,
      ...options,
    });
    const ok = (ctx: Parameters<typeof sendEnvelopeA>[0]) => {
      handled += 1;
      sendEnvelopeA(ctx, { handled });
    };
    server = await serveRoutes(
      (router) => {
        router.get('/adjustments', asPartner(), limit, ok);
        router.get('/large', asPartner(LARGE), limit, ok);
        router.get('/inbound', nameRoute('inbound.list'), asPartner(), limit, ok);
        router.get('inbound.list', '/inbound-named', asPartner(LARGE), limit, ok);
        router.get('/refuse', asPartner(), limit, () => {
          throw new AppError(domainError('VALIDATION_ERROR', 'bad page', { field: 'page' }));
        });
      },
      { logger: recording.logger },
    );
    return { ...server, lines: recording.lines };
  }

  it('reports the limit, the remaining count and the reset on every response', async () => {
    const { url } = await start();
    const first = await fetch(`${url}/adjustments`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe('5');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('4');
    expect(first.headers.get('x-ratelimit-reset')).toBe(String((T0 + 60_000) / 1000));
    expect(first.headers.get('ratelimit-policy')).toBe('5;w=60');
    expect(first.headers.get('ratelimit')).toBe('limit=5, remaining=4, reset=45');
    const second = await fetch(`${url}/adjustments`);
    expect(second.headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('puts the headers on error responses too', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/refuse`);
    expect(res.status).toBe(422);
    expect(res.headers.get('x-ratelimit-limit')).toBe('5');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('answers over the limit with 429 RATE_LIMITED and Retry-After, without running the handler', async () => {
    const { url } = await start();
    for (let i = 0; i < 5; i += 1) expect((await fetch(`${url}/adjustments`)).status).toBe(200);
    expect(handled).toBe(5);
    clock = T0 + 50_500;
    const res = await fetch(`${url}/adjustments`);
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('10');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(await json(res)).toMatchObject({
      status: 'too_many_requests',
      error: { code: 'RATE_LIMITED', details: { field: '' } },
      request_id: res.headers.get('x-request-id'),
    });
    expect(handled).toBe(5);

    clock = T0 + 60_000;
    const next = await fetch(`${url}/adjustments`);
    expect(next.status).toBe(200);
    expect(next.headers.get('x-ratelimit-remaining')).toBe('4');
  });

  it('takes the limit from the partner tier table', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/large`);
    expect(res.headers.get('x-ratelimit-limit')).toBe('20');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('19');
  });

  it('gives listed operations their own, tighter bucket and reports it', async () => {
    const { url } = await start();
    const first = await fetch(`${url}/inbound`);
    expect(first.headers.get('x-ratelimit-limit')).toBe('3');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('2');
    expect(first.headers.get('ratelimit-policy')).toBe('3;w=60, 5;w=60');
    await fetch(`${url}/inbound`);
    await fetch(`${url}/inbound`);
    const over = await fetch(`${url}/inbound`);
    expect(over.status).toBe(429);
    expect((await json(over)).error?.details.issue).toContain('inbound.list');

    // The tier bucket still has room for other operations (4 of 5 used).
    const other = await fetch(`${url}/adjustments`);
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-limit')).toBe('5');
    expect(other.headers.get('x-ratelimit-remaining')).toBe('0');
    expect((await fetch(`${url}/adjustments`)).status).toBe(429);
  });

  it('recognises an operation by the name the route was registered under', async () => {
    const { url } = await start();
    const res = await fetch(`${url}/inbound-named`);
    expect(res.headers.get('x-ratelimit-limit')).toBe('3');
  });

  it('fails open when the store fails, logging it', async () => {
    const broken: RateLimitStore = { hit: () => Promise.reject(new Error('ECONNREFUSED 127.0.0.1:6379')) };
    const { url, lines } = await start({ store: broken });
    const res = await fetch(`${url}/adjustments`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
    expect(handled).toBe(1);
    expect(lines.some((l) => l.level === 40 && String(l.msg).includes('rate-limit store failed'))).toBe(true);
  });

  it('counts through a store that answers at once without waiting on its promise', async () => {
    const memory = createMemoryRateLimitStore();
    const immediate: RateLimitStore = { hit: () => new Promise(() => undefined), hitNow: memory.hitNow! };
    const { url } = await start({ store: immediate, storeTimeoutMs: 60_000 });
    const res = await fetch(`${url}/adjustments`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('4');
    expect((await fetch(`${url}/adjustments`)).headers.get('x-ratelimit-remaining')).toBe('3');
  });

  it('fails open when the store hangs', async () => {
    const hanging: RateLimitStore = { hit: () => new Promise(() => undefined) };
    const { url } = await start({ store: hanging, storeTimeoutMs: 30 });
    const res = await fetch(`${url}/adjustments`);
    expect(res.status).toBe(200);
    expect(handled).toBe(1);
  });
});
