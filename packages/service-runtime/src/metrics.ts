// The Prometheus metrics every process shares: one registry per process (the `app` label on every
// series), the HTTP request counter and latency histogram, and the database's pool use and failed
// statements. Each app adds its own metrics to the same registry; the operator server
// (operator-server.ts) serves the process's metrics. Names follow Prometheus conventions: `pits_`
// prefix, snake_case, the unit in the name, `_total` on counters.
import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { AppName } from './log-fields.js';
import { type HttpMetrics, createRequestMetrics } from './request-metrics.js';

export { type HttpMetrics, type RequestMetrics, LATENCY_BUCKETS_SECONDS, createRequestMetrics } from './request-metrics.js';

/** Text in the Prometheus exposition format, and its content type: what a scrape answers with. A prom-client `Registry` is one. */
export interface MetricsExposition {
  readonly contentType: string;
  metrics(): Promise<string>;
}

/** How the database layer sorts a failed statement: every kind it can answer, and the kind of one error. */
export interface DatabaseErrorClassification<K extends string = string> {
  readonly kinds: readonly K[];
  classify(error: unknown): K;
}

/** What a database reports of its connections (persistence's `Database` is one). */
export interface ConnectionsReporter {
  connections(): { readonly total: number; readonly idle: number; readonly waiting: number };
}

/**
 * How often Node's event-loop delay monitor (prom-client's `nodejs_eventloop_lag_*`) samples the
 * loop. Each sample wakes a waiting loop: at prom-client's 10 ms, a hundred wakeups a second cost
 * a gateway that served nothing about 8 ms of CPU a second, and up to 8 % of a request's CPU at 150
 * requests a second. At 100 ms a stall of 100 ms or more is always measured, a shorter one in
 * proportion to its length; `pits_event_loop_busy_seconds_total` counts every busy moment without
 * waking the loop (docs/benchmarks.md#the-event-loop-monitors-wakeups).
 */
const EVENT_LOOP_SAMPLE_MS = 100;

/**
 * A process's metrics: its registry (where apps add their own) plus the ones every process has.
 * Serve `metrics()` (not `registry.metrics()`): it is the registry's text and the request metrics.
 */
export interface ProcessMetrics extends MetricsExposition {
  readonly app: AppName;
  readonly registry: Registry;
  readonly http: HttpMetrics;
  /** Pass to `createDatabase(config, { ...metrics.databaseEvents, logger })`: counts failed statements by kind. */
  readonly databaseEvents: { readonly onQueryError: (error: unknown) => void };
  /** Reports `database`'s pool use on every scrape (`pits_db_pool_connections{state}`). */
  watchDatabase(database: ConnectionsReporter): void;
}

/**
 * The metrics of one process, with Node's process metrics (CPU, memory, event loop) and the HTTP
 * and database metrics; `app` labels every series. `databaseErrors` is persistence's classification.
 *
 * @example
 * const metrics = createProcessMetrics('gateway', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
 * const database = createDatabase(config.database, { logger, ...metrics.databaseEvents });
 * metrics.watchDatabase(database);
 */
export function createProcessMetrics(app: AppName, databaseErrors: DatabaseErrorClassification): ProcessMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ app });
  collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  new Counter({
    name: 'pits_event_loop_busy_seconds_total',
    help: 'Time the event loop spent running code rather than waiting for I/O, since the process started; its rate is the loop utilisation (1 is saturated).',
    registers: [registry],
    collect() {
      // Read from the loop's own idle-time accounting at each scrape: nothing runs between scrapes.
      this.reset();
      this.inc(performance.eventLoopUtilization().active / 1000);
    },
  });
  const requests = createRequestMetrics({ app });

  const queryErrors = new Counter({ name: 'pits_db_query_errors_total', help: `Database statements that failed, by kind: ${databaseErrors.kinds.join(', ')}.`, labelNames: ['kind'], registers: [registry] });
  for (const kind of databaseErrors.kinds) queryErrors.labels(kind).inc(0);
  const watched: ConnectionsReporter[] = [];
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
    http: requests,
    contentType: registry.contentType,
    async metrics() {
      // The registry's blocks end in one newline and are a blank line apart; the request metrics follow the same way.
      return `${await registry.metrics()}\n${requests.exposition()}`;
    },
    databaseEvents: { onQueryError: (error) => queryErrors.labels(databaseErrors.classify(error)).inc() },
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
export async function writeMetricsFile(registry: MetricsExposition, path: string): Promise<void> {
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
