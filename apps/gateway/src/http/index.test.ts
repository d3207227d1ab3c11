// The whole chain in the order index.ts documents, through the public surface.
import Koa from 'koa';
import Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  accessLog,
  authenticate,
  createMemoryIdempotencyStore,
  createMemoryRateLimitStore,
  errorMapper,
  idempotency,
  jsonBody,
  methodNotAllowed,
  nameRoute,
  rateLimit,
  requireTenant,
  sendEnvelopeA,
  sendEnvelopeB,
  validateBody,
  type GatewayContext,
  type GatewayState,
  type ValidatedBody,
} from './index.js';
import { requestId } from '@pits/http-edge';
import { json, PARTNER, recordingLogger, serve, UUID_V4, type LogLine, type RunningServer } from '../testing/test-server.js';

const KEY = 'pk_test_chain0123456789abcdef0123456789';
const TENANT = '0b6f6a1e-3c2d-4e5f-8a9b-0c1d2e3f4a5b';
const createBody = z.object({ reason: z.string().min(1) });

describe('the gateway middleware chain', () => {
  let server: RunningServer;
  let lines: LogLine[];
  let created = 0;

  beforeAll(async () => {
    const recording = recordingLogger();
    lines = recording.lines;
    const { logger } = recording;
    const resolve = (k: string, t: string | null) =>
      Promise.resolve(k === KEY ? { partner: PARTNER, installation: t === null ? null : t === TENANT ? ('active' as const) : ('unknown' as const) } : null);
    const auth = authenticate(resolve);
    const authForTenant = authenticate(resolve, { tenantScoped: true });
    const limit = rateLimit({
      store: createMemoryRateLimitStore(),
      logger,
      tiers: { small: 100, medium: 100, large: 100 },
      operations: { 'areas.search': 2 },
    });
    const tenant = requireTenant();
    const once = idempotency({ store: createMemoryIdempotencyStore(), logger });

    const router = new Router<GatewayState>();
    router.post(
      '/api/partner/v1/adjustments',
      nameRoute('adjustments.create'),
      authForTenant,
      limit,
      jsonBody(),
      tenant,
      once,
      validateBody(createBody),
      async (ctx: GatewayContext<ValidatedBody<z.output<typeof createBody>>>) => {
        created += 1;
        sendEnvelopeA(ctx, { adjustment: { reason: ctx.state.body.reason, n: created } }, 201);
        // mountRoutes stores it in the work's transaction; this store has none.
        await ctx.state.idempotency?.complete(null, ctx.status, ctx.body);
      },
    );
    router.get('areas.search', '/api/partner/v1/areas', auth, limit, (ctx) => sendEnvelopeB(ctx, { areas: [] }));

    const app = new Koa<GatewayState>();
    app
      .use(requestId())
      .use(accessLog({ logger }))
      .use(errorMapper({ logger }))
      .use(router.routes())
      .use(methodNotAllowed(router));
    server = await serve(app);
  });
  afterAll(() => server.close());

  const create = (body: string, headers: Record<string, string>) =>
    fetch(`${server.url}/api/partner/v1/adjustments`, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });

  it('creates through every layer and reports request id and rate limits', async () => {
    const res = await create('{"reason":"count"}', { Authorization: `Bearer ${KEY}`, 'X-Tenant-Id': TENANT });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toMatch(UUID_V4);
    expect(res.headers.get('x-ratelimit-limit')).toBe('100');
    expect(await json(res)).toMatchObject({ status: 'ok', data: { adjustment: { reason: 'count' } } });
    expect(lines.at(-1)).toMatchObject({
      route: '/api/partner/v1/adjustments',
      operation: 'adjustments.create',
      status: 201,
      partner_id: PARTNER.partnerId,
      tenant_id: TENANT,
    });
  });

  it('authenticates before reading the body', async () => {
    const res = await create('{not json', {});
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('rejects bad JSON of an authenticated partner with 400, rate-limit headers included', async () => {
    const res = await create('{not json', { Authorization: KEY, 'X-Tenant-Id': TENANT });
    expect(res.status).toBe(400);
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull();
  });

  it('checks the tenant, then validates', async () => {
    const noTenant = await create('{}', { Authorization: KEY });
    expect(noTenant.status).toBe(400);
    expect((await json(noTenant)).error?.details.field).toBe('X-Tenant-Id');
    const invalid = await create('{}', { Authorization: KEY, 'X-Tenant-Id': TENANT });
    expect(invalid.status).toBe(422);
    expect((await json(invalid)).error?.details.field).toBe('reason');
  });

  it('replays an idempotent create', async () => {
    const headers = { Authorization: KEY, 'X-Tenant-Id': TENANT, 'Idempotency-Key': 'chain-1' };
    const first = await json(await create('{"reason":"once"}', headers));
    const replay = await create('{"reason":"once"}', headers);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect((await json(replay)).data).toEqual(first.data);
  });

  it('answers 405 and 404 before authentication', async () => {
    const wrong = await fetch(`${server.url}/api/partner/v1/adjustments`, { method: 'GET' });
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get('allow')).toBe('POST');
    const unknown = await fetch(`${server.url}/api/partner/v1/nothing`);
    expect(unknown.status).toBe(404);
  });

  it('limits a named operation with its own bucket', async () => {
    const call = () => fetch(`${server.url}/api/partner/v1/areas`, { headers: { Authorization: KEY } });
    expect((await call()).status).toBe(200);
    expect((await call()).status).toBe(200);
    const over = await call();
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(over.headers.get('x-request-id')).toMatch(UUID_V4);
    expect(lines.at(-1)).toMatchObject({ operation: 'areas.search', status: 429 });
  });
});
