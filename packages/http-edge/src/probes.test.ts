// The probe answers on a bare Koa app: statuses, bodies, Retry-After, methods, and the app's own
// JSON writer. How each app mounts them is tested there (apps/gateway/src/create-gateway.test.ts,
// gateway-faults.test.ts; apps/internal-api/src/create-internal-api.test.ts).
import { request } from 'node:http';
import type Koa from 'koa';
import { describe, expect, it } from 'vitest';
import { type EdgeState, LIVENESS_PATH, PROBE_PATHS, READINESS_PATH, probeAnswers, setHeaders } from './index.js';
import { serveEdge } from './testing/serve-edge.js';

/** The status, raw header lines (their names as sent) and body of one answer. */
function raw(url: string, method = 'GET'): Promise<{ status: number; headers: string[]; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => {
        const headers: string[] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) headers.push(`${res.rawHeaders[i]}: ${res.rawHeaders[i + 1]}`);
        resolve({ status: res.statusCode ?? 0, headers, body });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

describe('probeAnswers', () => {
  it('answers liveness 200 with its body, readiness 200 or 503 with the unavailable headers as the app writes them', async () => {
    let up = true;
    const probes = probeAnswers({
      isReady: () => Promise.resolve(up),
      live: { status: 'ok' },
      ready: (ready) => ({ status: ready ? 'ok' : 'unavailable' }),
      unavailableHeaders: { 'Retry-After': '2' },
    });
    const url = await serveEdge((app) => app.use((ctx) => (ctx.path === LIVENESS_PATH ? probes.liveness(ctx) : probes.readiness(ctx))));
    expect(await raw(`${url}/healthz`)).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    const ready = await raw(`${url}/readyz`);
    expect(ready).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    expect(ready.headers.filter((h) => /^retry-after/i.test(h))).toEqual([]);
    up = false;
    const unready = await raw(`${url}/readyz`);
    expect(unready).toMatchObject({ status: 503, body: '{"status":"unavailable"}' });
    expect(unready.headers).toContain('Retry-After: 2');
    expect(unready.headers).toContain('Content-Type: application/json; charset=utf-8');
    // Liveness does not ask readiness.
    expect((await raw(`${url}/healthz`)).status).toBe(200);
  });

  it('writes through the app’s own writer when given one, the unavailable headers first', async () => {
    const send = (ctx: Koa.ParameterizedContext<EdgeState>, status: number, body: unknown) => {
      ctx.status = status;
      setHeaders(ctx, { 'content-type': 'application/json' });
      ctx.body = JSON.stringify(body);
    };
    const probes = probeAnswers({ isReady: () => Promise.resolve(false), live: { status: 'ok' }, ready: () => ({ status: 'unavailable' }), unavailableHeaders: { 'retry-after': '2' }, send });
    const url = await serveEdge((app) => app.use((ctx) => probes.readiness(ctx)));
    const answer = await raw(`${url}/readyz`);
    expect(answer).toMatchObject({ status: 503, body: '{"status":"unavailable"}' });
    expect(answer.headers.slice(0, 2)).toEqual(['retry-after: 2', 'content-type: application/json']);
  });

  it('answer(): GET and HEAD by path; any other method refused by the app after allow: GET, HEAD; other paths left alone', async () => {
    const asked: string[] = [];
    const probes = probeAnswers({
      isReady: () => {
        asked.push('ready?');
        return Promise.resolve(true);
      },
      live: { status: 'ok' },
      ready: () => ({ status: 'ready' }),
      unavailableHeaders: { 'Retry-After': '2' },
    });
    const refuseMethod = (ctx: Koa.ParameterizedContext<EdgeState>) => {
      ctx.status = 405;
      ctx.body = { status: 'method_not_allowed' };
    };
    const url = await serveEdge((app) => app.use((ctx) => probes.answer(ctx, refuseMethod)));
    expect(await raw(`${url}${LIVENESS_PATH}`)).toMatchObject({ status: 200, body: '{"status":"ok"}' });
    expect(await raw(`${url}${READINESS_PATH}`)).toMatchObject({ status: 200, body: '{"status":"ready"}' });
    const head = await raw(`${url}${READINESS_PATH}`, 'HEAD');
    expect(head).toMatchObject({ status: 200, body: '' });
    expect(asked).toEqual(['ready?', 'ready?']);
    for (const method of ['POST', 'DELETE', 'OPTIONS']) {
      const refused = await raw(`${url}${LIVENESS_PATH}`, method);
      expect(refused, method).toMatchObject({ status: 405, body: '{"status":"method_not_allowed"}' });
      expect(refused.headers, method).toContain('allow: GET, HEAD');
    }
    expect(asked).toHaveLength(2);
    expect((await raw(`${url}/elsewhere`)).status).toBe(404);
  });

  it('names both probe paths', () => {
    expect([...PROBE_PATHS]).toEqual(['/healthz', '/readyz']);
  });
});
