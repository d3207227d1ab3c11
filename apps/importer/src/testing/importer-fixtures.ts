// Test support for the importer (not built): a context on a test database, the importer as a
// child process, and an order-independent digest of area content from the file or the database.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { AREA_FIELDS, type AreaImportRow, type Database } from '@pits/persistence';
import type { ImportContext } from '../commands/import-run.js';
import { silentProgress } from '../progress/progress-reporter.js';
import { type RejectReport, createRejectReport } from '../report/reject-report.js';

export const IMPORTER_ROOT = join(import.meta.dirname, '..', '..');

export function testContext(database: Database, reportPath: string, options: { batchSize?: number; dryRun?: boolean } = {}): ImportContext & { report: RejectReport } {
  return { database, batchSize: options.batchSize ?? 2000, dryRun: options.dryRun ?? false, report: createRejectReport(reportPath), progress: silentProgress };
}

/** The importer's main.ts as a child process (sources through tsx, as the tests see them). */
export function spawnImporter(args: readonly string[], env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--conditions=@pits/source', '--import', 'tsx', join(IMPORTER_ROOT, 'src', 'main.ts'), ...args], {
    cwd: IMPORTER_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export async function runImporter(args: readonly string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnImporter(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** SHA-256 over every record's fields, sorted by subdistrict code: equal digests, equal content. */
export function areaDigest(records: Iterable<AreaImportRow>): string {
  const lines = [...records].map((r) => AREA_FIELDS.map((f) => r[f]).join('\u001f')).sort();
  const hash = createHash('sha256');
  for (const line of lines) hash.update(`${line}\n`);
  return hash.digest('hex');
}

/** The digest of what the database holds. */
export async function storedAreaDigest(database: Database): Promise<string> {
  const rows = await database.db.selectFrom('areas').select(AREA_FIELDS).execute();
  return areaDigest(rows);
}
