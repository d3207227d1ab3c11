// The importer is a command, not a server: nothing could scrape it. With --metrics-file (or
// IMPORT_METRICS_FILE) it leaves its counts in a Prometheus text file, the way node_exporter's
// textfile collector reads batch jobs: rows by outcome, how long the run took, and when it finished.
import { Counter, Gauge, Registry, writeMetricsFile } from '@pits/service-runtime';
import type { ImportSummary } from '../commands/import-run.js';

/** What a row came to; every outcome is written, zeros included. */
export const IMPORT_ROW_OUTCOMES = ['inserted', 'updated', 'unchanged', 'rejected'] as const;

/**
 * Writes the metrics of one finished (not dry) run of `kind` (`areas`, `products`, `stock`) to `path`,
 * atomically.
 *
 * @example await writeImportMetrics('/var/lib/node_exporter/textfile/pits_import_areas.prom', 'areas', summary, new Date());
 */
export async function writeImportMetrics(path: string, kind: string, summary: ImportSummary, finishedAt: Date): Promise<void> {
  const registry = new Registry();
  registry.setDefaultLabels({ app: 'importer' });
  const rows = new Counter({ name: 'pits_import_rows_total', help: 'Rows of the last import run, by kind (areas, products, stock) and outcome: inserted, updated, unchanged, rejected.', labelNames: ['kind', 'outcome'], registers: [registry] });
  for (const outcome of IMPORT_ROW_OUTCOMES) rows.labels(kind, outcome).inc(summary[outcome]);
  new Gauge({ name: 'pits_import_duration_seconds', help: 'How long the last import run of this kind took.', labelNames: ['kind'], registers: [registry] }).labels(kind).set(summary.seconds);
  new Gauge({ name: 'pits_import_last_run_timestamp_seconds', help: 'When the last import run of this kind finished (Unix seconds).', labelNames: ['kind'], registers: [registry] })
    .labels(kind)
    .set(Math.floor(finishedAt.getTime() / 1000));
  await writeMetricsFile(registry, path);
}
