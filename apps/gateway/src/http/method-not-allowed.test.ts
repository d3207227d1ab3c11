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

  it('answers OPTIONS on a known path with 405 and Allow in the JSON envelope (the API answers no preflight)', async () => {
    const res = await fetch(`${server.url}/api/partner/v1/adjustments/ADJ-1/approve`, { method: 'OPTIONS' });
    expect(res.status).toBe(405);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('allow')?.split(', ').sort()).toEqual(['PATCH', 'POST']);
    expect((await json(res)).error?.code).toBe('METHOD_NOT_ALLOWED');
  });

  it('answers HEAD on a path without GET with 405', async () => {
    const res = await fetch(`${server.url}/api/partner/v1/adjustments`, { method: 'HEAD' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
  });

  it('answers a method the router does not know with 405 on a known path and 404 without Allow elsewhere', async () => {
    const known = await fetch(`${server.url}/api/engine/v1/adjustments`, { method: 'PROPFIND' });
    expect(known.status).toBe(405);
    expect(known.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD']);
    expect((await json(known)).error?.code).toBe('METHOD_NOT_ALLOWED');
    const unknown = await fetch(`${server.url}/api/partner/v1/nothing-here`, { method: 'PROPFIND' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('allow')).toBeNull();
    expect((await json(unknown)).error?.code).toBe('NOT_FOUND');
  });
});
