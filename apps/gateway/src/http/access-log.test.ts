import { AppError, domainError } from '@pits/domain';
import { REQUEST_LOG_FIELDS } from '@pits/service-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticate } from './authenticate.js';
import { sendEnvelopeA } from './envelope.js';
import { nameRoute } from './gateway-state.js';
import { PARTNER, json, serveRoutes, type LogLine, type RunningServer } from '../testing/test-server.js';

const SECRET = 'pk_test_0123456789abcdef0123456789abcdef';

describe('accessLog', () => {
  let server: RunningServer & { lines: LogLine[] };
  const access = (): LogLine[] => server.lines.filter((l) => l.msg === 'request finished');

  beforeAll(async () => {
    const lookup = (key: string) => Promise.resolve(key === SECRET ? { partner: PARTNER, installation: null } : null);
    server = await serveRoutes((router) => {
      router.get(
        '/api/engine/v1/adjustments/:id',
        nameRoute('adjustments.detail'),
        authenticate(lookup),
        async (ctx, next) => {
          ctx.state.tenantId = '6f1c1a52-7a0e-4d3b-9a51-2b9d1c1e0f00';
          await next();
        },
        (ctx) => sendEnvelopeA(ctx, { adjustment: null }),
      );
      router.get('/boom', () => {
        throw new Error('kaput');
      });
      router.get('/refused', () => {
        throw new AppError(domainError('NOT_FOUND', 'gone'));
      });
      router.get('/invalid', () => {
        throw new AppError(domainError('VALIDATION_ERROR', 'invalid', { field: 'per_page', issue: 'must be at most 100' }));
      });
    });
  });
  afterAll(() => server.close());

  it('writes one line with the route pattern, status, duration, partner, tenant and request id', async () => {
    const before = access().length;
    const res = await fetch(`${server.url}/api/engine/v1/adjustments/ADJ-20260131-000001?x=1`, {
      headers: { Authorization: `Bearer ${SECRET}` },
    });
    expect(res.status).toBe(200);
    const lines = access().slice(before);
    expect(lines).toHaveLength(1);
    const line = lines[0];
    expect(line).toMatchObject({
      method: 'GET',
      route: '/api/engine/v1/adjustments/:id',
      operation: 'adjustments.detail',
      status: 200,
      partner_id: PARTNER.partnerId,
      tenant_id: '6f1c1a52-7a0e-4d3b-9a51-2b9d1c1e0f00',
      request_id: res.headers.get('x-request-id'),
    });
    expect(typeof line?.duration_ms).toBe('number');
    const text = JSON.stringify(line);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain('ADJ-20260131-000001');
    expect(text).not.toMatch(/authorization/i);
  });

  it('never logs the key, even when authentication fails', async () => {
    await fetch(`${server.url}/api/engine/v1/adjustments/1`, { headers: { Authorization: 'pk_test_wrong_key_value' } });
    const line = access().at(-1);
    expect(line).toMatchObject({ status: 401, partner_id: null });
    expect(JSON.stringify(server.lines)).not.toContain('pk_test_wrong_key_value');
  });

  it('logs the final status of errors and unmatched requests', async () => {
    await fetch(`${server.url}/boom`);
    expect(access().at(-1)).toMatchObject({ route: '/boom', status: 500 });
    await fetch(`${server.url}/refused`);
    expect(access().at(-1)).toMatchObject({ route: '/refused', status: 404 });
    await fetch(`${server.url}/unknown/path`);
    expect(access().at(-1)).toMatchObject({ route: 'unmatched', operation: null, status: 404 });
  });

  it('carries the code of the error envelope it answered (4xx and 5xx), and none on a success', async () => {
    const answer = async (path: string, init: RequestInit = {}) => {
      const res = await fetch(`${server.url}${path}`, init);
      const body = await json(res);
      const line = access().find((l) => l.request_id === res.headers.get('x-request-id'));
      return { status: res.status, sent: body.error?.code ?? null, logged: line?.error_code };
    };
    expect(await answer('/api/engine/v1/adjustments/1', { headers: { Authorization: SECRET } })).toEqual({ status: 200, sent: null, logged: null });
    expect(await answer('/api/engine/v1/adjustments/1', { headers: { Authorization: 'pk_test_wrong' } })).toEqual({ status: 401, sent: 'UNAUTHORIZED', logged: 'UNAUTHORIZED' });
    expect(await answer('/refused')).toEqual({ status: 404, sent: 'NOT_FOUND', logged: 'NOT_FOUND' });
    expect(await answer('/unknown/path')).toEqual({ status: 404, sent: 'NOT_FOUND', logged: 'NOT_FOUND' });
    expect(await answer('/refused', { method: 'POST' })).toEqual({ status: 405, sent: 'METHOD_NOT_ALLOWED', logged: 'METHOD_NOT_ALLOWED' });
    expect(await answer('/invalid')).toEqual({ status: 422, sent: 'VALIDATION_ERROR', logged: 'VALIDATION_ERROR' });
    expect(await answer('/boom')).toEqual({ status: 500, sent: 'INTERNAL_ERROR', logged: 'INTERNAL_ERROR' });
  });

  it('uses the field names every app shares, and carries the trace id of a valid traceparent (an invalid one is ignored)', async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await fetch(`${server.url}/refused`, { headers: { traceparent: `00-${traceId}-00f067aa0ba902b7-01` } });
    const line = access().at(-1)!;
    for (const field of REQUEST_LOG_FIELDS) expect(line).toHaveProperty(field);
    expect(line).toMatchObject({ trace_id: traceId, parent_span_id: '00f067aa0ba902b7', status: 404 });
    const res = await fetch(`${server.url}/refused`, { headers: { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` } });
    expect(res.status).toBe(404);
    expect(access().at(-1)).toMatchObject({ trace_id: null, parent_span_id: null });
  });

  it('counts and times each request under its route pattern (unmatched paths under one label), method and status', async () => {
    const seen: unknown[][] = [];
    const metered = await serveRoutes(
      (router) => router.get('/things/:id', (ctx) => sendEnvelopeA(ctx, {})),
      { metrics: { observe: (...args: unknown[]) => seen.push(args) } },
    );
    try {
      await fetch(`${metered.url}/things/42`);
      await fetch(`${metered.url}/nothing/here/42`);
    } finally {
      await metered.close();
    }
    expect(seen).toEqual([
      ['/things/:id', 'GET', 200, expect.any(Number)],
      ['unmatched', 'GET', 404, expect.any(Number)],
    ]);
    expect(seen.every(([, , , seconds]) => (seconds as number) >= 0 && (seconds as number) < 5)).toBe(true);
  });
});
