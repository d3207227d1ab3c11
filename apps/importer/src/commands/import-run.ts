// What every import command shares: opening the input, feeding checked rows to the database in
// batches (each its own transaction), rejected rows to the report, progress to the screen, and
// the counts that make the summary.
import { createReadStream } from 'node:fs';
import { access, constants, stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import type { Database } from '@pits/persistence';
import { type HeaderSpec, matchHeader, sniffDelimiter, wrongHeaderMessage } from '../csv/csv-header.js';
import { type CsvDelimiter, type CsvRecord, csvRecords, peekFirstLine } from '../csv/csv-records.js';
import type { ProgressSink } from '../progress/progress-reporter.js';
import type { RejectReport, RowIssue, RowSource } from '../report/reject-report.js';
import type { Checked } from '../validation/area-row.js';

/** A problem that stops the import (exit code 2): unreadable input, wrong header, unknown tenant, database down. */
export class FatalImportError extends Error {
  override readonly name = 'FatalImportError';
}

export interface ImportContext {
  database: Database;
  /** Rows per transaction. */
  batchSize: number;
  dryRun: boolean;
  report: RejectReport;
  progress: ProgressSink;
  now?: () => Date;
}

export interface ImportSummary {
  command: string;
  read: number;
  inserted: number;
  updated: number;
  unchanged: number;
  rejected: number;
  seconds: number;
  dryRun: boolean;
}

export interface BatchCounts {
  inserted: number;
  updated: number;
  unchanged: number;
  /**
   * Rows the database refused and left as they were (an unknown location code, a product whose
   * lot settings may not change now...): `index` in the batch written, and why. They are reported
   * and counted like rows refused by the checks.
   */
  refused?: readonly { index: number; issues: readonly RowIssue[] }[];
}

/** One input row after its checks, with where it came from and what it said (for the report). */
export interface CheckedRow<T> {
  file: string;
  line: number;
  source: RowSource;
  checked: Checked<T>;
}

export interface TextInput {
  chunks: AsyncIterable<string>;
  /** Share of the file read so far (0..1). */
  fraction(): number;
}

/**
 * Opens a UTF-8 file for streaming, decompressing it on the way when its name ends in `.gz`; an
 * unreadable path or a damaged archive is fatal. Progress counts the bytes read from disk.
 */
export async function openTextInput(path: string): Promise<TextInput> {
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a file');
    await access(path, constants.R_OK);
    size = info.size;
  } catch (error) {
    throw new FatalImportError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
  const file = createReadStream(path, { highWaterMark: 256 * 1024 });
  const text = (path.endsWith('.gz') ? file.pipe(createGunzip()) : file).setEncoding('utf8');
  // A damaged archive fails in the gunzip stream; the file stream's own errors arrive there too.
  file.on('error', (error) => text.destroy(error));
  return {
    chunks: (async function* () {
      try {
        for await (const chunk of text) yield chunk as string;
      } catch (error) {
        throw new FatalImportError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    })(),
    fraction: () => (size === 0 ? 1 : Math.min(1, file.bytesRead / size)),
  };
}

/**
 * Writes accepted rows in batches of `context.batchSize` through `write` (one transaction each),
 * reports refused ones (by the checks as they are read, by the database when their batch is
 * written), and adds up the counts.
 */
export async function runBatches<T>(
  command: string,
  context: ImportContext,
  rows: AsyncIterable<CheckedRow<T>>,
  write: (batch: T[]) => Promise<BatchCounts>,
  fraction: () => number = () => 0,
): Promise<ImportSummary> {
  const started = performance.now();
  const summary: ImportSummary = { command, read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, seconds: 0, dryRun: context.dryRun };
  let batch: T[] = [];
  /** Where each row of `batch` came from, to report a row the database refuses. */
  let origins: Omit<CheckedRow<T>, 'checked'>[] = [];
  const flush = async () => {
    if (batch.length === 0) return;
    const counts = await write(batch);
    summary.inserted += counts.inserted;
    summary.updated += counts.updated;
    summary.unchanged += counts.unchanged;
    for (const { index, issues } of counts.refused ?? []) {
      const { file, line, source } = origins[index]!;
      summary.rejected += 1;
      context.report.reject(file, line, source, issues);
    }
    batch = [];
    origins = [];
  };
  for await (const { file, line, source, checked } of rows) {
    summary.read += 1;
    if (checked.ok) {
      batch.push(checked.value);
      origins.push({ file, line, source });
      if (batch.length >= context.batchSize) await flush();
    } else {
      summary.rejected += 1;
      context.report.reject(file, line, source, checked.issues);
    }
    if ((summary.read & 1023) === 0) context.progress.update(summary.read, fraction());
  }
  await flush();
  context.progress.done(summary.read);
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** Fields of a record by the header's names; a position without a name (the ignored `error` column) is left out. */
export function byHeader(header: ReadonlyArray<string | undefined>, fields: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < header.length; i += 1) {
    const name = header[i];
    if (name !== undefined) out[name] = fields[i] ?? '';
  }
  return out;
}

/** A CSV input whose header was read and matched: its records come next. */
export interface CsvTable {
  /** The header as written (the report repeats it). */
  header: string[];
  /** The known column at each position of the header; undefined for the ignored `error` column. */
  columns: ReadonlyArray<string | undefined>;
  delimiter: CsvDelimiter;
  /** The records after the header. */
  records: AsyncGenerator<CsvRecord>;
  /** Share of the file read so far (0..1). */
  fraction(): number;
}

/**
 * Opens a CSV file, takes its delimiter from the header line and matches the header against
 * `spec`; a header that does not fit is fatal, with a message that says what was expected.
 *
 * @example
 * const table = await openCsvTable('catalogue.csv', { columns: PRODUCT_COLUMNS, required: ['sku', 'name'] });
 */
export async function openCsvTable(path: string, spec: HeaderSpec): Promise<CsvTable> {
  const input = await openTextInput(path);
  const { firstLine, chunks } = await peekFirstLine(input.chunks);
  const delimiter = sniffDelimiter(firstLine, spec.columns);
  const records = csvRecords(chunks, delimiter);
  const first = await records.next();
  if (first.done) throw new FatalImportError(wrongHeaderMessage(path, ['the file is empty'], delimiter, firstLine, spec));
  const header = first.value.fields;
  const match = matchHeader(header, spec);
  if (!match.ok) throw new FatalImportError(wrongHeaderMessage(path, match.problems, delimiter, firstLine, spec));
  return { header, columns: match.columns, delimiter, records, fraction: input.fraction };
}

/**
 * The records of `table` checked by `check`; a malformed record, or one whose number of fields
 * differs from the header's, is refused as a whole.
 */
export async function* checkedCsvRows<T>(file: string, table: CsvTable, check: (line: number, fields: readonly string[]) => Checked<T>): AsyncGenerator<CheckedRow<T>> {
  const width = table.header.length;
  for await (const { line, fields, error } of table.records) {
    const source: RowSource = { kind: 'csv', columns: table.header, delimiter: table.delimiter, fields };
    if (error) yield { file, line, source, checked: { ok: false, issues: [{ field: '', reason: error }] } };
    else if (fields.length !== width) yield { file, line, source, checked: { ok: false, issues: [{ field: '', reason: `has ${fields.length} fields, expected ${width}` }] } };
    else yield { file, line, source, checked: check(line, fields) };
  }
}
