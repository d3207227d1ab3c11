// Micro-benchmark of the per-request metrics: 1e6 finished requests recorded by the owned request
// metrics (service-runtime's request-metrics.ts) and by prom-client's own Counter and Histogram
// (label objects, and cached `labels()` children), in alternating rounds so a busy machine slows
// every contender alike. Prints nanoseconds per request, the median of the rounds.
//
//   npm run request-metrics -w @pits/bench   (after building @pits/service-runtime)
import { Counter, Histogram, LATENCY_BUCKETS_SECONDS, Registry, createRequestMetrics } from '@pits/service-runtime';

const REQUESTS = 1_000_000;
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const ROUTES = ['/api/partner/v1/areas/:id', '/api/partner/v1/products', '/api/partner/v1/adjustments/:id/approve', 'unmatched'];
const STATUSES = [200, 200, 201, 404];
const SECONDS = Array.from({ length: 1024 }, (_, i) => (i % 97) * 0.0007);

type Observe = (route: string, method: string, status: number, seconds: number) => void;

function owned(): Observe {
  return createRequestMetrics({ app: 'gateway' }).observe;
}

function promClient(): { labelObjects: Observe; children: Observe } {
  const registry = new Registry();
  const labelNames = ['route', 'method', 'status'];
  const count = new Counter({ name: 'requests_total', help: 'x', labelNames, registers: [registry] });
  const time = new Histogram({ name: 'duration_seconds', help: 'x', labelNames, buckets: [...LATENCY_BUCKETS_SECONDS], registers: [registry] });
  const children = new Map<string, { count: ReturnType<typeof count.labels>; time: ReturnType<typeof time.labels> }>();
  return {
    labelObjects(route, method, status, seconds) {
      const labels = { route, method, status: String(status) };
      count.inc(labels);
      time.observe(labels, seconds);
    },
    children(route, method, status, seconds) {
      const key = `${status} ${method} ${route}`;
      let child = children.get(key);
      if (child === undefined) {
        child = { count: count.labels(route, method, String(status)), time: time.labels(route, method, String(status)) };
        children.set(key, child);
      }
      child.count.inc();
      child.time.observe(seconds);
    },
  };
}

function nsPerRequest(observe: Observe): number {
  const started = process.hrtime.bigint();
  for (let i = 0; i < REQUESTS; i += 1) observe(ROUTES[i & 3]!, 'GET', STATUSES[i & 3]!, SECONDS[i & 1023]!);
  return Number(process.hrtime.bigint() - started) / REQUESTS;
}

const contenders: Record<string, Observe> = {
  'owned (request-metrics.ts)': owned(),
  'prom-client, label objects': promClient().labelObjects,
  'prom-client, cached labels() children': promClient().children,
};
const times = new Map<string, number[]>(Object.keys(contenders).map((name) => [name, []]));
for (const observe of Object.values(contenders)) nsPerRequest(observe); // warm-up
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, observe] of Object.entries(contenders)) times.get(name)!.push(nsPerRequest(observe));
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [name, values] of times) {
  console.log(`${name.padEnd(40)} ${median(values).toFixed(0).padStart(6)} ns/request (rounds: ${values.map((v) => v.toFixed(0)).join(', ')})`);
}
