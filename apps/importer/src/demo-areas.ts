// Real areas for a newcomer's demo database: by default the area file shipped with the importer
// (every village of Indonesia with its postcode and coordinates, MIT, see assets/), else the
// idn-area-data dependency (codes and names only).
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Database, hasAreas } from '@pits/persistence';
import { importAreasFile } from './commands/import-areas.js';
import { importIdnAreaData } from './commands/import-idn-area-data.js';
import type { ImportContext, ImportSummary } from './commands/import-run.js';
import { silentProgress } from './progress/progress-reporter.js';
import { createRejectReport } from './report/reject-report.js';

/** The shipped area file (gzipped canonical CSV, 83,762 villages), beside src/ and dist/ alike. */
export const BUNDLED_AREAS_FILE = fileURLToPath(new URL('../assets/areas_id.csv.gz', import.meta.url));

/** Where the demo's areas come from: the shipped file (default), or the idn-area-data package. */
export type DemoAreaSource = 'bundled' | 'idn-area-data';

/**
 * Loads the demo's areas when the database has none yet; returns the summary, or undefined when
 * areas were already there (so a restart does not read the file again).
 *
 * @example
 * const loaded = await loadDemoAreas(database); // npm start: 83,762 areas with postcodes and coordinates
 */
export async function loadDemoAreas(database: Database, options: { reportPath?: string; source?: DemoAreaSource } = {}): Promise<ImportSummary | undefined> {
  if (await hasAreas(database)) return undefined;
  const report = createRejectReport(options.reportPath ?? join(tmpdir(), 'pits-demo-areas.rejected.csv'));
  const context: ImportContext = { database, batchSize: 2000, dryRun: false, report, progress: silentProgress };
  try {
    return options.source === 'idn-area-data' ? await importIdnAreaData(context) : await importAreasFile(context, BUNDLED_AREAS_FILE);
  } finally {
    await report.close();
  }
}
