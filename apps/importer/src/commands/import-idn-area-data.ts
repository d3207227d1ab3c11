// `areas --format idn-area-data <dir>`: the layout of the idn-area-data npm package — provinces,
// regencies, districts and villages CSVs joined by code into canonical areas. That source has no
// postcodes or coordinates: a new area gets an empty postcode and 0.00000000 coordinates, an
// existing one keeps its own. Its rejected-rows report has the columns code,parent_code,name,error
// (the four files differ in their parent column); the error names the file and line.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type AreaImportRow, upsertAreaBatch } from '@pits/persistence';
import { csvRecords } from '../csv/csv-records.js';
import type { RowIssue, RowSource } from '../report/reject-report.js';
import { AreaRowChecker } from '../validation/area-row.js';
import { type CheckedRow, FatalImportError, type ImportContext, type ImportSummary, byHeader, openTextInput, runBatches } from './import-run.js';

/** The data folder of the installed idn-area-data package (a dependency of this app). */
export function idnAreaDataDirectory(): string {
  return join(dirname(createRequire(import.meta.url).resolve('idn-area-data/package.json')), 'data');
}

interface Level {
  file: string;
  header: string;
  code: RegExp;
  shape: string;
}

const PROVINCES: Level = { file: 'provinces.csv', header: 'code,name', code: /^\d{2}$/, shape: 'NN' };
const REGENCIES: Level = { file: 'regencies.csv', header: 'code,province_code,name', code: /^\d{2}\.\d{2}$/, shape: 'NN.NN' };
const DISTRICTS: Level = { file: 'districts.csv', header: 'code,regency_code,name', code: /^\d{2}\.\d{2}\.\d{2}$/, shape: 'NN.NN.NN' };
const VILLAGES: Level = { file: 'villages.csv', header: 'code,district_code,name', code: /^\d{2}\.\d{2}\.\d{2}\.\d{4}$/, shape: 'NN.NN.NN.NNNN' };

async function* levelRows(dir: string, level: Level) {
  const path = join(dir, level.file);
  const input = await openTextInput(path);
  const records = csvRecords(input.chunks);
  const first = await records.next();
  const header = first.done ? '' : first.value.fields.map((h) => h.trim()).join(',');
  if (header !== level.header) throw new FatalImportError(`${path}: wrong header: expected "${level.header}", found "${header}"`);
  for await (const record of records) yield { ...record, fraction: input.fraction };
}

const REPORT_COLUMNS = ['code', 'parent_code', 'name'];

/** A row of any level as the report shows it. */
function reportSource(row: Record<string, string>, parentField: string | undefined): RowSource {
  return { kind: 'csv', columns: REPORT_COLUMNS, delimiter: ',', fields: [row.code ?? '', parentField ? (row[parentField] ?? '') : '', row.name ?? ''] };
}

/** Checks a row of one level against its parent level (already read). */
function checkLevelRow(level: Level, fields: Record<string, string>, parentField: string | undefined, parents: ReadonlyMap<string, unknown> | undefined): RowIssue[] {
  const issues: RowIssue[] = [];
  const code = (fields.code ?? '').trim();
  if (!level.code.test(code)) issues.push({ field: 'code', reason: `must have the form ${level.shape}` });
  if ((fields.name ?? '').trim() === '') issues.push({ field: 'name', reason: 'is required' });
  if (parentField && parents) {
    const parent = (fields[parentField] ?? '').trim();
    if (!parents.has(parent)) issues.push({ field: parentField, reason: `${parent} is not in the parent file` });
    else if (issues.length === 0 && !code.startsWith(`${parent}.`)) issues.push({ field: 'code', reason: `must start with its ${parentField} ${parent}` });
  }
  return issues;
}

/**
 * Imports the idn-area-data layout found in `dir` (default: the installed package's data).
 *
 * @example
 * await importIdnAreaData(context, idnAreaDataDirectory());
 */
export async function importIdnAreaData(context: ImportContext, dir: string = idnAreaDataDirectory()): Promise<ImportSummary> {
  if (!existsSync(dir)) throw new FatalImportError(`cannot read ${dir}: no such directory`);
  let rejectedAbove = 0;
  const reject = (file: string, line: number, source: RowSource, issues: RowIssue[]) => {
    rejectedAbove += 1;
    context.report.reject(file, line, source, issues);
  };
  // Provinces, regencies and districts are small (under ten thousand rows): read them whole.
  const provinces = new Map<string, string>();
  for await (const { line, fields } of levelRows(dir, PROVINCES)) {
    const row = byHeader(['code', 'name'], fields);
    const issues = checkLevelRow(PROVINCES, row, undefined, undefined);
    if (issues.length > 0) reject(PROVINCES.file, line, reportSource(row, undefined), issues);
    else provinces.set(row.code!.trim(), row.name!.trim());
  }
  const regencies = new Map<string, string>();
  for await (const { line, fields } of levelRows(dir, REGENCIES)) {
    const row = byHeader(['code', 'province_code', 'name'], fields);
    const issues = checkLevelRow(REGENCIES, row, 'province_code', provinces);
    if (issues.length > 0) reject(REGENCIES.file, line, reportSource(row, 'province_code'), issues);
    else regencies.set(row.code!.trim(), row.name!.trim());
  }
  const districts = new Map<string, string>();
  for await (const { line, fields } of levelRows(dir, DISTRICTS)) {
    const row = byHeader(['code', 'regency_code', 'name'], fields);
    const issues = checkLevelRow(DISTRICTS, row, 'regency_code', regencies);
    if (issues.length > 0) reject(DISTRICTS.file, line, reportSource(row, 'regency_code'), issues);
    else districts.set(row.code!.trim(), row.name!.trim());
  }

  const checker = new AreaRowChecker({ location: false });
  let fraction = () => 0;
  async function* rows(): AsyncGenerator<CheckedRow<AreaImportRow>> {
    for await (const { line, fields, error, fraction: f } of levelRows(dir, VILLAGES)) {
      fraction = f;
      const row = byHeader(['code', 'district_code', 'name'], fields);
      const source = reportSource(row, 'district_code');
      const issues = error ? [{ field: '', reason: error }] : checkLevelRow(VILLAGES, row, 'district_code', districts);
      if (issues.length > 0) {
        yield { file: VILLAGES.file, line, source, checked: { ok: false, issues } };
        continue;
      }
      const code = row.code!.trim();
      const [p, c, d] = [code.slice(0, 2), code.slice(0, 5), code.slice(0, 8)];
      const record = {
        country: 'Indonesia', country_code: 'ID',
        state: provinces.get(p) ?? '', state_code: p,
        city: regencies.get(c) ?? '', city_code: c,
        district: districts.get(d) ?? '', district_code: d,
        subdistrict: row.name!.trim(), subdistrict_code: code,
        postcode: '', latitude: '0.00000000', longitude: '0.00000000',
      };
      yield { file: VILLAGES.file, line, source, checked: checker.check(line, record) };
    }
  }
  const now = context.now ?? (() => new Date());
  const summary = await runBatches(
    'areas',
    context,
    rows(),
    (batch) => upsertAreaBatch(context.database, batch, { now: now(), dryRun: context.dryRun, keep: ['postcode', 'latitude', 'longitude'] }),
    () => fraction(),
  );
  return { ...summary, rejected: summary.rejected + rejectedAbove };
}
