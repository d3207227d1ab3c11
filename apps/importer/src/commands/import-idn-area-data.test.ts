import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findArea, searchAreas, upsertAreaBatch } from '@pits/persistence';
import { type TestDatabase, embeddedTestDialect, openTestDatabase, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDemoAreas } from '../demo-areas.js';
import { testContext } from '../testing/importer-fixtures.js';
import { idnAreaDataDirectory, importIdnAreaData } from './import-idn-area-data.js';

const dialects = await testDialects();
const dir = mkdtempSync(join(tmpdir(), 'pits-idn-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe.each(dialects)('[%s] the idn-area-data layout', (dialect) => {
  let t: TestDatabase;
  let data: string;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    data = join(dir, `layout-${dialect}`);
    mkdirSync(data, { recursive: true });
    writeFileSync(join(data, 'provinces.csv'), 'code,name\n11,ACEH\n31,DKI JAKARTA\n');
    writeFileSync(join(data, 'regencies.csv'), 'code,province_code,name\n11.01,11,KABUPATEN ACEH SELATAN\n31.74,31,KOTA ADM. JAKARTA SELATAN\n32.01,32,KABUPATEN BOGOR\n');
    writeFileSync(join(data, 'districts.csv'), 'code,regency_code,name\n11.01.01,11.01,Bakongan\n31.74.05,31.74,Kebayoran Baru\n');
    writeFileSync(join(data, 'villages.csv'), 'code,district_code,name\n11.01.01.2001,11.01.01,Keude Bakongan\n31.74.05.1001,31.74.05,Senayan\n31.74.05.1002,31.74.06,Gelora\n');
  });
  afterAll(() => t.cleanup());

  it('joins the four files by code, rejects what does not nest, and keeps postcodes and coordinates it does not have', async () => {
    await upsertAreaBatch(t.database, [{
      country: 'Indonesia', country_code: 'ID', state: 'DKI Jakarta', state_code: '31', city: 'Kota Jakarta Selatan', city_code: '31.74',
      district: 'Kebayoran Baru', district_code: '31.74.05', subdistrict: 'Senayan', subdistrict_code: '31.74.05.1001',
      postcode: '10270', latitude: '-6.22000000', longitude: '106.80000000',
    }], { now: new Date() });
    const reportPath = join(dir, `${dialect}.rejected.csv`);
    const context = testContext(t.database, reportPath);
    const summary = await importIdnAreaData(context, data);
    await context.report.close();
    expect(summary).toMatchObject({ read: 3, inserted: 1, updated: 1, unchanged: 0, rejected: 2 });
    expect(readFileSync(reportPath, 'utf8').trim().split('\n')).toEqual([
      'code,parent_code,name,error',
      '32.01,32,KABUPATEN BOGOR,province_code: 32 is not in the parent file (regencies.csv line 4)',
      '31.74.05.1002,31.74.06,Gelora,district_code: 31.74.06 is not in the parent file (villages.csv line 4)',
    ]);
    expect(await findArea(t.database, '31.74.05.1001')).toMatchObject({ state: 'DKI JAKARTA', city: 'KOTA ADM. JAKARTA SELATAN', postcode: '10270', latitude: '-6.22000000' });
    expect(await findArea(t.database, '11.01.01.2001')).toMatchObject({ state: 'ACEH', subdistrict: 'Keude Bakongan', postcode: '', latitude: '0.00000000' });
  });
});

describe('the demo areas', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(embeddedTestDialect());
  });
  afterAll(() => t.cleanup());

  it('can load the installed idn-area-data package into an empty database, once', async () => {
    const villages = readFileSync(join(idnAreaDataDirectory(), 'villages.csv'), 'utf8').trim().split('\n').length - 1;
    const loaded = await loadDemoAreas(t.database, { reportPath: join(dir, 'demo.rejected.csv'), source: 'idn-area-data' });
    expect(loaded).toMatchObject({ read: villages, rejected: 0, inserted: villages });
    expect(await loadDemoAreas(t.database, { source: 'idn-area-data' })).toBeUndefined();
    expect((await searchAreas(t.database, { searchBy: 'province', searchValue: 'jawa barat' }, { page: 1, perPage: 1 })).total).toBeGreaterThan(5000);
  }, 120_000);
});
