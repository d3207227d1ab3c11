// The real area list for tests and benchmarks: the full area file the repository ships inside the
// importer (apps/importer/assets/areas_id.csv.gz, 83,762 villages), decompressed in memory and read
// here on its own terms, so that tests check the import against the file itself. Nothing outside
// the repository is read: a fresh clone anywhere runs these tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import type { Database } from '../create-database.js';
import { AREA_FIELDS, type AreaImportRow } from '../repositories/areas/area-fields.js';

/** The shipped area file: `apps/importer/assets/areas_id.csv.gz` from the repository root (same depth from src/ and dist/). */
export const AREAS_FILE = join(import.meta.dirname, '..', '..', '..', '..', 'apps', 'importer', 'assets', 'areas_id.csv.gz');

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

/** The text of an area file; a `.gz` file is decompressed in memory. */
export function readAreaText(path = AREAS_FILE): string {
  const bytes = readFileSync(path);
  return (path.endsWith('.gz') ? gunzipSync(bytes) : bytes).toString('utf8');
}

/** Every record of a canonical area file (plain or gzipped), in file order. */
export function readAreaRecords(path = AREAS_FILE): AreaImportRow[] {
  const lines = readAreaText(path).split(/\r?\n/).filter((l) => l !== '');
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
