import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { recordOpeningStock } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testContext } from '../testing/importer-fixtures.js';
import { importProductsFile } from './import-products.js';
import { FatalImportError } from './import-run.js';

const dialects = await testDialects();
const dir = mkdtempSync(join(tmpdir(), 'pits-import-products-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const CSV = [
  'sku,name,category_id,published_price,cost_price,weight,is_bundle,brand,outer_barcode',
  'SKU-1,Product One Renamed,3,20.00,1.50,0.25,false,Nusantara,',
  'NEW-1,"Kopi, Arabica",7,65000,45000.5,0.25,true,,OB-1',
  'NEW-2,Teh,7,12.345,1,1,false,,',
  'NEW-1,Duplicate,7,1,1,1,false,,',
  'NEW-3,Sambal,x,1,1,1,false,,',
].join('\n');

describe.each(dialects)('[%s] importing products', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database, { products: 2 });
  });
  afterAll(() => t.cleanup());

  const products = () => t.database.db.selectFrom('products').selectAll().where('tenant_id', '=', w.tenant.id).orderBy('sku').execute();

  it('upserts by SKU within the tenant, rejects bad rows with their lines, and a re-run changes nothing', async () => {
    const path = join(dir, `${dialect}.csv`);
    writeFileSync(path, CSV);
    const dry = await importProductsFile(testContext(t.database, join(dir, `${dialect}-dry.rejected.csv`), { dryRun: true }), w.tenant.id, path);
    expect(dry).toMatchObject({ inserted: 1, updated: 1, rejected: 3 });
    expect(await products()).toHaveLength(2);

    const context = testContext(t.database, join(dir, `${dialect}.rejected.csv`));
    expect(await importProductsFile(context, w.tenant.id, path)).toMatchObject({ read: 5, inserted: 1, updated: 1, unchanged: 0, rejected: 3 });
    await context.report.close();
    const report = readFileSync(join(dir, `${dialect}.rejected.csv`), 'utf8').trim().split('\n');
    expect(report).toEqual([
      `${CSV.split('\n')[0]},error`,
      `NEW-2,Teh,7,12.345,1,1,false,,,published_price: must be a non-negative decimal with at most two places (${dialect}.csv line 4)`,
      `NEW-1,Duplicate,7,1,1,1,false,,,sku: NEW-1 is already on line 3 (${dialect}.csv line 5)`,
      `NEW-3,Sambal,x,1,1,1,false,,,category_id: must be a non-negative integer (${dialect}.csv line 6)`,
    ]);
    const rows = await products();
    expect(rows.map((p) => [p.sku, p.name])).toEqual([['NEW-1', 'Kopi, Arabica'], ['SKU-1', 'Product One Renamed'], ['SKU-2', 'Product 2']]);
    const kopi = rows[0]!;
    expect([kopi.category_id, Number(kopi.cost_price), kopi.is_bundle, kopi.brand, kopi.outer_barcode, kopi.created_by]).toEqual([7, 45000.5, 1, null, 'OB-1', 'importer']);
    expect(rows[1]!.id).toBe(w.products[0]!.id);

    expect(await importProductsFile(testContext(t.database, join(dir, `${dialect}-again.rejected.csv`)), w.tenant.id, path)).toMatchObject({ inserted: 0, updated: 0, unchanged: 2, rejected: 3 });
  });

  it('reads JSON lines', async () => {
    const path = join(dir, `${dialect}.jsonl`);
    writeFileSync(path, '{"sku":"J-1","name":"Json","weight":1.5,"cold_storage":true}\nnot json\n\n[1]\n');
    const context = testContext(t.database, join(dir, `${dialect}.rejected.jsonl`));
    const summary = await importProductsFile(context, w.tenant.id, path);
    await context.report.close();
    expect(summary).toMatchObject({ read: 3, inserted: 1, rejected: 2 });
    expect((await products()).find((p) => p.sku === 'J-1')).toMatchObject({ cold_storage: 1 });
    expect(readFileSync(join(dir, `${dialect}.rejected.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as unknown)).toEqual([
      { error: `is not valid JSON; the line was: not json (${dialect}.jsonl line 2)` },
      { error: `must be a JSON object; the line was: [1] (${dialect}.jsonl line 4)` },
    ]);
  });

  it('reads a semicolon-separated file whose header is capitalised, and a tab-separated one', async () => {
    const semicolons = join(dir, `${dialect}-excel.csv`);
    writeFileSync(semicolons, '\uFEFFSKU; Name ;Published_Price;Brand\r\nSEMI-1;"Kopi; Gayo";12,5;Nusantara\r\nSEMI-2;Teh;3.00;\r\n');
    const context = testContext(t.database, join(dir, `${dialect}-excel.rejected.csv`));
    expect(await importProductsFile(context, w.tenant.id, semicolons)).toMatchObject({ read: 2, inserted: 1, rejected: 1 });
    await context.report.close();
    // The decimal comma is refused (prices are exact two-place decimals), and the row comes back as it was, with semicolons.
    expect(readFileSync(join(dir, `${dialect}-excel.rejected.csv`), 'utf8')).toBe(
      `SKU; Name ;Published_Price;Brand;error\nSEMI-1;"Kopi; Gayo";12,5;Nusantara;published_price: must be a non-negative decimal with at most two places (${dialect}-excel.csv line 2)\n`,
    );
    const tabs = join(dir, `${dialect}-tabs.tsv`);
    writeFileSync(tabs, 'sku\tname\tcost_price\nTAB-1\tSambal, pedas\t1.5\n');
    expect(await importProductsFile(testContext(t.database, join(dir, `${dialect}-tabs.rejected.tsv`)), w.tenant.id, tabs)).toMatchObject({ read: 1, inserted: 1, rejected: 0 });
    expect((await products()).filter((p) => ['SEMI-2', 'TAB-1'].includes(p.sku)).map((p) => [p.sku, p.name, Number(p.published_price), Number(p.cost_price)])).toEqual([
      ['SEMI-2', 'Teh', 3, 0],
      ['TAB-1', 'Sambal, pedas', 0, 1.5],
    ]);
  });

  it('rejects a row that would change production_batch of a product with stock, leaving the product as it is (docs/lots.md#lot-tracked-products)', async () => {
    const stocked = w.products[1]!;
    await recordOpeningStock(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, productId: stocked.id, good: '1', actor: 'seed', reference: 'open' }, new Date());
    const path = join(dir, `${dialect}-lots.csv`);
    writeFileSync(path, `sku,name,production_batch\n${stocked.sku},${stocked.name},true\nLOTS-NEW,Madu,true\n`);
    const context = testContext(t.database, join(dir, `${dialect}-lots.rejected.csv`));
    expect(await importProductsFile(context, w.tenant.id, path)).toMatchObject({ read: 2, inserted: 1, updated: 0, unchanged: 0, rejected: 1 });
    await context.report.close();
    expect(readFileSync(join(dir, `${dialect}-lots.rejected.csv`), 'utf8')).toBe(
      `sku,name,production_batch,error\n${stocked.sku},${stocked.name},true,production_batch: cannot change while the product has stock (${dialect}-lots.csv line 2)\n`,
    );
    expect((await products()).find((p) => p.sku === stocked.sku)).toMatchObject({ production_batch: 0 });
    expect((await products()).find((p) => p.sku === 'LOTS-NEW')).toMatchObject({ production_batch: 1 });
  });

  it('stops on an unknown tenant or a header that is not Product fields', async () => {
    const path = join(dir, `${dialect}-bad.csv`);
    writeFileSync(path, 'sku,title\nA,B\n');
    const context = testContext(t.database, join(dir, `${dialect}-bad.rejected.csv`));
    await expect(importProductsFile(context, '00000000-0000-4000-8000-000000000000', path)).rejects.toThrow(FatalImportError);
    await expect(importProductsFile(context, w.tenant.id, path)).rejects.toThrow(/wrong header: unknown column "title"; missing column "name"\.\nExpected columns \(sku and name required/);
  });
});
