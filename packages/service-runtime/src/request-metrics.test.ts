// The owned request metrics against prom-client's own Counter and Histogram: for the same requests
// the text must be the same, byte for byte, so a scrape cannot tell them apart.
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS_SECONDS, REQUEST_DURATION_METRIC, REQUESTS_METRIC, createRequestMetrics } from './request-metrics.js';

type Request = [route: string, method: string, status: number, seconds: number];

/** What prom-client itself writes for `requests`, in a registry holding just these two metrics. */
async function promClientText(requests: readonly Request[], defaultLabels: Record<string, string>): Promise<string> {
  const reference = new Registry();
  reference.setDefaultLabels(defaultLabels);
  const labelNames = ['route', 'method', 'status'];
  const count = new Counter({ ...REQUESTS_METRIC, labelNames, registers: [reference] });
  const time = new Histogram({ ...REQUEST_DURATION_METRIC, labelNames, buckets: [...LATENCY_BUCKETS_SECONDS], registers: [reference] });
  for (const [route, method, status, seconds] of requests) {
    count.labels(route, method, String(status)).inc();
    time.labels(route, method, String(status)).observe(seconds);
  }
  return reference.metrics();
}

function ownText(requests: readonly Request[], defaultLabels: Record<string, string>): string {
  const metrics = createRequestMetrics(defaultLabels);
  for (const request of requests) metrics.observe(...request);
  return metrics.exposition();
}

const REQUESTS: Request[] = [
  ['/a/:id', 'GET', 200, 0.0005], ['/a/:id', 'GET', 200, 0.001], ['/a/:id', 'GET', 200, 0.0011], ['/a/:id', 'POST', 201, 3],
  ['unmatched', 'GET', 404, 12], ['/a/:id', 'GET', 200, 0.25], ['/b', 'DELETE', 503, 10], ['/a/:id', 'GET', 200, 0.1 + 0.2],
];

describe('request metrics', () => {
  it('write exactly what prom-client’s counter and histogram write for the same requests, bounds and overflow included', async () => {
    expect(ownText(REQUESTS, { app: 'gateway' })).toBe(await promClientText(REQUESTS, { app: 'gateway' }));
  });

  it('write the same with no default label, and with no request yet (HELP and TYPE only)', async () => {
    expect(ownText(REQUESTS, {})).toBe(await promClientText(REQUESTS, {}));
    expect(ownText([], { app: 'internal-api' })).toBe(await promClientText([], { app: 'internal-api' }));
  });

  it('escape quotes, backslashes and newlines in label values the way prom-client does', async () => {
    const odd: Request[] = [['say "hi"\\now', 'GET', 200, 0.01], ['line\nbreak', 'GET', 500, 0.02]];
    expect(ownText(odd, { app: 'a"b' })).toBe(await promClientText(odd, { app: 'a"b' }));
  });

  it('count a value on a bound into that bound’s bucket, and one above every bound into +Inf only', () => {
    const metrics = createRequestMetrics({}, [0.1, 1]);
    metrics.observe('/x', 'GET', 200, 0.1);
    metrics.observe('/x', 'GET', 200, 1.5);
    const lines = metrics.exposition().split('\n').filter((line) => line.startsWith('pits_http_request_duration_seconds_bucket'));
    expect(lines).toEqual([
      'pits_http_request_duration_seconds_bucket{le="0.1",route="/x",method="GET",status="200"} 1',
      'pits_http_request_duration_seconds_bucket{le="1",route="/x",method="GET",status="200"} 1',
      'pits_http_request_duration_seconds_bucket{le="+Inf",route="/x",method="GET",status="200"} 2',
    ]);
  });
});
