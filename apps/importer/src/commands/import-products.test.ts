import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
    const report = readFileSync(join(dir, `${dialect}.rejected.csv`), 'utf8').trim().split('\n').slice(1);
    expect(report).toEqual([
      `${dialect}.csv,4,published_price,must be a non-negative decimal with at most two places`,
      `${dialect}.csv,5,sku,NEW-1 is already on line 3`,
      `${dialect}.csv,6,category_id,must be a non-negative integer`,
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
    const summary = await importProductsFile(testContext(t.database, join(dir, `${dialect}-jsonl.rejected.csv`)), w.tenant.id, path);
    expect(summary).toMatchObject({ read: 3, inserted: 1, rejected: 2 });
    expect((await products()).find((p) => p.sku === 'J-1')).toMatchObject({ cold_storage: 1 });
  });

  it('stops on an unknown tenant or a header that is not Product fields', async () => {
    const path = join(dir, `${dialect}-bad.csv`);
    writeFileSync(path, 'sku,title\nA,B\n');
    const context = testContext(t.database, join(dir, `${dialect}-bad.rejected.csv`));
    await expect(importProductsFile(context, '00000000-0000-4000-8000-000000000000', path)).rejects.toThrow(FatalImportError);
    await expect(importProductsFile(context, w.tenant.id, path)).rejects.toThrow(/wrong header.*unknown: title/);
  });
});
