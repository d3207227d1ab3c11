// The edge on a bare Koa app (no router, no envelope): what each middleware sets and refuses. How
// they sit in each app's chain is tested there (apps/gateway/src/http/security-headers.test.ts,
// create-gateway.test.ts, slow-client.test.ts; apps/internal-api/src/create-internal-api.test.ts).
import { AppError, domainError } from '@pits/domain';
import { describe, expect, it } from 'vitest';
import { readyGate, requestDeadline, requestId, securityHeaders } from './index.js';
import { serveEdge as serve } from './testing/serve-edge.js';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('requestId', () => {
  it('gives each response a fresh UUID v4 in X-Request-Id and ctx.state, whatever the client sent', async () => {
    const url = await serve((app) => app.use(requestId()).use((ctx) => void (ctx.body = { id: ctx.state.requestId })));
    const first = await fetch(url, { headers: { 'X-Request-Id': 'client-chosen' } });
    const second = await fetch(url);
    const id = first.headers.get('x-request-id');
    expect(id).toMatch(UUID_V4);
    expect(await first.json()).toEqual({ id });
    expect(second.headers.get('x-request-id')).toMatch(UUID_V4);
    expect(second.headers.get('x-request-id')).not.toBe(id);
  });

  it('uses the generator it is given', async () => {
    const url = await serve((app) => app.use(requestId({ generate: () => 'fixed' })).use((ctx) => void (ctx.body = 'ok')));
    expect((await fetch(url)).headers.get('x-request-id')).toBe('fixed');
  });
});

describe('securityHeaders', () => {
  const SECURITY = {
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  };

  it('sets the four headers on every answer, errors included; a public page answered 2xx may be cached and carries no CSP', async () => {
    const url = await serve((app) =>
      app.use(securityHeaders({ publicPages: new Set(['/docs', '/broken-docs']) })).use((ctx) => {
        if (ctx.path === '/broken-docs') throw new Error('a bug');
        ctx.body = 'page';
      }),
    );
    for (const path of ['/api', '/broken-docs']) {
      const res = await fetch(`${url}${path}`);
      for (const [name, value] of Object.entries(SECURITY)) expect(res.headers.get(name), `${path}: ${name}`).toBe(value);
    }
    const docs = await fetch(`${url}/docs`);
    expect(docs.headers.get('cache-control')).toBe('no-cache');
    expect(docs.headers.get('content-security-policy')).toBeNull();
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('has no public page unless told', async () => {
    const url = await serve((app) => app.use(securityHeaders()).use((ctx) => void (ctx.body = 'page')));
    expect((await fetch(`${url}/docs`)).headers.get('cache-control')).toBe('no-store');
  });
});

describe('readyGate', () => {
  it('refuses until opened, lets the exempt paths through meanwhile, then serves everything', async () => {
    const gate = readyGate({
      exempt: (path) => path === '/healthz',
      refuse: (ctx) => {
        ctx.status = 503;
        ctx.body = { status: 'starting' };
      },
    });
    const url = await serve((app) => app.use(gate.middleware).use((ctx) => void (ctx.body = { served: ctx.path })));
    expect(gate.ready).toBe(false);
    const early = await fetch(`${url}/calls`);
    expect(early.status).toBe(503);
    expect(await early.json()).toEqual({ status: 'starting' });
    expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ served: '/healthz' });
    gate.open();
    expect(gate.ready).toBe(true);
    expect(await (await fetch(`${url}/calls`)).json()).toEqual({ served: '/calls' });
  });

  it('may refuse by throwing, for the app to shape; open from the start when told', async () => {
    const closed = readyGate({
      refuse: () => {
        throw new AppError(domainError('SERVICE_UNAVAILABLE', 'starting'));
      },
    });
    const open = readyGate({ ready: true, refuse: () => undefined });
    const url = await serve((app) => app.use((ctx, next) => (ctx.path === '/open' ? open.middleware(ctx, next) : closed.middleware(ctx, next))).use((ctx) => void (ctx.body = 'served')));
    const refused = await fetch(`${url}/closed`);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toEqual({ kind: 'SERVICE_UNAVAILABLE' });
    expect(await (await fetch(`${url}/open`)).text()).toBe('served');
  });
});

describe('requestDeadline', () => {
  it('refuses SERVICE_UNAVAILABLE a request not finished in time, its deadline reading aborted; exempt paths are not held to it', async () => {
    let aborted: boolean | undefined;
    const url = await serve((app) =>
      app.use(requestDeadline({ timeoutMs: 100, exempt: (path) => path === '/probe' })).use(async (ctx) => {
        await new Promise((resolve) => setTimeout(resolve, 250));
        aborted = ctx.state.deadline?.aborted;
        ctx.body = 'late';
      }),
    );
    const slow = await fetch(`${url}/work`);
    expect(slow.status).toBe(503);
    expect(await slow.json()).toEqual({ kind: 'SERVICE_UNAVAILABLE' });
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(aborted).toBe(true);
    const probe = await fetch(`${url}/probe`);
    expect(probe.status).toBe(200);
    expect(await probe.text()).toBe('late');
  });
});
