// The real area list for tests: ../shared/data/areas_id.csv beside the repository (never copied
// into it), read here on its own terms so that tests check the import against the file itself.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from '../create-database.js';
import { AREA_FIELDS, type AreaImportRow } from '../repositories/areas/area-fields.js';

/** Where the shared data set sits: `../shared/data/areas_id.csv` from the repository root. */
export const SHARED_AREAS_CSV = join(import.meta.dirname, '..', '..', '..', '..', '..', 'shared', 'data', 'areas_id.csv');

/**
 * True when the shared area file is there. Outside CI a missing file skips its tests with a
 * printed reason; under CI=true it throws, because CI never skips them.
 */
export function sharedAreasAvailable(): boolean {
  if (existsSync(SHARED_AREAS_CSV)) return true;
  if (process.env.CI === 'true') throw new Error(`${SHARED_AREAS_CSV} is missing; CI requires it`);
  console.warn(`[skip] area data tests skipped: ${SHARED_AREAS_CSV} is missing`);
  return false;
}

/** One CSV line's fields (RFC 4180 quoting on one line: the file has no line breaks inside fields). */
function fields(line: string): string[] {
  const out: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < line.length; i += 1) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        field += '"';
        i += 1;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(field);
      field = '';
    } else field += c;
  }
  out.push(field);
  return out;
}

/** Every record of a canonical area file, in file order. */
export function readAreaRecords(path = SHARED_AREAS_CSV): AreaImportRow[] {
  const lines = readFileSync(path, 'utf8').split(/\r?\n/).filter((l) => l !== '');
  const header = fields(lines[0]!);
  if (header.join(',') !== AREA_FIELDS.join(',')) throw new Error(`unexpected header in ${path}`);
  return lines.slice(1).map((line) => {
    const values = fields(line);
    return Object.fromEntries(AREA_FIELDS.map((f, i) => [f, values[i] ?? ''])) as AreaImportRow;
  });
}

/**
 * The DATABASE_URL under which another process reaches the same test database (open it with
 * `openTestDatabase(dialect, { file: true })`).
 *
 * @example const url = await childDatabaseUrl(t.database);
 */
export function childDatabaseUrl(database: Database): Promise<string> {
  return database.dialect.testing.childDatabaseUrl(database.db, process.env);
}
