// The request counter and latency histogram, owned outright: every finished request (tRPC: every
// procedure call) passes through `observe`, so it keeps plain numbers per series and writes them in
// the Prometheus text format (0.0.4) only when scraped. prom-client's own `inc`/`observe` validate
// and hash the label set on every call, several times the cost of this on the hot path
// (tools/bench/src/request-metrics-bench.ts measures both); request-metrics.test.ts holds this file's output to
// prom-client's, byte for byte, for the same requests.

/** Latency buckets in seconds: a fast read (~1 ms) to a request deadline (10 s). */
export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export const REQUESTS_METRIC = {
  name: 'pits_http_requests_total',
  help: 'HTTP requests (tRPC: procedure calls) finished, by route template or procedure, method and status.',
} as const;

export const REQUEST_DURATION_METRIC = {
  name: 'pits_http_request_duration_seconds',
  help: 'Time from receiving a request (tRPC: starting a procedure call) to its answer, by route template or procedure, method and status.',
} as const;

/** Records one finished request: a counter increment and a histogram observation, nothing else. */
export interface HttpMetrics {
  observe(route: string, method: string, status: number, seconds: number): void;
}

/** The request metrics of one process, and their text for a scrape. */
export interface RequestMetrics extends HttpMetrics {
  /** Both metrics in the Prometheus text format: HELP, TYPE and one line per value, blocks apart by a blank line, a final newline. */
  exposition(): string;
}

/** One (route, method, status) series. */
interface Series {
  /** `route="…",method="…",status="…"`, escaped once when the series is first seen. */
  readonly labels: string;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above every bound (+Inf only). */
  readonly perBucket: Float64Array;
}

const escapeText = (text: string): string => text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
const escapeLabel = (value: string): string => escapeText(value).replace(/"/g, '\\"');

/** A sample value as Prometheus writes it. */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'Nan';
  if (value === Infinity) return '+Inf';
  if (value === -Infinity) return '-Inf';
  return `${value}`;
}

const header = (metric: { name: string; help: string }, type: string): string => `# HELP ${metric.name} ${escapeText(metric.help)}\n# TYPE ${metric.name} ${type}`;

/**
 * `constantLabels` (the registry's default labels, e.g. `{ app: 'gateway' }`) go on every line, where
 * prom-client puts a registry's default labels: after a counter's labels, between `le` and the
 * series labels of a histogram line.
 *
 * @example
 * const requests = createRequestMetrics({ app: 'gateway' });
 * requests.observe('/api/partner/v1/areas/:id', 'GET', 200, 0.004);
 * requests.exposition(); // '# HELP pits_http_requests_total …\npits_http_requests_total{route="/api/partner/v1/areas/:id",method="GET",status="200",app="gateway"} 1\n…'
 */
export function createRequestMetrics(constantLabels: Readonly<Record<string, string>> = {}, bounds: readonly number[] = LATENCY_BUCKETS_SECONDS): RequestMetrics {
  const series = new Map<string, Series>();
  const constant = Object.entries(constantLabels).map(([name, value]) => `${name}="${escapeLabel(value)}"`);
  const bucketLabels = [...bounds.map((le) => `le="${le}"`), 'le="+Inf"'].map((le) => [le, ...constant].join(','));
  const afterCounter = constant.map((label) => `,${label}`).join('');
  const beforeSeries = constant.map((label) => `${label},`).join('');

  return {
    observe(route, method, status, seconds) {
      const key = `${status} ${method} ${route}`;
      let s = series.get(key);
      if (s === undefined) {
        s = { labels: `route="${escapeLabel(route)}",method="${escapeLabel(method)}",status="${status}"`, count: 0, sum: 0, perBucket: new Float64Array(bounds.length + 1) };
        series.set(key, s);
      }
      s.count += 1;
      s.sum += seconds;
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]!) i += 1;
      s.perBucket[i]! += 1;
    },

    exposition() {
      const counter = [header(REQUESTS_METRIC, 'counter')];
      const histogram = [header(REQUEST_DURATION_METRIC, 'histogram')];
      const name = REQUEST_DURATION_METRIC.name;
      for (const s of series.values()) {
        counter.push(`${REQUESTS_METRIC.name}{${s.labels}${afterCounter}} ${formatValue(s.count)}`);
        let cumulative = 0;
        for (let i = 0; i < bounds.length; i += 1) {
          cumulative += s.perBucket[i]!;
          histogram.push(`${name}_bucket{${bucketLabels[i]!},${s.labels}} ${formatValue(cumulative)}`);
        }
        histogram.push(`${name}_bucket{${bucketLabels[bounds.length]!},${s.labels}} ${formatValue(s.count)}`);
        histogram.push(`${name}_sum{${beforeSeries}${s.labels}} ${formatValue(s.sum)}`);
        histogram.push(`${name}_count{${beforeSeries}${s.labels}} ${formatValue(s.count)}`);
      }
      return `${counter.join('\n')}\n\n${histogram.join('\n')}\n`;
    },
  };
}
