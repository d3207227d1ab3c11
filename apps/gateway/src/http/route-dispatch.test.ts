import Koa from 'koa';
import Router from '@koa/router';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { GatewayState } from './gateway-state.js';
import { dispatchRoutes } from './route-dispatch.js';
import { type RunningServer, serve } from '../testing/test-server.js';

// Counts the chains this module composes (@koa/router requires its own koa-compose, uncounted).
const composed = vi.hoisted(() => ({ chains: 0 }));
vi.mock('koa-compose', async (importOriginal) => {
  const actual = await importOriginal<{ default: (stack: unknown[]) => unknown }>();
  return {
    default: (stack: unknown[]) => {
      composed.chains += 1;
      return actual.default(stack);
    },
  };
});

/** A router whose routes answer with what the dispatch gave them. */
function tableOfRoutes(): { router: Router<GatewayState>; runs: string[] } {
  const runs: string[] = [];
  const router = new Router<GatewayState>();
  const echo = (label: string): Router.Middleware<GatewayState> => (ctx) => {
    runs.push(label);
    ctx.body = { label, params: ctx.params, route: ctx._matchedRoute, name: ctx._matchedRouteName ?? null };
  };
  router.get('adjustments.detail', '/api/engine/v1/adjustments/:id', echo('detail'));
  router.register('/api/partner/v1/adjustments/:id/approve', ['PATCH', 'POST'], [
    async (ctx, next) => {
      runs.push('approve:before');
      await next();
      runs.push('approve:after');
    },
    echo('approve'),
  ], { name: 'adjustments.approve' });
  router.get('/api/partner/v1/areas/:province/:city', echo('areas'));
  // Two layers for one path and method: both run, in order, as @koa/router runs them.
  router.get('/twice', async (ctx, next) => {
    runs.push('twice:first');
    await next();
  });
  router.get('/twice', echo('twice:second'));
  return { router, runs };
}

async function serveWith(dispatch: (router: Router<GatewayState>) => Koa.Middleware<GatewayState>) {
  const { router, runs } = tableOfRoutes();
  const app = new Koa<GatewayState>();
  app.use(dispatch(router)).use((ctx) => {
    runs.push('next');
    ctx.status = 418;
    ctx.body = { label: 'unmatched' };
  });
  return { server: await serve(app), runs };
}

const REQUESTS: [method: string, path: string][] = [
  ['GET', '/api/engine/v1/adjustments/ADJ-20261126-000001'],
  ['HEAD', '/api/engine/v1/adjustments/ADJ-1'],
  ['GET', '/api/engine/v1/adjustments/ADJ%2F1%20x'],
  ['GET', '/api/engine/v1/adjustments/%E0%A4%A'],
  ['PATCH', '/api/partner/v1/adjustments/ADJ-7/approve'],
  ['POST', '/api/partner/v1/adjustments/ADJ-7/approve'],
  ['PUT', '/api/partner/v1/adjustments/ADJ-7/approve'],
  ['GET', '/api/partner/v1/areas/Jawa%20Barat/Bandung'],
  ['GET', '/twice'],
  ['GET', '/api/engine/v1/adjustments'],
  ['GET', '/nowhere'],
];

describe('dispatchRoutes', () => {
  let ours: { server: RunningServer; runs: string[] };
  let theirs: { server: RunningServer; runs: string[] };
  beforeAll(async () => {
    ours = await serveWith((router) => dispatchRoutes(router));
    theirs = await serveWith((router) => router.routes() as Koa.Middleware<GatewayState>);
  });
  afterAll(async () => {
    await ours.server.close();
    await theirs.server.close();
  });

  async function call(server: RunningServer, method: string, path: string) {
    const res = await fetch(`${server.url}${path}`, { method });
    return { status: res.status, body: method === 'HEAD' ? null : ((await res.json()) as unknown) };
  }

  it.each(REQUESTS)('%s %s answers as @koa/router dispatches it: same route, parameters, name and middleware order', async (method, path) => {
    ours.runs.length = 0;
    theirs.runs.length = 0;
    const expected = await call(theirs.server, method, path);
    expect(await call(ours.server, method, path)).toEqual(expected);
    expect(ours.runs).toEqual(theirs.runs);
  });

  it('decodes parameters, names the route and runs its whole chain, again on every request', async () => {
    for (let i = 0; i < 3; i++) {
      ours.runs.length = 0;
      expect(await call(ours.server, 'POST', `/api/partner/v1/adjustments/ADJ%20${i}/approve`)).toEqual({
        status: 200,
        body: { label: 'approve', params: { id: `ADJ ${i}` }, route: '/api/partner/v1/adjustments/:id/approve', name: 'adjustments.approve' },
      });
      expect(ours.runs).toEqual(['approve:before', 'approve', 'approve:after']);
    }
  });

  it("composes a route's chain on its first request only, and leaves several layers of one path to @koa/router", async () => {
    const { server } = await serveWith((router) => dispatchRoutes(router));
    try {
      const before = composed.chains;
      for (let i = 0; i < 3; i++) expect((await call(server, 'GET', `/api/engine/v1/adjustments/ADJ-${i}`)).status).toBe(200);
      expect(composed.chains - before).toBe(1);
      for (let i = 0; i < 3; i++) expect((await call(server, 'PATCH', `/api/partner/v1/adjustments/ADJ-${i}/approve`)).status).toBe(200);
      expect(composed.chains - before).toBe(2);
      expect((await call(server, 'GET', '/twice')).status).toBe(200);
      expect(composed.chains - before).toBe(2);
    } finally {
      await server.close();
    }
  });

  it('leaves a path or method no route has to the next middleware', async () => {
    ours.runs.length = 0;
    expect(await call(ours.server, 'DELETE', '/api/engine/v1/adjustments/ADJ-1')).toEqual({ status: 418, body: { label: 'unmatched' } });
    expect(ours.runs).toEqual(['next']);
  });
});
