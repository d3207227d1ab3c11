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

/** Label children are cached per (route, method, status): a request allocates no label object. */
function httpMetrics(registry: Registry): HttpMetrics {
  const labelNames = ['route', 'method', 'status'] as const;
  const requests = new Counter({ name: 'pits_http_requests_total', help: 'HTTP requests (tRPC: procedure calls) finished, by route template or procedure, method and status.', labelNames, registers: [registry] });
  const duration = new Histogram({
    name: 'pits_http_request_duration_seconds',
    help: 'Time from receiving a request (tRPC: starting a procedure call) to its answer, by route template or procedure, method and status.',
    labelNames,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [registry],
  });
  const children = new Map<string, { count: Counter.Internal; time: Histogram.Internal<(typeof labelNames)[number]> }>();
  return {
    observe(route, method, status, seconds) {
      const key = `${status} ${method} ${route}`;
      let child = children.get(key);
      if (child === undefined) {
        const labels = { route, method, status: String(status) };
        child = { count: requests.labels(labels), time: duration.labels(labels) };
        children.set(key, child);
      }
      child.count.inc();
      child.time.observe(seconds);
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
