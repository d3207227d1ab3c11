import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sendEnvelopeA } from './envelope.js';
import { json, serveRoutes, type RunningServer } from '../testing/test-server.js';

describe('methodNotAllowed', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serveRoutes((router) => {
      router.get('/api/engine/v1/adjustments', (ctx) => sendEnvelopeA(ctx, { adjustments: [] }));
      router.post('/api/partner/v1/adjustments', (ctx) => sendEnvelopeA(ctx, {}, 201));
      router.get('/api/engine/v1/adjustments/:id', (ctx) => sendEnvelopeA(ctx, { id: ctx.params['id'] }));
      router.patch('/api/partner/v1/adjustments/:id/approve', (ctx) => sendEnvelopeA(ctx, null));
      router.post('/api/partner/v1/adjustments/:id/approve', (ctx) => sendEnvelopeA(ctx, null));
    });
  });
  afterAll(() => server.close());

  it('answers a wrong method on a known path with 405, Allow and the envelope', async () => {
    const res = await fetch(`${server.url}/api/engine/v1/adjustments`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD']);
    expect(await json(res)).toMatchObject({
      status: 'method_not_allowed',
      error: { code: 'METHOD_NOT_ALLOWED', details: { field: '' } },
      request_id: res.headers.get('x-request-id'),
    });
  });

  it('lists every method of a parameterised path', async () => {
    const res = await fetch(`${server.url}/api/partner/v1/adjustments/ADJ-1/approve`, { method: 'PUT' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['PATCH', 'POST']);
  });

  it('still runs the route for an allowed method', async () => {
    const res = await fetch(`${server.url}/api/partner/v1/adjustments/ADJ-1/approve`, { method: 'POST' });
    expect(res.status).toBe(200);
    const detail = await fetch(`${server.url}/api/engine/v1/adjustments/ADJ-9`);
    expect((await json(detail)).data).toEqual({ id: 'ADJ-9' });
  });

  it('answers an unknown path with 404 NOT_FOUND and no Allow', async () => {
    const res = await fetch(`${server.url}/api/partner/v1/nothing-here`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(res.headers.get('allow')).toBeNull();
    expect((await json(res)).error?.code).toBe('NOT_FOUND');
  });
});
