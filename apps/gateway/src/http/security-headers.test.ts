import Koa from 'koa';
import Router from '@koa/router';
import { AppError, type ErrorKind, domainError } from '@pits/domain';
import { requestId, securityHeaders } from '@pits/http-edge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessLog } from './access-log.js';
import { jsonBody } from './body-parser.js';
import { sendEnvelopeA } from './envelope.js';
import { errorMapper } from './error-mapper.js';
import type { GatewayState } from './gateway-state.js';
import { methodNotAllowed } from './method-not-allowed.js';
import { rateLimit } from './rate-limit.js';
import { createMemoryRateLimitStore } from './rate-limit-store.js';
import { UUID_V4, asPartner, recordingLogger, serve, type RunningServer } from '../testing/test-server.js';

const SECURITY = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
};
const RATE_LIMIT = ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'ratelimit-policy', 'ratelimit'];

const PARTNER_OF_LIMITS = { partnerId: 0, name: 'Limits', email: 'limits@example.test', tier: 'small', keyId: 1 } as const;

const refuse = (kind: ErrorKind) => () => {
  throw new AppError(domainError(kind, `refused: ${kind}`));
};

// The app-level chain of createGateway around routes that fail in every way a partner can see: the
// headers set before the failure (request id, security, rate limits) must all be on the answer.
describe('response headers on error answers', () => {
  let server: RunningServer;
  beforeAll(async () => {
    const { logger } = recordingLogger();
    const limit = rateLimit({ store: createMemoryRateLimitStore(), logger, tiers: { small: 2, medium: 2, large: 2 } });
    const router = new Router<GatewayState>();
    router.get('/ok', (ctx) => sendEnvelopeA(ctx, { ok: true }));
    router.get('/unauthorized', refuse('UNAUTHORIZED'));
    router.get('/unavailable', refuse('SERVICE_UNAVAILABLE'));
    router.get('/crash', () => {
      throw new Error('a bug');
    });
    router.post('/upload', jsonBody({ limitBytes: 16 }), (ctx) => sendEnvelopeA(ctx, null));
    router.get('/limited/crash', asPartner({ ...PARTNER_OF_LIMITS, partnerId: 1 }), limit, () => {
      throw new Error('a bug after the limit was counted');
    });
    router.get('/limited/invalid', asPartner({ ...PARTNER_OF_LIMITS, partnerId: 2 }), limit, refuse('VALIDATION_ERROR'));
    router.get('/limited/ok', asPartner({ ...PARTNER_OF_LIMITS, partnerId: 3 }), limit, (ctx) => sendEnvelopeA(ctx, null));
    const app = new Koa<GatewayState>();
    app
      .use(requestId())
      .use(securityHeaders())
      .use(accessLog({ logger }))
      .use(errorMapper({ logger }))
      .use(router.routes())
      .use(methodNotAllowed(router));
    server = await serve(app);
  });
  afterAll(() => server.close());

  const call = (path: string, init?: RequestInit) => fetch(`${server.url}${path}`, init);

  function expectCommonHeaders(res: Response, where: string): void {
    expect(res.headers.get('x-request-id'), `${where}: X-Request-Id`).toMatch(UUID_V4);
    for (const [name, value] of Object.entries(SECURITY)) expect(res.headers.get(name), `${where}: ${name}`).toBe(value);
  }

  it.each([
    ['200', '/ok', undefined, 200],
    ['401', '/unauthorized', undefined, 401],
    ['404 unknown path', '/nowhere', undefined, 404],
    ['405 wrong method', '/ok', { method: 'DELETE' }, 405],
    ['413 body too large', '/upload', { method: 'POST', body: JSON.stringify({ pad: 'x'.repeat(64) }), headers: { 'Content-Type': 'application/json' } }, 413],
    ['500 unexpected error', '/crash', undefined, 500],
    ['503 unavailable', '/unavailable', undefined, 503],
  ] as const)('%s carries the request id and the security headers', async (where, path, init, status) => {
    const res = await call(path, init);
    expect(res.status).toBe(status);
    expectCommonHeaders(res, where);
  });

  it('keeps the rate-limit headers on a 422 and a 500 thrown after the limit was counted, and on the 429 itself', async () => {
    for (const [path, status] of [
      ['/limited/invalid', 422],
      ['/limited/crash', 500],
    ] as const) {
      const res = await call(path);
      expect(res.status, path).toBe(status);
      expectCommonHeaders(res, path);
      for (const name of RATE_LIMIT) expect(res.headers.get(name), `${path}: ${name}`).not.toBeNull();
    }
    for (let i = 0; i < 2; i++) expect((await call('/limited/ok')).status).toBe(200);
    const refused = await call('/limited/ok');
    expect(refused.status).toBe(429);
    expectCommonHeaders(refused, '429');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(refused.headers.get('ratelimit')).toMatch(/^limit=2, remaining=0, reset=\d+$/);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
