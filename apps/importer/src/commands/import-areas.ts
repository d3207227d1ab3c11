// `areas <file>`: the canonical area file (the header of areas_id.csv), streamed.
import { basename } from 'node:path';
import { AREA_FIELDS, type AreaRecord, upsertAreaBatch } from '@pits/persistence';
import { csvRecords } from '../csv/csv-records.js';
import { AreaRowChecker } from '../validation/area-row.js';
import { type CheckedRow, FatalImportError, type ImportContext, type ImportSummary, openTextInput, runBatches } from './import-run.js';

/** The fields of a row of the canonical file (its header is checked to be exactly AREA_FIELDS). */
function inFieldOrder(f: readonly string[]): AreaRecord {
  return {
    country: f[0]!, country_code: f[1]!, state: f[2]!, state_code: f[3]!, city: f[4]!, city_code: f[5]!, district: f[6]!,
    district_code: f[7]!, subdistrict: f[8]!, subdistrict_code: f[9]!, postcode: f[10]!, latitude: f[11]!, longitude: f[12]!,
  };
}

export const CANONICAL_HEADER = AREA_FIELDS.join(',');

/**
 * Imports a canonical area file: every row checked, accepted rows upserted by subdistrict code
 * in batches, refused rows reported.
 *
 * @example
 * const summary = await importAreasFile(context, '../shared/data/areas_id.csv');
 */
export async function importAreasFile(context: ImportContext, path: string): Promise<ImportSummary> {
  const input = await openTextInput(path);
  const records = csvRecords(input.chunks);
  const first = await records.next();
  const header = first.done ? [] : first.value.fields.map((h) => h.trim());
  if (header.join(',') !== CANONICAL_HEADER) {
    throw new FatalImportError(`${path}: wrong header: expected "${CANONICAL_HEADER}", found "${header.join(',')}"`);
  }
  const file = basename(path);
  const checker = new AreaRowChecker({ location: true });
  async function* rows(): AsyncGenerator<CheckedRow<AreaRecord>> {
    for await (const { line, fields, error } of records) {
      if (error) yield { file, line, checked: { ok: false, issues: [{ field: '', reason: error }] } };
      else if (fields.length !== AREA_FIELDS.length) {
        yield { file, line, checked: { ok: false, issues: [{ field: '', reason: `has ${fields.length} fields, expected ${AREA_FIELDS.length}` }] } };
      } else yield { file, line, checked: checker.check(line, inFieldOrder(fields)) };
    }
  }
  const now = context.now ?? (() => new Date());
  return runBatches('areas', context, rows(), (batch) => upsertAreaBatch(context.database, batch, { now: now(), dryRun: context.dryRun }), input.fraction);
}
