import { AppError, checkShelfLife, domainError, shelfLifeError } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, recordingLogger, serveRoutes, type LogLine, type RunningServer } from '../testing/test-server.js';

describe('errorMapper', () => {
  let server: RunningServer;
  let lines: LogLine[];
  beforeAll(async () => {
    const recording = recordingLogger();
    lines = recording.lines;
    server = await serveRoutes(
      (router) => {
        router.get('/refused', (ctx) => {
          ctx.set('X-RateLimit-Limit', '1000');
          throw new AppError(
            domainError('INSUFFICIENT_STOCK', 'not enough stock', { field: 'items[1].quantity', issue: 'only 3 available' }),
          );
        });
        router.get('/short-shelf-life', () => {
          throw new AppError(shelfLifeError(checkShelfLife({ expiryDate: '2026-12-04' }, 30, '2026-11-22', 'items[0].expiry_date')!));
        });
        router.get('/exposed-400', (ctx) => ctx.throw(400, 'the body could not be parsed'));
        router.get('/exposed-413', (ctx) => ctx.throw(413));
        router.get('/exposed-418', (ctx) => ctx.throw(418, 'teapot'));
        router.get('/hidden-503', (ctx) => ctx.throw(503, 'pool exhausted at /srv/app/db.ts'));
        router.get('/crash', () => {
          throw new Error('insert into stock_levels values ($1) violates check constraint at /srv/app/src/x.ts:10');
        });
        router.get('/throws-string', () => {
           
          throw 'just a string';
        });
        router.get('/silent', () => undefined);
      },
      { logger: recording.logger },
    );
  });
  afterAll(() => server.close());

  it('answers an AppError with its status and envelope, keeping headers already set', async () => {
    const res = await fetch(`${server.url}/refused`);
    expect(res.status).toBe(422);
    expect(res.headers.get('x-ratelimit-limit')).toBe('1000');
    expect(await json(res)).toEqual({
      status: 'unprocessable_entity',
      error: {
        code: 'INSUFFICIENT_STOCK',
        message: 'not enough stock',
        details: { field: 'items[1].quantity', issue: 'only 3 available' },
      },
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('answers a lot received with too little shelf life 422 SHELF_LIFE_TOO_SHORT on its expiry_date, unreported', async () => {
    const before = lines.filter((l) => l.level === 50).length;
    const res = await fetch(`${server.url}/short-shelf-life`);
    expect(res.status).toBe(422);
    expect(await json(res)).toEqual({
      status: 'unprocessable_entity',
      error: {
        code: 'SHELF_LIFE_TOO_SHORT',
        message: 'items[0].expiry_date: the lot has 12 days of shelf life left on receipt; the product requires at least 30 days',
        details: { field: 'items[0].expiry_date', issue: 'the lot has 12 days of shelf life left on 2026-11-22; at least 30 are required on receipt' },
      },
      request_id: res.headers.get('x-request-id'),
    });
    expect(lines.filter((l) => l.level === 50).length).toBe(before);
  });

  it('maps exposed 4xx http errors into the closed list', async () => {
    const bad = await fetch(`${server.url}/exposed-400`);
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toMatchObject({ code: 'INVALID_REQUEST', message: 'the body could not be parsed' });

    const big = await fetch(`${server.url}/exposed-413`);
    expect(big.status).toBe(413);
    expect(await json(big)).toMatchObject({ status: 'payload_too_large', error: { code: 'PAYLOAD_TOO_LARGE' } });

    const odd = await fetch(`${server.url}/exposed-418`);
    expect(odd.status).toBe(400);
    expect((await json(odd)).error?.code).toBe('INVALID_REQUEST');
  });

  it.each(['/crash', '/hidden-503', '/throws-string'])(
    'hides unexpected errors behind a generic 500 and reports them once (%s)',
    async (path) => {
      const before = lines.filter((l) => l.level === 50).length;
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).not.toMatch(/insert into|stock_levels|\/srv\/app|\.ts:|pool exhausted|just a string|at .*\(/);
      const body = JSON.parse(text) as { status: string; error: { code: string; message: string }; request_id: string };
      expect(body.status).toBe('internal_server_error');
      expect(body.error.code).toBe('INTERNAL_ERROR');
      expect(body.request_id).toBe(res.headers.get('x-request-id'));

      const errors = lines.filter((l) => l.level === 50);
      expect(errors.length).toBe(before + 1);
      expect(errors.at(-1)?.request_id).toBe(body.request_id);
    },
  );

  it('does not report expected refusals', async () => {
    const before = lines.filter((l) => l.level === 50).length;
    await fetch(`${server.url}/refused`);
    await fetch(`${server.url}/exposed-400`);
    expect(lines.filter((l) => l.level === 50).length).toBe(before);
  });

  it('turns a request no route answered into a 404 NOT_FOUND envelope', async () => {
    for (const path of ['/nowhere', '/silent']) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(404);
      expect(await json(res)).toMatchObject({ status: 'not_found', error: { code: 'NOT_FOUND', details: { field: '' } } });
    }
  });
});
