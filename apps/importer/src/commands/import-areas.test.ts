// The whole of the shipped areas_id.csv.gz through the importer, on every dialect: what lands in
// the database is checked against figures this test computes from the file itself.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AreaImportRow, findArea, searchAreas } from '@pits/persistence';
import { AREAS_FILE, type TestDatabase, childDatabaseUrl, openTestDatabase, readAreaRecords, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CsvParser } from '../csv/csv-records.js';
import { areaDigest, spawnImporter, runImporter, storedAreaDigest, testContext } from '../testing/importer-fixtures.js';
import { importAreasFile } from './import-areas.js';
import type { ImportSummary } from './import-run.js';

const dialects = await testDialects();
const dir = mkdtempSync(join(tmpdir(), 'pits-import-areas-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file: AreaImportRow[] = readAreaRecords();
const countBy = <K extends string>(key: (r: AreaImportRow) => K) => {
  const out = new Map<K, number>();
  for (const r of file) out.set(key(r), (out.get(key(r)) ?? 0) + 1);
  return out;
};

describe.each(dialects)('[%s] importing areas_id.csv', (dialect) => {
  let t: TestDatabase;
  let first: ImportSummary;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    const context = testContext(t.database, join(dir, `${dialect}-full.rejected.csv`));
    first = await importAreasFile(context, AREAS_FILE);
    await context.report.close();
  }, 180_000);
  afterAll(() => t.cleanup());

  it('imports every row once', async () => {
    expect(file).toHaveLength(83_762);
    expect(first).toMatchObject({ read: file.length, inserted: file.length, updated: 0, unchanged: 0, rejected: 0 });
    const { n } = await t.database.db.selectFrom('areas').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(n)).toBe(file.length);
  });

  it('holds as many villages per province as the file', async () => {
    const rows = await t.database.db.selectFrom('areas').select(['state_code', ({ fn }) => fn.countAll<number>().as('n')]).groupBy('state_code').execute();
    expect(new Map(rows.map((r) => [r.state_code, Number(r.n)]))).toEqual(countBy((r) => r.state_code));
    expect(rows).toHaveLength(38);
  });

  it('finds the villages of a postcode, and searches a province case-insensitively', async () => {
    const [postcode, villages] = [...countBy((r) => r.postcode)].sort((a, b) => b[1] - a[1])[0]!;
    const byPostcode = await searchAreas(t.database, { searchBy: 'subdistrict', searchValue: postcode }, { page: 1, perPage: 100 });
    const expected = file.filter((r) => r.postcode === postcode).map((r) => r.subdistrict_code).sort();
    expect(byPostcode.total).toBe(villages);
    expect(byPostcode.rows.map((r) => r.subdistrictCode)).toEqual(expected.slice(0, 100));

    const province = await searchAreas(t.database, { searchBy: 'province', searchValue: 'jAwA tImUr' }, { page: 2, perPage: 50 });
    const inJatim = file.filter((r) => r.state.toLowerCase().includes('jawa timur')).map((r) => r.subdistrict_code).sort();
    expect(inJatim.length).toBeGreaterThan(8000);
    expect(province.total).toBe(inJatim.length);
    expect(province.rows.map((r) => r.subdistrictCode)).toEqual(inJatim.slice(50, 100));
  });

  it('shows the detail of a code exactly as the file has it', async () => {
    const record = file.find((r) => r.subdistrict === 'Lambang Sari I, II, III')!;
    expect(await findArea(t.database, record.subdistrict_code)).toMatchObject({
      country: record.country,
      countryCode: record.country_code,
      state: record.state,
      stateCode: record.state_code,
      city: record.city,
      cityCode: record.city_code,
      district: record.district,
      districtCode: record.district_code,
      subdistrict: record.subdistrict,
      subdistrictCode: record.subdistrict_code,
      postcode: record.postcode,
      latitude: record.latitude,
      longitude: record.longitude,
    });
  });

  it('reports every row unchanged on a second import, and changes nothing', async () => {
    const before = await storedAreaDigest(t.database);
    const context = testContext(t.database, join(dir, `${dialect}-again.rejected.csv`));
    const again = await importAreasFile(context, AREAS_FILE);
    expect(again).toMatchObject({ read: file.length, inserted: 0, updated: 0, unchanged: file.length, rejected: 0 });
    expect(await storedAreaDigest(t.database)).toBe(before);
    expect(before).toBe(areaDigest(file));
  }, 120_000);
});

/** A file of the first `rows` records with 20 rows broken in 20 different ways, and the lines they are on. */
function brokenFile(rows: number): { text: string; broken: Map<number, string>; good: AreaImportRow[] } {
  const line = (r: AreaImportRow) => Object.values(r).map((v) => (/[",]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v)).join(',');
  const breakers: [string, (r: AreaImportRow) => string][] = [
    ['subdistrict_code', (r) => line({ ...r, subdistrict_code: r.subdistrict_code.replace(/\.(\d{4})$/, '.$1X') })],
    ['district_code', (r) => line({ ...r, district_code: '99.99.99' })],
    ['city_code', (r) => line({ ...r, city_code: '11.1' })],
    ['state_code', (r) => line({ ...r, state_code: 'A1' })],
    ['postcode', (r) => line({ ...r, postcode: '1234' })],
    ['postcode', (r) => line({ ...r, postcode: '12a45' })],
    ['latitude', (r) => line({ ...r, latitude: '91.00000000' })],
    ['longitude', (r) => line({ ...r, longitude: '-181.5' })],
    ['latitude', (r) => line({ ...r, latitude: 'north' })],
    ['longitude', (r) => line({ ...r, longitude: '106.123456789' })],
    ['subdistrict', (r) => line({ ...r, subdistrict: '' })],
    ['state', (r) => line({ ...r, state: '   ' })],
    ['country', (r) => line({ ...r, country: '' })],
    ['country_code', (r) => line({ ...r, country_code: 'idn' })],
    ['', (r) => line(r).split(',').slice(0, 12).join(',')],
    ['', (r) => `${line(r)},extra`],
    ['city', (r) => line({ ...r, city: 'Another Name For The Same City' })],
    ['subdistrict_code', (r) => line({ ...r, subdistrict_code: file[0]!.subdistrict_code })],
    ['district', (r) => line({ ...r, district: 'Renamed District' })],
    ['subdistrict_code', (r) => line({ ...r, subdistrict_code: `11.01.99.${r.subdistrict_code.slice(-4)}` })],
  ];
  const out = [Object.keys(file[0]!).join(',')];
  const broken = new Map<number, string>();
  const good: AreaImportRow[] = [];
  for (let i = 0; i < rows; i += 1) {
    const record = file[i]!;
    const breaker = i > 0 && i % 25 === 0 ? breakers[i / 25 - 1] : undefined;
    // A renamed region must have been named on an earlier row for the rename to be the odd one out.
    if (breaker && ['city', 'district'].includes(breaker[0])) expect(file[i - 1]![`${breaker[0] as 'city' | 'district'}_code`]).toBe(record[`${breaker[0] as 'city' | 'district'}_code`]);
    if (breaker) {
      out.push(breaker[1](record));
      broken.set(out.length, breaker[0]);
    } else {
      out.push(line(record));
      good.push(record);
    }
  }
  return { text: `${out.join('\r\n')}\r\n`, broken, good };
}

describe.each(dialects)('[%s] a file with broken rows', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('rejects exactly the 20 broken rows, with their lines, fields and reasons, and imports the rest', async () => {
    const { text, broken, good } = brokenFile(600);
    expect(broken.size).toBe(20);
    const path = join(dir, `${dialect}-broken.csv`);
    writeFileSync(path, text);
    const reportPath = join(dir, `${dialect}-broken.rejected.csv`);
    const context = testContext(t.database, reportPath, { batchSize: 64 });
    const summary = await importAreasFile(context, path);
    await context.report.close();
    expect(summary).toMatchObject({ read: 600, inserted: 580, updated: 0, unchanged: 0, rejected: 20 });

    // The report is the input's header plus `error`, and each broken row as the file had it.
    const [header, ...reported] = new CsvParser().push(readFileSync(reportPath, 'utf8'));
    expect(header!.fields).toEqual([...Object.keys(file[0]!), 'error']);
    const lines = text.split('\r\n');
    const fieldsByLine = new Map<number, string[]>();
    for (const { fields } of reported) {
      const error = fields.at(-1)!;
      const [, problems, name, line] = /^(.*) \((.+) line (\d+)\)$/.exec(error)!;
      expect(name).toBe(`${dialect}-broken.csv`);
      fieldsByLine.set(Number(line), problems!.split('; ').map((p) => /^([a-z_]+): /.exec(p)?.[1] ?? ''));
      // Its values are the original line's (cut to the header's width when the line had more).
      expect(fields.slice(0, -1)).toEqual(new CsvParser().push(`${lines[Number(line) - 1]}\n`)[0]!.fields.slice(0, 13).concat(Array(13).fill('')).slice(0, 13));
    }
    expect([...fieldsByLine.keys()]).toEqual([...broken.keys()]);
    for (const [line, field] of broken) expect(fieldsByLine.get(line)).toContain(field);
    expect(await storedAreaDigest(t.database)).toBe(areaDigest(good));
  });
});

describe.each(dialects)('[%s] an import killed midway', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { file: true });
  });
  afterAll(() => t.cleanup());

  const count = async () => Number((await t.database.db.selectFrom('areas').select(({ fn }) => fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);

  it('leaves whole batches behind, and a second run ends with exactly the file', async () => {
    const env = { DATABASE_URL: await childDatabaseUrl(t.database) };
    const args = ['areas', AREAS_FILE, '--batch-size', '1000', '--report', join(dir, `${dialect}-killed.rejected.csv`)];
    const child = spawnImporter(args, env);
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    let seen = 0;
    const deadline = Date.now() + 90_000;
    while (seen < 5000 && Date.now() < deadline && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 20));
      seen = await count();
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    const left = await count();
    expect(left).toBeGreaterThanOrEqual(5000);
    expect(left).toBeLessThan(file.length);
    expect(left % 1000).toBe(0);

    const rerun = await runImporter(args, env);
    expect(rerun.code).toBe(0);
    expect(rerun.stdout).toContain(`${file.length} rows read: ${file.length - left} inserted, 0 updated, ${left} unchanged, 0 rejected`);
    expect(await count()).toBe(file.length);
    expect(await storedAreaDigest(t.database)).toBe(areaDigest(file));
  }, 240_000);
});
