// `areas <file>`: the canonical area file (the columns of areas_id.csv, in any order, separated
// by commas, semicolons or tabs), streamed.
import { basename } from 'node:path';
import { AREA_FIELDS, type AreaField, type AreaImportRow, upsertAreaBatch } from '@pits/persistence';
import type { HeaderSpec } from '../csv/csv-header.js';
import { AreaRowChecker } from '../validation/area-row.js';
import { type ImportContext, type ImportSummary, checkedCsvRows, openCsvTable, runBatches } from './import-run.js';

export const CANONICAL_HEADER = AREA_FIELDS.join(',');

const AREA_HEADER: HeaderSpec = { columns: AREA_FIELDS, required: AREA_FIELDS };

/**
 * Imports a canonical area file: every row checked, accepted rows upserted by subdistrict code
 * in batches, refused rows reported.
 *
 * @example
 * const summary = await importAreasFile(context, 'apps/importer/assets/areas_id.csv.gz');
 */
export async function importAreasFile(context: ImportContext, path: string): Promise<ImportSummary> {
  const table = await openCsvTable(path, AREA_HEADER);
  // Where each canonical field sits in this file's records (the header names every one, once).
  const positions = AREA_FIELDS.map((field) => table.columns.indexOf(field));
  const record = (fields: readonly string[]) => {
    const out = {} as Record<AreaField, string>;
    for (let i = 0; i < AREA_FIELDS.length; i += 1) out[AREA_FIELDS[i]!] = fields[positions[i]!]!;
    return out;
  };
  const checker = new AreaRowChecker({ location: true });
  const rows = checkedCsvRows(basename(path), table, (line, fields) => checker.check(line, record(fields)));
  const now = context.now ?? (() => new Date());
  return runBatches('areas', context, rows, (batch: AreaImportRow[]) => upsertAreaBatch(context.database, batch, { now: now(), dryRun: context.dryRun }), table.fraction);
}
