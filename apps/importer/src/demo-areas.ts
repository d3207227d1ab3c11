// Real areas for a newcomer's demo database, from the idn-area-data dependency.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, hasAreas } from '@pits/persistence';
import { importIdnAreaData } from './commands/import-idn-area-data.js';
import type { ImportSummary } from './commands/import-run.js';
import { silentProgress } from './progress/progress-reporter.js';
import { createRejectReport } from './report/reject-report.js';

/**
 * Loads the areas of the installed idn-area-data package when the database has none yet;
 * returns the summary, or undefined when areas were already there.
 *
 * @example
 * const loaded = await loadDemoAreas(database); // npm start
 */
export async function loadDemoAreas(database: Database, options: { reportPath?: string } = {}): Promise<ImportSummary | undefined> {
  if (await hasAreas(database)) return undefined;
  const report = createRejectReport(options.reportPath ?? join(tmpdir(), 'pits-demo-areas.rejected.csv'));
  try {
    return await importIdnAreaData({ database, batchSize: 2000, dryRun: false, report, progress: silentProgress });
  } finally {
    await report.close();
  }
}
