import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CsvParser } from '../csv/csv-records.js';
import { createRejectReport, describeRejection, reportPathCandidate } from './reject-report.js';

const dir = mkdtempSync(join(tmpdir(), 'pits-report-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const postcode = [{ field: 'postcode', reason: 'must be five digits' }];

describe('createRejectReport', () => {
  it('gives CSV rows back under the input header, with its delimiter, plus an error column naming the problem and line', async () => {
    const path = join(dir, 'areas.rejected.csv');
    const report = createRejectReport(path);
    const columns = ['State', 'postcode', 'name'];
    report.reject('areas.csv', 7, { kind: 'csv', columns, delimiter: ';', fields: ['Aceh', '2377', 'Kopi; "Gayo"'] }, postcode);
    report.reject('areas.csv', 9, { kind: 'csv', columns, delimiter: ';', fields: ['Aceh'] }, [{ field: '', reason: 'has 1 fields, expected 3' }]);
    await report.close();
    expect(report.rows).toBe(2);
    const text = readFileSync(path, 'utf8');
    expect(text).toBe(
      'State;postcode;name;error\n' +
        'Aceh;2377;"Kopi; ""Gayo""";postcode: must be five digits (areas.csv line 7)\n' +
        'Aceh;;;has 1 fields, expected 3 (areas.csv line 9)\n',
    );
    // The report reads back with the same parser as any input: same columns, same values.
    const records = new CsvParser(';').push(text);
    expect(records[1]!.fields).toEqual(['Aceh', '2377', 'Kopi; "Gayo"', 'postcode: must be five digits (areas.csv line 7)']);
  });

  it('replaces the error column of a report that is imported again, and keeps cells beyond the header in the error text', async () => {
    const path = join(dir, 'again.rejected.csv');
    const report = createRejectReport(path);
    report.reject('again.csv', 2, { kind: 'csv', columns: ['sku', 'ERROR', 'name'], delimiter: ',', fields: ['A', 'old problem', 'Kopi', 'x', 'y,z'] }, [
      { field: '', reason: 'has 5 fields, expected 3' },
    ]);
    await report.close();
    expect(readFileSync(path, 'utf8')).toBe('sku,name,error\nA,Kopi,"has 5 fields, expected 3; cells beyond the header: ""x"", ""y,z"" (again.csv line 2)"\n');
  });

  it('writes JSON lines as the original object plus an error key; a line that was no object stays in the error text', async () => {
    const path = join(dir, 'catalogue.rejected.jsonl');
    const report = createRejectReport(path);
    report.reject('catalogue.jsonl', 3, { kind: 'json', value: { sku: 'A', error: 'old', weight: 1.5 }, text: '' }, [{ field: 'name', reason: 'is required' }]);
    report.reject('catalogue.jsonl', 4, { kind: 'json', value: undefined, text: 'not json' }, [{ field: '', reason: 'is not valid JSON' }]);
    await report.close();
    expect(readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      { sku: 'A', weight: 1.5, error: 'name: is required (catalogue.jsonl line 3)' },
      { error: 'is not valid JSON; the line was: not json (catalogue.jsonl line 4)' },
    ]);
  });

  it('never replaces a file that is there: the report takes the next free numbered name', async () => {
    const path = join(dir, 'edited.rejected.jsonl');
    writeFileSync(path, '{"sku":"A","error":"fixed by hand"}\n');
    writeFileSync(join(dir, 'edited.rejected.2.jsonl'), 'also kept\n');
    const report = createRejectReport(path);
    report.reject('edited.jsonl', 2, { kind: 'json', value: { sku: 'B' }, text: '{"sku":"B"}' }, postcode);
    await report.close();
    expect(report.path).toBe(join(dir, 'edited.rejected.3.jsonl'));
    expect(readFileSync(path, 'utf8')).toBe('{"sku":"A","error":"fixed by hand"}\n');
    expect(readFileSync(join(dir, 'edited.rejected.2.jsonl'), 'utf8')).toBe('also kept\n');
    expect(readFileSync(report.path, 'utf8')).toContain('"sku":"B"');
    expect(reportPathCandidate('/x/areas_id.rejected.csv', 0)).toBe('/x/areas_id.rejected.csv');
    expect(reportPathCandidate('/x/areas_id.rejected.csv', 1)).toBe('/x/areas_id.rejected.2.csv');
    expect(reportPathCandidate('/x/report', 2)).toBe('/x/report.3');
  });

  it('creates no file when nothing is rejected', async () => {
    const path = join(dir, 'clean.rejected.csv');
    const report = createRejectReport(path);
    await report.close();
    expect(existsSync(path)).toBe(false);
  });

  it('throws a clear error when the report cannot be written', () => {
    // A regular file where the report's folder should be: fails for every user, root included.
    const blocker = join(dir, 'not-a-folder');
    writeFileSync(blocker, '');
    const report = createRejectReport(join(blocker, 'x.rejected.csv'));
    expect(() => report.reject('x.csv', 2, { kind: 'csv', columns: ['a'], delimiter: ',', fields: ['1'] }, postcode)).toThrow(
      /^cannot write the rejected-rows report .*x\.rejected\.csv: (EEXIST|ENOTDIR)/,
    );
  });
});

describe('describeRejection', () => {
  it('lists each problem, then the file and line', () => {
    expect(describeRejection('a.csv', 5, [...postcode, { field: '', reason: 'has 2 fields, expected 3' }])).toBe('postcode: must be five digits; has 2 fields, expected 3 (a.csv line 5)');
  });
});
