// The Prometheus metrics every process shares: one registry per process (the `app` label on every
// series), the HTTP request counter and latency histogram, and the database's pool use and failed
// statements. Each app adds its own metrics to the same registry; the operator server
// (operator-server.ts) serves it. Names follow Prometheus conventions: `pits_` prefix, snake_case,
// the unit in the name, `_total` on counters.
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { DATABASE_ERROR_KINDS, type Database, type DatabaseEvents, classifyDatabaseError } from '@pits/persistence';
import type { AppName } from './log-fields.js';

/** Latency buckets in seconds: a fast read (~1 ms) to a request deadline (10 s). */
export const LATENCY_BUCKETS_SECONDS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Records one finished request: a counter increment and a histogram observation, nothing else. */
export interface HttpMetrics {
  observe(route: string, method: string, status: number, seconds: number): void;
}

/** A process's metrics: its registry plus the ones every process has. */
export interface ProcessMetrics {
  readonly app: AppName;
  readonly registry: Registry;
  readonly http: HttpMetrics;
  /** Pass to `createDatabase(config, { ...metrics.databaseEvents, logger })`: counts failed statements by kind. */
  readonly databaseEvents: Required<Pick<DatabaseEvents, 'onQueryError'>>;
  /** Reports `database`'s pool use on every scrape (`pits_db_pool_connections{state}`). */
  watchDatabase(database: Database): void;
}

type HttpLabels = Record<string, string> & {
  route: string;
  method: string;
  status: string;
};

/** One (route, method, status) series: plain numbers, turned into prom-client's shape only when scraped. */
interface HttpSeries {
  readonly labels: HttpLabels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above every bound (+Inf only). */
  readonly perBucket: Float64Array;
}

/**
 * The request counter and latency histogram, kept as plain numbers per series: prom-client's own
 * `inc`/`observe` hash the label set on every call (several microseconds a request under load),
 * which the gateway's hot path should not pay. prom-client still names, registers and formats
 * them; only their values come from here, read on each scrape.
 */
function httpMetrics(registry: Registry): HttpMetrics {
  const series = new Map<string, HttpSeries>();
  const bounds = LATENCY_BUCKETS_SECONDS;
  const labelNames = ['route', 'method', 'status'] as const;
  const DURATION = {
    name: 'pits_http_request_duration_seconds',
    help: 'Time from receiving a request (tRPC: starting a procedure call) to its answer, by route template or procedure, method and status.',
  };

  class RequestCounter extends Counter<(typeof labelNames)[number]> {
    override async get() {
      // The base gives the name, help and type (its own series stay empty); the values are ours.
      return { ...(await super.get()), values: [...series.values()].map((s) => ({ value: s.count, labels: s.labels })) };
    }
    override reset() {
      super.reset();
      series.clear();
    }
  }
  class RequestHistogram extends Histogram<(typeof labelNames)[number]> {
    /** What prom-client's registry formats (and its `get()` builds on): the values of every series. */
    getForPromString() {
      const name = DURATION.name;
      const values: { value: number; labels: Record<string, string | number>; sharedLabels: HttpLabels; metricName: string }[] = [];
      for (const s of series.values()) {
        let cumulative = 0;
        bounds.forEach((le, i) => {
          cumulative += s.perBucket[i]!;
          values.push({ value: cumulative, labels: { le }, sharedLabels: s.labels, metricName: `${name}_bucket` });
        });
        values.push({ value: s.count, labels: { le: '+Inf' }, sharedLabels: s.labels, metricName: `${name}_bucket` });
        values.push({ value: s.sum, labels: {}, sharedLabels: s.labels, metricName: `${name}_sum` });
        values.push({ value: s.count, labels: {}, sharedLabels: s.labels, metricName: `${name}_count` });
      }
      return Promise.resolve({ name, help: DURATION.help, type: 'histogram', aggregator: 'sum', values });
    }
    override reset() {
      super.reset();
      series.clear();
    }
  }
  new RequestCounter({ name: 'pits_http_requests_total', help: 'HTTP requests (tRPC: procedure calls) finished, by route template or procedure, method and status.', labelNames, registers: [registry] });
  new RequestHistogram({
    ...DURATION,
    labelNames,
    buckets: bounds,
    registers: [registry],
  });
  return {
    observe(route, method, status, seconds) {
      const key = `${status} ${method} ${route}`;
      let s = series.get(key);
      if (s === undefined) {
        s = { labels: { route, method, status: String(status) }, count: 0, sum: 0, perBucket: new Float64Array(bounds.length + 1) };
        series.set(key, s);
      }
      s.count += 1;
      s.sum += seconds;
      let i = 0;
      while (i < bounds.length && seconds > bounds[i]!) i += 1;
      s.perBucket[i]! += 1;
    },
  };
}

/**
 * The registry of one process, with Node's process metrics (CPU, memory, event loop) and the HTTP
 * and database metrics; `app` labels every series.
 *
 * @example
 * const metrics = createProcessMetrics('gateway');
 * const database = createDatabase(config.database, { logger, ...metrics.databaseEvents });
 * metrics.watchDatabase(database);
 */
export function createProcessMetrics(app: AppName): ProcessMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry });

  const queryErrors = new Counter({ name: 'pits_db_query_errors_total', help: 'Database statements that failed, by kind: timeout, unavailable, conflict, constraint, other.', labelNames: ['kind'], registers: [registry] });
  for (const kind of DATABASE_ERROR_KINDS) queryErrors.labels(kind).inc(0);
  const watched: Database[] = [];
  new Gauge({
    name: 'pits_db_pool_connections',
    help: 'Database connections by state: total (open), idle, waiting (callers waiting for one). An embedded database reports its one handle.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      this.reset();
      for (const database of watched) {
        const used = database.connections();
        this.inc({ state: 'total' }, used.total);
        this.inc({ state: 'idle' }, used.idle);
        this.inc({ state: 'waiting' }, used.waiting);
      }
    },
  });

  return {
    app,
    registry,
    http: httpMetrics(registry),
    databaseEvents: { onQueryError: (error) => queryErrors.labels(classifyDatabaseError(error)).inc() },
    watchDatabase(database) {
      watched.push(database);
    },
  };
}

// The metric types the apps build their own metrics from, so no app depends on prom-client itself.
export { Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Writes `registry` as a Prometheus text file (node_exporter's textfile collector reads these),
 * atomically: a temporary file beside it, then a rename, so a collector never reads half a file.
 *
 * @example await writeMetricsFile(registry, '/var/lib/node_exporter/textfile/pits_import.prom');
 */
export async function writeMetricsFile(registry: Registry, path: string): Promise<void> {
  const text = await registry.metrics();
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await writeFile(temporary, text, { encoding: 'utf8', mode: 0o644 });
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
