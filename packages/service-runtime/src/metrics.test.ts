import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { metricSample } from './metric-sample.js';
import { Counter, createProcessMetrics } from './metrics.js';
import { createOperatorServer } from './operator-server.js';

const sample = metricSample;

/** A classification like persistence's: the kind is the error's `kind`, else `other`. */
const KINDS = ['timeout', 'unavailable', 'conflict', 'constraint', 'other'] as const;
const classification = {
  kinds: KINDS,
  classify: (error: unknown) => KINDS.find((kind) => kind === (error as { kind?: string }).kind) ?? 'other',
};

describe('process metrics', () => {
  it('counts each request and observes its latency under its route, method and status, with the app on every series', async () => {
    const metrics = createProcessMetrics('gateway', classification);
    metrics.http.observe('/api/partner/v1/areas/:id', 'GET', 200, 0.004);
    metrics.http.observe('/api/partner/v1/areas/:id', 'GET', 200, 0.2);
    metrics.http.observe('unmatched', 'GET', 404, 0.001);
    const text = await metrics.metrics();
    const route = { app: 'gateway', route: '/api/partner/v1/areas/:id', method: 'GET', status: '200' };
    expect(sample(text, 'pits_http_requests_total', route)).toBe(2);
    expect(sample(text, 'pits_http_request_duration_seconds_count', route)).toBe(2);
    expect(sample(text, 'pits_http_request_duration_seconds_bucket', { ...route, le: '0.005' })).toBe(1);
    expect(sample(text, 'pits_http_request_duration_seconds_bucket', { ...route, le: '0.25' })).toBe(2);
    expect(sample(text, 'pits_http_request_duration_seconds_sum', route)).toBeCloseTo(0.204);
    expect(sample(text, 'pits_http_requests_total', { app: 'gateway', route: 'unmatched', status: '404' })).toBe(1);
    // Node's own process metrics come along, labelled too.
    expect(text).toMatch(/^process_cpu_user_seconds_total\{app="gateway"\} /m);
  });

  it('serves the registry’s metrics and the request metrics together, in one exposition', async () => {
    const metrics = createProcessMetrics('gateway', classification);
    new Counter({ name: 'pits_app_own_total', help: 'an app’s own metric', registers: [metrics.registry] }).inc(3);
    metrics.http.observe('/a', 'GET', 200, 0.01);
    const text = await metrics.metrics();
    expect(sample(text, 'pits_app_own_total', { app: 'gateway' })).toBe(3);
    expect(sample(text, 'pits_http_requests_total', { app: 'gateway', route: '/a' })).toBe(1);
    expect(text).toMatch(/^process_cpu_user_seconds_total\{app="gateway"\} /m);
    expect(text).toMatch(/[^\n]\n\n# HELP pits_http_requests_total [^\n]+\n# TYPE pits_http_requests_total counter\n/);
    expect(text.endsWith('\n') && !text.endsWith('\n\n')).toBe(true);
    expect(metrics.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });

  it('files failed statements by kind, every kind present from the start', async () => {
    const metrics = createProcessMetrics('internal-api', classification);
    const before = await metrics.metrics();
    for (const kind of ['timeout', 'unavailable', 'conflict', 'constraint', 'other']) expect(sample(before, 'pits_db_query_errors_total', { kind })).toBe(0);
    // The kinds and the classification are what the app passes in (persistence's, tested there).
    metrics.databaseEvents.onQueryError(Object.assign(new Error('the database did not answer within 6000 ms'), { kind: 'timeout' }));
    metrics.databaseEvents.onQueryError(new Error('syntax error'));
    metrics.databaseEvents.onQueryError(new Error('syntax error'));
    const after = await metrics.metrics();
    expect(sample(after, 'pits_db_query_errors_total', { app: 'internal-api', kind: 'timeout' })).toBe(1);
    expect(sample(after, 'pits_db_query_errors_total', { kind: 'other' })).toBe(2);
    expect(sample(after, 'pits_db_query_errors_total', { kind: 'constraint' })).toBe(0);
    expect(sample(after, 'pits_db_query_errors_total', { kind: 'unavailable' })).toBe(0);
  });
});

describe('event loop metrics', () => {
  it('count the time the loop was busy, read at each scrape', async () => {
    const metrics = createProcessMetrics('gateway', classification);
    const before = sample(await metrics.metrics(), 'pits_event_loop_busy_seconds_total', { app: 'gateway' })!;
    // Busy for 60 ms of the clock, however fast the machine is.
    const until = performance.now() + 60;
    while (performance.now() < until);
    const after = sample(await metrics.metrics(), 'pits_event_loop_busy_seconds_total', { app: 'gateway' })!;
    expect(before).toBeGreaterThan(0);
    expect(after - before).toBeGreaterThanOrEqual(0.06);
  });

  // The main thread's voluntary context switches (/proc, Linux) count how often its loop went to
  // sleep and woke: a timer at 10 ms gives about 100 in a second. A busy machine runs timers late,
  // so fewer, never more.
  it.runIf(existsSync('/proc/self/task'))('let an idle process sleep: the delay monitor wakes it ten times a second, not a hundred', async () => {
    const script = `
      import { readFileSync } from 'node:fs';
      const { createProcessMetrics } = await import(${JSON.stringify(new URL('./metrics.ts', import.meta.url).pathname)});
      createProcessMetrics('gateway', { kinds: ['other'], classify: () => 'other' });
      const switches = () => Number(/voluntary_ctxt_switches:\\s+(\\d+)/.exec(readFileSync('/proc/self/task/' + process.pid + '/status', 'utf8'))[1]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      const first = switches();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      // Not console.log: under FORCE_COLOR (as Nx runs tests) it would colour the number.
      process.stdout.write(String(switches() - first));
    `;
    const child = spawn(process.execPath, ['--conditions=@pits/source', '--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    const wakeups = Number(out.trim());
    expect(wakeups, out).toBeGreaterThan(0);
    expect(wakeups, out).toBeLessThan(40);
  }, 30_000);
});

describe('database metrics', () => {
  it('report the pool of every watched database on every scrape', async () => {
    const metrics = createProcessMetrics('webhook-worker', classification);
    let used = { total: 2, idle: 1, waiting: 0 };
    metrics.watchDatabase({ connections: () => used });
    metrics.watchDatabase({ connections: () => ({ total: 1, idle: 1, waiting: 3 }) });
    let text = await metrics.metrics();
    expect(sample(text, 'pits_db_pool_connections', { app: 'webhook-worker', state: 'total' })).toBe(3);
    expect(sample(text, 'pits_db_pool_connections', { state: 'idle' })).toBe(2);
    expect(sample(text, 'pits_db_pool_connections', { state: 'waiting' })).toBe(3);
    used = { total: 5, idle: 0, waiting: 1 };
    text = await metrics.metrics();
    expect(sample(text, 'pits_db_pool_connections', { state: 'total' })).toBe(6);
    expect(sample(text, 'pits_db_pool_connections', { state: 'waiting' })).toBe(4);
  });
});

describe('operator server', () => {
  it('serves GET /metrics in the Prometheus text format and nothing else', async () => {
    const metrics = createProcessMetrics('gateway', classification);
    metrics.http.observe('/healthz', 'GET', 200, 0.001);
    const operator = createOperatorServer(metrics, { host: '127.0.0.1', port: 0 });
    const { url, port } = await operator.listen();
    try {
      expect(url).toBe(`http://127.0.0.1:${port}/metrics`);
      const scrape = await fetch(url);
      expect(scrape.status).toBe(200);
      expect(scrape.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(sample(await scrape.text(), 'pits_http_requests_total', { route: '/healthz' })).toBe(1);
      expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(404);
      expect((await fetch(`http://127.0.0.1:${port}/metrics/x`)).status).toBe(404);
      const post = await fetch(url, { method: 'POST' });
      expect(post.status).toBe(405);
      expect(post.headers.get('allow')).toBe('GET, HEAD');
    } finally {
      await operator.close();
    }
  });

  it('reports a port already taken as a listen error', async () => {
    const metrics = createProcessMetrics('gateway', classification);
    const first = createOperatorServer(metrics, { host: '127.0.0.1', port: 0 });
    const { port } = await first.listen();
    try {
      await expect(createOperatorServer(metrics, { host: '127.0.0.1', port }).listen()).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
