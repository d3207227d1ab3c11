import { AppError, domainError } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEnvelopeA } from './envelope.js';
import { json, serveRoutes, UUID_V4, type RunningServer } from '../testing/test-server.js';

describe('requestId', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRoutes((router) => {
      router.get('/ok', (ctx) => sendEnvelopeA(ctx, { fine: true }));
      router.get('/refused', () => {
        throw new AppError(domainError('INVALID_STATE', 'not pending'));
      });
      router.get('/crash', () => {
        throw new Error('boom');
      });
    });
  });
  afterAll(() => server.close());

  it('gives each response a fresh UUID v4 in X-Request-Id and request_id', async () => {
    const first = await fetch(`${server.url}/ok`);
    const second = await fetch(`${server.url}/ok`);
    const a = first.headers.get('x-request-id');
    const b = second.headers.get('x-request-id');
    expect(a).toMatch(UUID_V4);
    expect(b).toMatch(UUID_V4);
    expect(a).not.toBe(b);
    expect((await json(first)).request_id).toBe(a);
    expect((await json(second)).request_id).toBe(b);
  });

  it('ignores a request id sent by the client', async () => {
    const res = await fetch(`${server.url}/ok`, { headers: { 'X-Request-Id': 'client-chosen' } });
    expect(res.headers.get('x-request-id')).toMatch(UUID_V4);
  });

  it.each(['/refused', '/crash', '/no-such-route'])('is on error responses too (%s)', async (path) => {
    const res = await fetch(`${server.url}${path}`);
    expect(res.status).toBeGreaterThanOrEqual(400);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(UUID_V4);
    expect((await json(res)).request_id).toBe(id);
  });
});
