// The rejected-rows report: a CSV file with one line per problem (file, line, field, reason),
// created only when something is rejected, so a clean run leaves no file behind.
import { type WriteStream, createWriteStream, mkdirSync } from 'node:fs';
import { once } from 'node:events';
import { dirname } from 'node:path';

/** One problem with one input row. */
export interface RowIssue {
  field: string;
  reason: string;
}

export interface RejectReport {
  readonly path: string;
  /** Rows rejected so far. */
  readonly rows: number;
  reject(file: string, line: number, issues: readonly RowIssue[]): void;
  close(): Promise<void>;
}

const cell = (value: string | number) => {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/**
 * @example
 * const report = createRejectReport('./areas_id.rejected.csv');
 * report.reject('areas_id.csv', 12, [{ field: 'postcode', reason: 'must be five digits' }]);
 * await report.close();
 */
export function createRejectReport(path: string): RejectReport {
  let stream: WriteStream | undefined;
  let rows = 0;
  return {
    path,
    get rows() {
      return rows;
    },
    reject(file, line, issues) {
      if (!stream) {
        mkdirSync(dirname(path), { recursive: true });
        stream = createWriteStream(path);
        stream.write('file,line,field,reason\n');
      }
      rows += 1;
      for (const issue of issues) stream.write(`${[file, line, issue.field, issue.reason].map(cell).join(',')}\n`);
    },
    async close() {
      if (!stream) return;
      stream.end();
      await once(stream, 'finish');
    },
  };
}
