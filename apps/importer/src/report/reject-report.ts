// The rejected-rows report: every rejected row as it came in, plus an `error` column that says
// what is wrong and where the row came from, so a person can fix the values and import the
// report itself (the importers ignore an `error` column). A CSV input gives a CSV report with the
// input's columns, in its order and with its delimiter; JSON lines give JSON lines. The file is
// created only when something is rejected, so a clean run leaves nothing behind, and never over
// an existing file: a report a person is editing is kept, and the new one takes the next free name.
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { ERROR_COLUMN, normaliseColumn } from '../csv/csv-header.js';
import type { CsvDelimiter } from '../csv/csv-records.js';

/** One problem with one input row; `field` is empty when the row as a whole is at fault. */
export interface RowIssue {
  field: string;
  reason: string;
}

/** A rejected row as it came in, so the report can give it back. */
export type RowSource =
  /** A CSV record: the header as written, its delimiter, and the record's fields. */
  | { kind: 'csv'; columns: readonly string[]; delimiter: CsvDelimiter; fields: readonly string[] }
  /** A JSON line: the parsed value (an object, normally) and the line's text. */
  | { kind: 'json'; value: unknown; text: string };

export interface RejectReport {
  /** Where the rows go: the path asked for, or the next free name when a file was already there (see `reportPathCandidate`). */
  readonly path: string;
  /** Rows rejected so far. */
  readonly rows: number;
  /** Writes one rejected row; throws when the report file cannot be written. */
  reject(file: string, line: number, source: RowSource, issues: readonly RowIssue[]): void;
  close(): Promise<void>;
}

/**
 * The `error` text of a rejected row: each problem, then the file and line it came from.
 *
 * @example
 * describeRejection('areas_id.csv', 12, [{ field: 'postcode', reason: 'must be five digits' }])
 * // 'postcode: must be five digits (areas_id.csv line 12)'
 */
export function describeRejection(file: string, line: number, issues: readonly RowIssue[]): string {
  const problems = issues.map((i) => (i.field === '' ? i.reason : `${i.field}: ${i.reason}`)).join('; ');
  return `${problems} (${file} line ${line})`;
}

const FLUSH_AT = 64 * 1024;

/**
 * The name tried for a report after `attempt` names were taken: the path itself first, then a
 * number before the extension.
 *
 * @example
 * reportPathCandidate('/x/areas_id.rejected.csv', 0) // '/x/areas_id.rejected.csv'
 * reportPathCandidate('/x/areas_id.rejected.csv', 1) // '/x/areas_id.rejected.2.csv'
 */
export function reportPathCandidate(path: string, attempt: number): string {
  if (attempt === 0) return path;
  const extension = extname(path);
  return join(dirname(path), `${basename(path, extension)}.${attempt + 1}${extension}`);
}

/** Creates the report file under the first free name (never replacing a file); returns its descriptor and name. */
function openFresh(path: string): { fd: number; path: string } {
  for (let attempt = 0; attempt < 10_000; attempt += 1) {
    const candidate = reportPathCandidate(path, attempt);
    try {
      return { fd: openSync(candidate, 'wx'), path: candidate };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error('every numbered name beside it is taken');
}

/**
 * @example
 * const report = createRejectReport('./areas_id.rejected.csv');
 * report.reject('areas_id.csv', 12, { kind: 'csv', columns: header, delimiter: ',', fields }, [{ field: 'postcode', reason: 'must be five digits' }]);
 * await report.close();
 */
export function createRejectReport(requestedPath: string): RejectReport {
  let path = requestedPath;
  let fd: number | undefined;
  let layout: RowSource['kind'] | undefined;
  /** For a CSV report: the input's columns kept (all but its own `error`), as indexes. */
  let kept: number[] = [];
  let delimiter: CsvDelimiter = ',';
  let buffer = '';
  let rows = 0;

  const flush = () => {
    if (fd === undefined || buffer === '') return;
    const text = buffer;
    buffer = '';
    try {
      writeSync(fd, text);
    } catch (error) {
      throw new Error(`cannot write the rejected-rows report ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
  };
  const open = (source: RowSource) => {
    try {
      mkdirSync(dirname(path), { recursive: true });
      ({ fd, path } = openFresh(requestedPath));
    } catch (error) {
      throw new Error(`cannot write the rejected-rows report ${path}: ${error instanceof Error ? error.message : String(error)}`);
    }
    layout = source.kind;
    if (source.kind === 'csv') {
      delimiter = source.delimiter;
      kept = source.columns.flatMap((name, i) => (normaliseColumn(name) === ERROR_COLUMN ? [] : [i]));
      buffer += csvLine([...kept.map((i) => source.columns[i]!), ERROR_COLUMN], delimiter);
    }
  };

  return {
    get path() {
      return path;
    },
    get rows() {
      return rows;
    },
    reject(file, line, source, issues) {
      if (fd === undefined) open(source);
      if (source.kind !== layout) throw new Error(`the rejected-rows report ${path} holds ${layout} rows, not ${source.kind}`);
      rows += 1;
      if (source.kind === 'csv') {
        // A record longer than the header keeps its extra cells in the error text: nothing the person typed is lost.
        const extra = source.fields.slice(source.columns.length);
        const all = extra.length > 0 ? [...issues, { field: '', reason: `cells beyond the header: ${extra.map((c) => JSON.stringify(c)).join(', ')}` }] : issues;
        buffer += csvLine([...kept.map((i) => source.fields[i] ?? ''), describeRejection(file, line, all)], delimiter);
      } else {
        buffer += `${JSON.stringify(jsonRow(source, file, line, issues))}\n`;
      }
      if (buffer.length >= FLUSH_AT) flush();
    },
    async close() {
      if (fd === undefined) return;
      try {
        flush();
      } finally {
        closeSync(fd);
        fd = undefined;
      }
    },
  };
}

function csvLine(cells: readonly string[], delimiter: CsvDelimiter): string {
  const special = new RegExp(`["\\r\\n${delimiter === '\t' ? '\\t' : delimiter}]`);
  return `${cells.map((c) => (special.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(delimiter)}\n`;
}

/** The original object with `error` last; a line that was not an object is kept in the error text. */
function jsonRow(source: Extract<RowSource, { kind: 'json' }>, file: string, line: number, issues: readonly RowIssue[]): Record<string, unknown> {
  const value = source.value;
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const { [ERROR_COLUMN]: _previous, ...rest } = value as Record<string, unknown>;
    return { ...rest, [ERROR_COLUMN]: describeRejection(file, line, issues) };
  }
  return { [ERROR_COLUMN]: describeRejection(file, line, [...issues, { field: '', reason: `the line was: ${source.text}` }]) };
}
