// The access-log core on its own: the line (fields, their order, the app's own fields after
// `route`), its level, the observation in the metrics, the timing and the trace. How each app fills
// the line in is tested there (apps/gateway/src/http/access-log.test.ts,
// apps/internal-api/src/create-internal-api.test.ts).
import { AppError, domainError } from '@pits/domain';
import { REQUEST_LOG_FIELDS } from '@pits/service-runtime';
import { describe, expect, it } from 'vitest';
import type Koa from 'koa';
import { type AccessLogLevel, type EdgeState, type RequestOutcome, accessLog, requestId, requestLog } from './index.js';
import { serveEdge } from './testing/serve-edge.js';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

/** Lines as written (level, fields, message) and observations as made. */
function recording() {
  const lines: { level: AccessLogLevel; fields: Record<string, unknown>; msg: string }[] = [];
  const observed: [string, string, number, number][] = [];
  const writer = (level: AccessLogLevel) => (fields: object, msg: string) => void lines.push({ level, fields: fields as Record<string, unknown>, msg });
  return {
    lines,
    observed,
    logger: { info: writer('info'), debug: writer('debug') },
    metrics: { observe: (route: string, method: string, status: number, seconds: number) => void observed.push([route, method, status, seconds]) },
  };
}

/** A clock that reads each of `readings` in turn. */
function clock(...readings: number[]): () => number {
  return () => {
    const next = readings.shift();
    if (next === undefined) throw new Error('the clock was read more often than expected');
    return next;
  };
}

describe('requestLog', () => {
  it('writes one line per finish, in the shared field order, at the level asked, and observes the same request', () => {
    const { lines, observed, logger, metrics } = recording();
    const log = requestLog({ logger, metrics, now: clock(1000, 1012.3456) });
    const timing = log.start({ method: 'POST', headers: { traceparent: TRACEPARENT }, state: { requestId: 'req-1' } });
    timing.finish({ route: 'tenants.create', status: 200, partnerId: 7, tenantId: 'tenant-a', errorCode: null }, 3.25, 'info');
    timing.finish({ route: '/readyz', status: 503, partnerId: null, tenantId: null, errorCode: 'SERVICE_UNAVAILABLE' }, timing.elapsedMs(), 'debug');

    expect(lines.map((l) => [l.level, l.msg])).toEqual([['info', 'request finished'], ['debug', 'request finished']]);
    for (const { fields } of lines) expect(Object.keys(fields)).toEqual([...REQUEST_LOG_FIELDS]);
    expect(lines[0]!.fields).toEqual({
      request_id: 'req-1', method: 'POST', route: 'tenants.create', status: 200, duration_ms: 3.25,
      partner_id: 7, tenant_id: 'tenant-a', trace_id: TRACE_ID, parent_span_id: '00f067aa0ba902b7', error_code: null,
    });
    // Milliseconds to three decimals in the line; the exact seconds in the metrics.
    expect(lines[1]!.fields).toMatchObject({ route: '/readyz', status: 503, duration_ms: 12.346, error_code: 'SERVICE_UNAVAILABLE' });
    expect(observed).toEqual([['tenants.create', 'POST', 200, 0.00325], ['/readyz', 'POST', 503, expect.closeTo(0.0123456, 9)]]);
  });

  it('logs no trace for a missing or invalid traceparent', () => {
    const { lines, logger } = recording();
    const log = requestLog({ logger });
    const outcome: RequestOutcome = { route: 'unmatched', status: 404, partnerId: null, tenantId: null, errorCode: 'NOT_FOUND' };
    log.start({ method: 'GET', headers: {}, state: { requestId: 'a' } }).finish(outcome, 1, 'info');
    log.start({ method: 'GET', headers: { traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` }, state: { requestId: 'b' } }).finish(outcome, 1, 'info');
    expect(lines.map((l) => [l.fields.trace_id, l.fields.parent_span_id])).toEqual([[null, null], [null, null]]);
  });
});

describe('accessLog', () => {
  /** The error code a handler left for the log, as the gateway's `sendError` does. */
  interface CodedState extends EdgeState {
    code?: string;
  }
  const outcome = (ctx: Koa.ParameterizedContext<CodedState>, status: number): RequestOutcome => ({
    route: ctx.path === '/things/1' ? '/things/:id' : 'unmatched',
    fields: { operation: ctx.path === '/things/1' ? 'things.detail' : null },
    status,
    partnerId: null,
    tenantId: null,
    errorCode: ctx.state.code ?? null,
  });

  it('logs each request once at info with its final status, the app’s fields right after route, and observes it', async () => {
    const { lines, observed, logger, metrics } = recording();
    const url = await serveEdge<CodedState>((app) =>
      app.use(requestId()).use(accessLog({ logger, metrics, outcome })).use((ctx) => {
        if (ctx.path !== '/things/1') {
          ctx.state.code = 'NOT_FOUND';
          ctx.status = 404;
        }
        ctx.body = { path: ctx.path };
      }),
    );
    const found = await fetch(`${url}/things/1?secret=1`, { headers: { traceparent: TRACEPARENT } });
    await fetch(`${url}/nothing`);

    expect(lines.map((l) => l.level)).toEqual(['info', 'info']);
    const [first, second] = lines.map((l) => l.fields);
    expect(Object.keys(first!)).toEqual(['request_id', 'method', 'route', 'operation', ...REQUEST_LOG_FIELDS.slice(3)]);
    expect(first).toMatchObject({ request_id: found.headers.get('x-request-id'), route: '/things/:id', operation: 'things.detail', status: 200, trace_id: TRACE_ID, error_code: null });
    expect(JSON.stringify(first)).not.toContain('secret');
    expect(second).toMatchObject({ route: 'unmatched', operation: null, status: 404, trace_id: null, error_code: 'NOT_FOUND' });
    expect(observed.map(([route, method, status]) => [route, method, status])).toEqual([['/things/:id', 'GET', 200], ['unmatched', 'GET', 404]]);
    expect(observed.every(([, , , seconds]) => seconds >= 0 && seconds < 5)).toBe(true);
  });

  it('logs an error that escapes below it as 500, and lets it through', async () => {
    const { lines, logger } = recording();
    const url = await serveEdge<CodedState>((app) =>
      app.use(requestId()).use(accessLog({ logger, outcome })).use(() => {
        throw new AppError(domainError('SERVICE_UNAVAILABLE', 'away'));
      }),
    );
    const res = await fetch(`${url}/things/1`);
    // The test server's own error handler, above the log, answered what came through.
    expect(res.status).toBe(503);
    expect(lines.map((l) => l.fields.status)).toEqual([500]);
  });

  it('times the request from before the rest of the chain to after it', async () => {
    const { lines, observed, logger, metrics } = recording();
    const url = await serveEdge<CodedState>((app) => app.use(requestId()).use(accessLog({ logger, metrics, outcome, now: clock(50, 75.5) })).use((ctx) => void (ctx.body = 'ok')));
    await fetch(`${url}/things/1`);
    expect(lines[0]!.fields.duration_ms).toBe(25.5);
    expect(observed[0]![3]).toBe(0.0255);
  });
});
