// Reading a data file's header the way people write one: the delimiter is taken from the header
// line (comma, semicolon or tab), column names are compared ignoring letter case and surrounding
// spaces, columns may come in any order, and a column named `error` (the rejected-rows report's
// own) is ignored. A header that still does not fit gets a message listing what was expected,
// with a "did you mean" for names that are close to a known one.
import type { CsvDelimiter } from './csv-records.js';

/** The column the rejected-rows report adds; ignored on import so a fixed report can be fed back. */
export const ERROR_COLUMN = 'error';

const DELIMITERS: readonly CsvDelimiter[] = [',', ';', '\t'];

/** A column name as compared: trimmed, lower case. @example normaliseColumn(' SKU ') === 'sku' */
export const normaliseColumn = (name: string): string => name.trim().toLowerCase();

/** How a delimiter is named in messages. */
export const delimiterName = (d: CsvDelimiter): string => (d === ',' ? 'comma' : d === ';' ? 'semicolon' : 'tab');

/**
 * The delimiter of a file whose header line is `headerLine`: the one under which most cells are
 * known column names; without any known name, the one that splits the line into most cells;
 * a comma when nothing tells them apart.
 *
 * @example
 * sniffDelimiter('SKU;Name;Price', ['sku', 'name']) // ';'
 */
export function sniffDelimiter(headerLine: string, known: readonly string[]): CsvDelimiter {
  const names = new Set(known);
  let best: CsvDelimiter = ',';
  let bestKnown = -1;
  let bestCells = 0;
  for (const delimiter of DELIMITERS) {
    const cells = headerLine.split(delimiter).map((cell) => normaliseColumn(cell.trim().replace(/^"(.*)"$/, '$1')));
    const knownCells = cells.filter((cell) => names.has(cell)).length;
    if (knownCells > bestKnown || (knownCells === bestKnown && cells.length > bestCells)) {
      best = delimiter;
      bestKnown = knownCells;
      bestCells = cells.length;
    }
  }
  return best;
}

export interface HeaderSpec {
  /** Every column the file may carry, in the order messages list them. */
  columns: readonly string[];
  /** The columns it must carry. */
  required: readonly string[];
}

/** For each position of the header, the known column it holds, or undefined for the ignored `error` column. */
export type HeaderMatch = { ok: true; columns: ReadonlyArray<string | undefined> } | { ok: false; problems: string[] };

/**
 * Matches a header against the columns a file may carry.
 *
 * @example
 * matchHeader(['SKU', ' Name ', 'error'], { columns: ['sku', 'name', 'brand'], required: ['sku', 'name'] })
 * // { ok: true, columns: ['sku', 'name', undefined] }
 * matchHeader(['sku', 'nmae'], spec) // { ok: false, problems: ['unknown column "nmae" (did you mean "name"?)', 'missing column "name"'] }
 */
export function matchHeader(header: readonly string[], spec: HeaderSpec): HeaderMatch {
  const known = new Set(spec.columns);
  const problems: string[] = [];
  const seen = new Set<string>();
  const columns = header.map((raw) => {
    const name = normaliseColumn(raw);
    if (name === ERROR_COLUMN) return undefined;
    if (!known.has(name)) {
      const near = nearColumns(name, spec.columns);
      problems.push(`unknown column "${raw.trim()}"${near.length > 0 ? ` (did you mean ${near.map((n) => `"${n}"`).join(' or ')}?)` : ''}`);
    } else if (seen.has(name)) problems.push(`column "${name}" appears twice`);
    seen.add(name);
    return name;
  });
  const missing = spec.required.filter((name) => !seen.has(name));
  if (missing.length > 2 && missing.length === spec.required.length) problems.push('none of the expected columns is there');
  else if (missing.length > 0) problems.push(`missing column${missing.length > 1 ? 's' : ''} ${missing.map((n) => `"${n}"`).join(', ')}`);
  return problems.length > 0 ? { ok: false, problems } : { ok: true, columns };
}

/**
 * The message for a header that does not fit: what is wrong, how the line was read, and what
 * was expected.
 */
export function wrongHeaderMessage(file: string, problems: readonly string[], delimiter: CsvDelimiter, headerLine: string, spec: HeaderSpec): string {
  const read = delimiter === ',' ? '' : ` (read as ${delimiterName(delimiter)}-separated)`;
  // A header that is one cell with a `;` or tab in it was most likely split on the wrong character.
  const others = DELIMITERS.filter((d) => d !== delimiter && headerLine.includes(d));
  const hint = others.length > 0 && problems.some((p) => p.startsWith('unknown')) ? ` The header line also holds ${others.map((d) => `a ${delimiterName(d)}`).join(' and ')}: columns are separated by one of comma, semicolon or tab, the same on every line.` : '';
  const required = spec.required.length === spec.columns.length ? 'all required' : `${spec.required.join(' and ')} required`;
  return `${file}: wrong header${read}: ${problems.join('; ')}.${hint}\nExpected columns (${required}, any order, letter case ignored; a column named "${ERROR_COLUMN}" is ignored): ${spec.columns.join(', ')}`;
}

/** Known columns close to `name`: a small edit distance once separators are dropped, or containing it. */
function nearColumns(name: string, columns: readonly string[]): string[] {
  const squash = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '');
  const wanted = squash(name);
  if (wanted === '') return [];
  const limit = wanted.length <= 4 ? 1 : 2;
  const close = columns.map((c) => ({ c, d: editDistance(wanted, squash(c)) })).filter(({ d }) => d <= limit).sort((a, b) => a.d - b.d);
  if (close.length > 0) return close.slice(0, 2).map(({ c }) => c);
  // "price" for "published_price" and "cost_price": a fragment of one or two longer names (of more, it tells nothing).
  const containing = wanted.length >= 3 ? columns.filter((c) => squash(c).includes(wanted)) : [];
  return containing.length <= 2 ? containing : [];
}

/** Edits (insert, delete, substitute, swap two neighbours) turning a into b. */
function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
