import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestDatabase, openTestDatabase, testDialects } from '@pits/persistence/testing';
import { DatabaseUnavailableError, createDatabase } from '@pits/persistence';
import { metricSample } from './metric-sample.js';
import { Counter, Histogram, LATENCY_BUCKETS_SECONDS, Registry, createProcessMetrics } from './metrics.js';
import { createOperatorServer } from './operator-server.js';

const sample = metricSample;

describe('process metrics', () => {
  it('counts each request and observes its latency under its route, method and status, with the app on every series', async () => {
    const metrics = createProcessMetrics('gateway');
    metrics.http.observe('/api/partner/v1/areas/:id', 'GET', 200, 0.004);
    metrics.http.observe('/api/partner/v1/areas/:id', 'GET', 200, 0.2);
    metrics.http.observe('unmatched', 'GET', 404, 0.001);
    const text = await metrics.registry.metrics();
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

  it('writes exactly what prom-client’s own counter and histogram would for the same requests, and resets with the registry', async () => {
    const metrics = createProcessMetrics('gateway');
    const reference = new Registry();
    reference.setDefaultLabels({ app: 'gateway' });
    const labelNames = ['route', 'method', 'status'];
    const count = new Counter({ name: 'pits_http_requests_total', help: 'x', labelNames, registers: [reference] });
    const time = new Histogram({ name: 'pits_http_request_duration_seconds', help: 'x', labelNames, buckets: LATENCY_BUCKETS_SECONDS, registers: [reference] });
    const requests: [string, string, number, number][] = [
      ['/a/:id', 'GET', 200, 0.0005], ['/a/:id', 'GET', 200, 0.001], ['/a/:id', 'GET', 200, 0.0011], ['/a/:id', 'POST', 201, 3],
      ['unmatched', 'GET', 404, 12], ['/a/:id', 'GET', 200, 0.25], ['/b', 'DELETE', 503, 10],
    ];
    for (const [route, method, status, seconds] of requests) {
      metrics.http.observe(route, method, status, seconds);
      count.labels(route, method, String(status)).inc();
      time.labels(route, method, String(status)).observe(seconds);
    }
    const series = (text: string) => text.split('\n').filter((l) => l.startsWith('pits_http_')).sort();
    expect(series(await metrics.registry.metrics())).toEqual(series(await reference.metrics()));
    const json = await metrics.registry.getSingleMetric('pits_http_request_duration_seconds')!.get();
    expect(json.values).toContainEqual(expect.objectContaining({ metricName: 'pits_http_request_duration_seconds_count', value: 4, labels: { route: '/a/:id', method: 'GET', status: '200' } }));
    metrics.registry.resetMetrics();
    expect(series(await metrics.registry.metrics())).toEqual([]);
  });

  it('files failed statements by kind, every kind present from the start', async () => {
    const metrics = createProcessMetrics('internal-api');
    const before = await metrics.registry.metrics();
    for (const kind of ['timeout', 'unavailable', 'conflict', 'constraint', 'other']) expect(sample(before, 'pits_db_query_errors_total', { kind })).toBe(0);
    // The kinds are persistence's classification (each dialect's driver codes are tested there).
    metrics.databaseEvents.onQueryError(new DatabaseUnavailableError('the database did not answer within 6000 ms'));
    metrics.databaseEvents.onQueryError(new Error('syntax error'));
    metrics.databaseEvents.onQueryError(new Error('syntax error'));
    const after = await metrics.registry.metrics();
    expect(sample(after, 'pits_db_query_errors_total', { app: 'internal-api', kind: 'timeout' })).toBe(1);
    expect(sample(after, 'pits_db_query_errors_total', { kind: 'other' })).toBe(2);
    expect(sample(after, 'pits_db_query_errors_total', { kind: 'constraint' })).toBe(0);
    expect(sample(after, 'pits_db_query_errors_total', { kind: 'unavailable' })).toBe(0);
  });
});

const dialects = await testDialects();

describe.each(dialects)('[%s] database metrics', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { file: true });
  });
  afterAll(() => t.cleanup());

  it('reports the pool on every scrape and counts a statement the database refused', async () => {
    const metrics = createProcessMetrics('webhook-worker');
    const database = createDatabase(t.config, metrics.databaseEvents);
    metrics.watchDatabase(database);
    try {
      await database.db.selectFrom('tenants').select('id').execute();
      await expect(database.db.selectFrom('no_such_table' as 'tenants').select('id').execute()).rejects.toThrow();
      const text = await metrics.registry.metrics();
      const total = sample(text, 'pits_db_pool_connections', { app: 'webhook-worker', state: 'total' });
      expect(total).toBeGreaterThanOrEqual(1);
      expect(sample(text, 'pits_db_pool_connections', { state: 'idle' })).toBe(total);
      expect(sample(text, 'pits_db_pool_connections', { state: 'waiting' })).toBe(0);
      expect(sample(text, 'pits_db_query_errors_total', { kind: 'other' })).toBe(1);
    } finally {
      await database.destroy();
    }
  });
});

describe('operator server', () => {
  it('serves GET /metrics in the Prometheus text format and nothing else', async () => {
    const metrics = createProcessMetrics('gateway');
    metrics.http.observe('/healthz', 'GET', 200, 0.001);
    const operator = createOperatorServer(metrics.registry, { host: '127.0.0.1', port: 0 });
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
    const metrics = createProcessMetrics('gateway');
    const first = createOperatorServer(metrics.registry, { host: '127.0.0.1', port: 0 });
    const { port } = await first.listen();
    try {
      await expect(createOperatorServer(metrics.registry, { host: '127.0.0.1', port }).listen()).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await first.close();
    }
  });
});
