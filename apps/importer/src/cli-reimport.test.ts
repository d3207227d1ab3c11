// The data team's loop, through the command line on every dialect: import a file with bad rows
// (exit 1), fix the bad values in the rejected-rows report, import the report itself (exit 0),
// and every row is in the database.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AREA_FIELDS, type AreaImportRow } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, childDatabaseUrl, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, EXIT_OK, EXIT_REJECTED, runCli } from './cli.js';
import { CsvParser } from './csv/csv-records.js';
import { areaDigest, storedAreaDigest } from './testing/importer-fixtures.js';

const dialects = await testDialects();
const dir = mkdtempSync(join(tmpdir(), 'pits-reimport-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Forty villages of one district, all valid. */
const villages: AreaImportRow[] = Array.from({ length: 40 }, (_, i) => ({
  country: 'Indonesia', country_code: 'ID', state: 'Aceh', state_code: '11', city: 'Kabupaten Aceh Selatan', city_code: '11.01',
  district: 'Bakongan', district_code: '11.01.01', subdistrict: `Desa ${i + 1}`, subdistrict_code: `11.01.01.${String(2001 + i)}`,
  postcode: '23773', latitude: '2.93109480', longitude: '97.48458404',
}));

/** The names of the fields an `error` cell blames, '' for the row as a whole. */
const blamed = (error: string) => error.replace(/ \([^()]+ line \d+\)$/, '').split('; ').map((p) => /^([a-z_]+): /.exec(p)?.[1] ?? '');

/** A delimited line, quoting what needs it. */
const line = (cells: readonly string[], d: string) => cells.map((c) => (c.includes(d) || c.includes('"') ? `"${c.replace(/"/g, '""')}"` : c)).join(d);

describe.each(dialects)('[%s] fixing the rejected-rows report and importing it again', (dialect) => {
  let t: TestDatabase;
  let world: TenantWorld;
  let cli: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { file: true });
    world = await seedTenantWorld(t.database, { products: 0 });
    const env = { DATABASE_URL: await childDatabaseUrl(t.database) };
    cli = async (args) => {
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIo = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env, cwd: dir };
      const code = await runCli(args, io);
      return { code, stdout: out.join(''), stderr: err.join('') };
    };
  });
  afterAll(() => t.cleanup());

  it('areas from a semicolon-separated file with a capitalised header: every row ends up imported', async () => {
    const columns = AREA_FIELDS.map((f) => f.toUpperCase());
    const breakers: Record<number, (cells: string[]) => string[]> = {
      3: (c) => c.map((v, i) => (AREA_FIELDS[i] === 'postcode' ? '2377' : v)),
      9: (c) => c.map((v, i) => (AREA_FIELDS[i] === 'latitude' ? '91.5' : AREA_FIELDS[i] === 'state_code' ? 'A1' : v)),
      17: (c) => c.map((v, i) => (AREA_FIELDS[i] === 'subdistrict' ? '' : v)),
      25: (c) => c.slice(0, -1),
      33: (c) => [...c, 'a stray cell'],
    };
    const rows = villages.map((v, i) => (breakers[i] ?? ((c: string[]) => c))(AREA_FIELDS.map((f) => v[f])));
    const path = join(dir, `${dialect}-areas.csv`);
    writeFileSync(path, `${[columns, ...rows].map((r) => line(r, ';')).join('\r\n')}\r\n`);

    const first = await cli(['areas', path]);
    expect(first).toMatchObject({ code: EXIT_REJECTED, stdout: expect.stringContaining('40 rows read: 35 inserted, 0 updated, 0 unchanged, 5 rejected') });
    const reportPath = join(dir, `${dialect}-areas.rejected.csv`);
    expect(first.stdout).toContain(`rejected rows: ${reportPath}\n`);

    // Fix what each error blames (the whole row when the row as a whole was at fault), keep the error column.
    const [header, ...rejected] = new CsvParser(';').push(readFileSync(reportPath, 'utf8'));
    expect(header!.fields).toEqual([...columns, 'error']);
    expect(rejected.map((r) => r.fields.at(-1)!.match(/line (\d+)\)$/)![1])).toEqual(['5', '11', '19', '27', '35']);
    const fixed = rejected.map(({ fields }) => {
      const good = villages.find((v) => v.subdistrict_code === fields[AREA_FIELDS.indexOf('subdistrict_code')])!;
      const fix = blamed(fields.at(-1)!);
      return fields.map((cell, i) => (i < AREA_FIELDS.length && (fix.includes('') || fix.includes(AREA_FIELDS[i]!)) ? good[AREA_FIELDS[i]!] : cell));
    });
    writeFileSync(reportPath, `${[header!.fields, ...fixed].map((r) => line(r, ';')).join('\n')}\n`);

    const again = await cli(['areas', reportPath]);
    expect(again).toMatchObject({ code: EXIT_OK, stdout: expect.stringMatching(/^areas: 5 rows read: 5 inserted, 0 updated, 0 unchanged, 0 rejected in/) });
    expect(existsSync(join(dir, `${dialect}-areas.rejected.rejected.csv`))).toBe(false);
    expect(await storedAreaDigest(t.database)).toBe(areaDigest(villages));
  });

  it('products from CSV: every row ends up imported', async () => {
    const path = join(dir, `${dialect}-products.csv`);
    writeFileSync(path, ['sku,name,published_price,category_id,cold_storage', 'P-1,Kopi,10.00,1,false', 'P-2,Teh,1.005,1,false', 'P-3,Gula,2.50,x,false', 'P-4,Es,1.00,2,sometimes', 'P-5,Susu,3.00,2,true'].join('\n'));
    expect(await cli(['products', '--tenant', world.tenant.id, path])).toMatchObject({ code: EXIT_REJECTED, stdout: expect.stringContaining('5 rows read: 2 inserted, 0 updated, 0 unchanged, 3 rejected') });
    const reportPath = join(dir, `${dialect}-products.rejected.csv`);
    const fixes: Record<string, string> = { published_price: '1.01', category_id: '3', cold_storage: 'true' };
    const [header, ...rejected] = new CsvParser().push(readFileSync(reportPath, 'utf8'));
    const fixed = rejected.map(({ fields }) => fields.map((cell, i) => (blamed(fields.at(-1)!).includes(header!.fields[i]!) ? fixes[header!.fields[i]!]! : cell)));
    writeFileSync(reportPath, `${[header!.fields, ...fixed].map((r) => line(r, ',')).join('\n')}\n`);

    expect(await cli(['products', '--tenant', world.tenant.id, reportPath])).toMatchObject({ code: EXIT_OK, stdout: expect.stringMatching(/^products: 3 rows read: 3 inserted, 0 updated, 0 unchanged, 0 rejected/) });
    const stored = await t.database.db.selectFrom('products').select(['sku', 'published_price', 'category_id', 'cold_storage']).where('tenant_id', '=', world.tenant.id).where('sku', 'like', 'P-%').orderBy('sku').execute();
    expect(stored.map((p) => [p.sku, Number(p.published_price), p.category_id, Boolean(p.cold_storage)])).toEqual([
      ['P-1', 10, 1, false], ['P-2', 1.01, 1, false], ['P-3', 2.5, 3, false], ['P-4', 1, 2, true], ['P-5', 3, 2, true],
    ]);
  });

  it('products from JSON lines: the report is JSON lines, and every row ends up imported', async () => {
    const path = join(dir, `${dialect}-products.jsonl`);
    writeFileSync(path, ['{"sku":"J-1","name":"Kopi","weight":1.5}', '{"sku":"J-2","name":"Teh","weight":"heavy"}', '{"sku":"J-3","brand":"Nusantara"}'].join('\n'));
    expect(await cli(['products', '--tenant', world.tenant.id, path])).toMatchObject({ code: EXIT_REJECTED, stdout: expect.stringContaining(`rejected rows: ${join(dir, `${dialect}-products.rejected.jsonl`)}\n`) });
    const reportPath = join(dir, `${dialect}-products.rejected.jsonl`);
    const rejected = readFileSync(reportPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(rejected).toEqual([
      { sku: 'J-2', name: 'Teh', weight: 'heavy', error: `weight: must be a non-negative decimal with at most two places (${dialect}-products.jsonl line 2)` },
      { sku: 'J-3', brand: 'Nusantara', error: `name: is required (${dialect}-products.jsonl line 3)` },
    ]);
    const fixes: Record<string, unknown> = { weight: 2, name: 'Gula' };
    const fixed = rejected.map((row) => ({ ...row, ...Object.fromEntries(blamed(row.error as string).map((f) => [f, fixes[f]])) }));
    writeFileSync(reportPath, fixed.map((row) => JSON.stringify(row)).join('\n'));

    expect(await cli(['products', '--tenant', world.tenant.id, reportPath])).toMatchObject({ code: EXIT_OK, stdout: expect.stringMatching(/^products: 2 rows read: 2 inserted, 0 updated, 0 unchanged, 0 rejected/) });
    const stored = await t.database.db.selectFrom('products').select(['sku', 'name', 'weight']).where('tenant_id', '=', world.tenant.id).where('sku', 'like', 'J-%').orderBy('sku').execute();
    expect(stored.map((p) => [p.sku, p.name, Number(p.weight)])).toEqual([['J-1', 'Kopi', 1.5], ['J-2', 'Teh', 2], ['J-3', 'Gula', 0]]);
  });
});
