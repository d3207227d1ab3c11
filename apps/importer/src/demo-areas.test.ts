// The demo's areas: the file shipped with the importer is the real area file (every village, with
// postcode and coordinates), npm start loads it into an empty database once, and a gzipped area
// file goes through the same import as a plain one.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { findArea, searchAreas } from '@pits/persistence';
import { type TestDatabase, embeddedTestDialect, openTestDatabase, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultReportPath } from './cli.js';
import { CANONICAL_HEADER, importAreasFile } from './commands/import-areas.js';
import { FatalImportError } from './commands/import-run.js';
import { BUNDLED_AREAS_FILE, loadDemoAreas } from './demo-areas.js';
import { testContext } from './testing/importer-fixtures.js';

const dialects = await testDialects();
const dir = mkdtempSync(join(tmpdir(), 'pits-demo-areas-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** The digest of areas_id.csv as published (83,762 villages): a changed or cut asset fails here. */
const AREAS_CSV_SHA256 = '1259de9d4562bfea8ecd0c3861b5c62afd6c10f35876ec7a14560e15ff9a9da3';

describe('the shipped area file', () => {
  it('is the full areas_id.csv, compressed', () => {
    const text = gunzipSync(readFileSync(BUNDLED_AREAS_FILE));
    expect(sha256(text)).toBe(AREAS_CSV_SHA256);
    expect(text.toString('utf8').split('\n')[0]).toBe(CANONICAL_HEADER);
  });
});

describe('the demo areas by default', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(embeddedTestDialect());
  });
  afterAll(() => t.cleanup());

  it('are every village of the shipped file, with postcodes and coordinates, loaded once', async () => {
    const loaded = await loadDemoAreas(t.database, { reportPath: join(dir, 'bundled.rejected.csv') });
    expect(loaded).toMatchObject({ read: 83_762, inserted: 83_762, rejected: 0 });
    expect(await loadDemoAreas(t.database)).toBeUndefined();
    expect(await findArea(t.database, '31.73.01.1001')).toMatchObject({
      subdistrict: 'Cengkareng Barat',
      postcode: '11730',
      latitude: '-6.13867708',
      longitude: '106.72379100',
    });
    expect((await searchAreas(t.database, { searchBy: 'subdistrict', searchValue: '11730' }, { page: 1, perPage: 10 })).total).toBeGreaterThanOrEqual(1);
  }, 120_000);
});

describe.each(dialects)('[%s] a gzipped area file', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('imports like the plain file; a damaged archive stops the import', async () => {
    const rows = [
      'Indonesia,ID,Daerah Khusus Ibukota Jakarta,31,Kota Administrasi Jakarta Barat,31.73,Cengkareng,31.73.01,Cengkareng Barat,31.73.01.1001,11730,-6.13867708,106.72379100',
      'Indonesia,ID,Jawa Timur,35,Kota Surabaya,35.78,Rungkut,35.78.08,Kali Rungkut,35.78.08.1001,60293,-7.31830000,112.77450000',
    ];
    const path = join(dir, `${dialect}.csv.gz`);
    writeFileSync(path, gzipSync(`${CANONICAL_HEADER}\n${rows.join('\n')}\n`));
    const context = testContext(t.database, join(dir, `${dialect}.rejected.csv`));
    expect(await importAreasFile(context, path)).toMatchObject({ read: 2, inserted: 2, rejected: 0 });
    expect(await findArea(t.database, '35.78.08.1001')).toMatchObject({ postcode: '60293', latitude: '-7.31830000' });

    const damaged = join(dir, `${dialect}-damaged.csv.gz`);
    writeFileSync(damaged, gzipSync(`${CANONICAL_HEADER}\n${rows.join('\n')}\n`).subarray(0, 40));
    await expect(importAreasFile(context, damaged)).rejects.toBeInstanceOf(FatalImportError);
    await context.report.close();
    // Its rejected rows go to a plain CSV named after the file inside the archive.
    expect(defaultReportPath('/x/areas_id.csv.gz')).toBe('/x/areas_id.rejected.csv');
  });
});
