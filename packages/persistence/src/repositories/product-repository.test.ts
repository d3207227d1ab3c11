import { AppError } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../database-errors.js';
import { type TestDatabase, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { createProduct, findProduct, findProductBySku, findTenantProducts, findTenantProductsBySku, listProducts, updateProduct } from './product-repository.js';

const dialects = await testDialects();
const LATER = new Date('2026-11-23T09:30:00.000Z');

describe.each(dialects)('[%s] product repository', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let other: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database, { products: 4 });
    other = await seedTenantWorld(t.database, { products: 2, label: 'Other' });
  });
  afterAll(() => t.cleanup());

  it("finds a live product of the tenant by id and by SKU, never another tenant's", async () => {
    const first = w.products[0]!;
    expect(await findProduct(t.database, w.tenant.id, first.id)).toEqual(first);
    expect(await findProductBySku(t.database, w.tenant.id, 'SKU-1')).toEqual(first);
    expect(await findProduct(t.database, w.tenant.id, other.products[0]!.id)).toBeUndefined();
    expect(await findProductBySku(t.database, other.tenant.id, 'SKU-3')).toBeUndefined();
    expect(await findProductBySku(t.database, w.tenant.id, 'sku-1')).toBeUndefined();
    expect(await findProduct(t.database, w.tenant.id, 999_999)).toBeUndefined();
  });

  it("reads a document line's product as id, name, SKU, cost price and lot settings only, by id or by SKU, never another tenant's", async () => {
    const [first, second] = [w.products[0]!, w.products[1]!];
    const line = (p: typeof first) => ({
      id: p.id,
      name: p.name,
      sku: p.sku,
      costPrice: p.costPrice,
      policy: { lotTracked: p.productionBatch, inboundExpired: p.inboundExpired, outboundExpired: p.outboundExpired },
    });
    const byId = await findTenantProducts(t.database, w.tenant.id, [second.id, first.id, first.id, other.products[0]!.id]);
    expect([...byId.entries()].sort(([a], [b]) => a - b)).toEqual([
      [first.id, line(first)],
      [second.id, line(second)],
    ]);
    // Only the columns a line needs: the catalogue row's other columns are never read.
    expect(Object.keys(byId.get(first.id)!).sort()).toEqual(['costPrice', 'id', 'name', 'policy', 'sku']);
    const bySku = await findTenantProductsBySku(t.database, w.tenant.id, [second.sku, 'SKU-404']);
    expect([...bySku.entries()]).toEqual([[second.sku, line(second)]]);
    expect(await findTenantProductsBySku(t.database, other.tenant.id, ['SKU-3'])).toEqual(new Map());
  });

  it('reads line products past one statement of 500 values: the first and the last chunk both answer', async () => {
    const [first, second] = [w.products[0]!, w.products[1]!];
    // 600 distinct ids: the tenant's first product in the first chunk of 500, its second in the next one.
    const unknown = Array.from({ length: 598 }, (_, i) => 900_000 + i);
    const byId = await findTenantProducts(t.database, w.tenant.id, [first.id, ...unknown, second.id]);
    expect([...byId.keys()].sort((a, b) => a - b)).toEqual([first.id, second.id]);
    const unknownSkus = unknown.map((id) => `SKU-${id}`);
    const bySku = await findTenantProductsBySku(t.database, w.tenant.id, [first.sku, ...unknownSkus, second.sku]);
    expect([...bySku.keys()].sort()).toEqual([first.sku, second.sku].sort());
  });

  it('lists the tenant products by id ascending, a page at a time, with an exact SKU filter', async () => {
    const all = await listProducts(t.database, w.tenant.id, {}, { page: 1, perPage: 20 });
    expect(all.total).toBe(4);
    expect(all.rows.map((r) => r.sku)).toEqual(['SKU-1', 'SKU-2', 'SKU-3', 'SKU-4']);
    const ids = all.rows.map((r) => r.id);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const second = await listProducts(t.database, w.tenant.id, {}, { page: 2, perPage: 3 });
    expect(second).toEqual({ rows: [all.rows[3]], total: 4 });
    const bySku = await listProducts(t.database, w.tenant.id, { skus: ['SKU-2'] }, { page: 1, perPage: 20 });
    expect(bySku).toEqual({ rows: [all.rows[1]], total: 1 });
    expect(await listProducts(t.database, w.tenant.id, { skus: ['SKU'] }, { page: 1, perPage: 20 })).toEqual({ rows: [], total: 0 });
    expect((await listProducts(t.database, other.tenant.id, {}, { page: 1, perPage: 20 })).total).toBe(2);
  });

  it('filters by several exact SKUs, an exact barcode, and a case-insensitive substring of name or SKU (wildcards literal, every script)', async () => {
    const world = await seedTenantWorld(t.database, { products: 0, label: 'Search' });
    const make = (sku: string, name: string, barcode = '') => createProduct(t.database, world.tenant.id, { sku, name, barcode }, 'seed', LATER);
    const kopi = await make('KOPI-250', 'Kopi Arabika 250 g', '8991001');
    const teh = await make('TEH_1', 'Teh Melati', '8991002');
    const eclair = await make('ECL-1', 'ÉCLAIR 100% cocoa', '8991003');
    const plain = await make('TEHX1', 'Plain water');
    const page = { page: 1, perPage: 20 };
    const skus = (filters: Parameters<typeof listProducts>[2]) => listProducts(t.database, world.tenant.id, filters, page).then((r) => r.rows.map((p) => p.sku));
    expect(await skus({ skus: ['TEH_1', 'KOPI-250', 'NOPE', 'KOPI-250'] })).toEqual(['KOPI-250', 'TEH_1']);
    expect(await skus({ skus: [] })).toEqual([]);
    expect(await skus({ barcode: '8991002' })).toEqual(['TEH_1']);
    expect(await skus({ search: 'arabika' })).toEqual(['KOPI-250']);
    expect(await skus({ search: 'kopi-' })).toEqual(['KOPI-250']);
    // `_` and `%` are literal: TEHX1 does not match "teh_", only TEH_1 does.
    expect(await skus({ search: 'teh_' })).toEqual(['TEH_1']);
    expect(await skus({ search: '100%' })).toEqual(['ECL-1']);
    expect(await skus({ search: 'éclair' })).toEqual(['ECL-1']);
    expect(await skus({ search: 'teh', barcode: '8991002' })).toEqual(['TEH_1']);
    const all = await listProducts(t.database, world.tenant.id, {}, page);
    expect(all.rows.map((p) => p.id)).toEqual([kopi.id, teh.id, eclair.id, plain.id]);
    expect((await listProducts(t.database, w.tenant.id, { search: 'teh' }, page)).total).toBe(0);
  });

  it('updates only the given fields, stores prices and dimensions with two places, and stamps who and when', async () => {
    const before = (await findProduct(t.database, w.tenant.id, w.products[1]!.id))!;
    const updated = await updateProduct(
      t.database,
      w.tenant.id,
      before.id,
      { name: 'Kopi 250 g', costPrice: '41.5', weight: '0.25', coldStorage: true, brand: null, outboundExpired: 30 },
      'ops',
      LATER,
    );
    expect(updated).toEqual({
      ...before,
      name: 'Kopi 250 g',
      costPrice: '41.50',
      weight: '0.25',
      coldStorage: true,
      brand: null,
      outboundExpired: 30,
      updatedBy: 'ops',
      updatedAt: LATER.toISOString(),
    });
    expect(updated.publishedPrice).toBe(before.publishedPrice);
    expect(await findProduct(t.database, w.tenant.id, before.id)).toEqual(updated);
  });

  it("refuses an unknown or another tenant's product with NOT_FOUND on id, changing nothing", async () => {
    const theirs = other.products[0]!;
    for (const id of [theirs.id, 999_999]) {
      const error = await updateProduct(t.database, w.tenant.id, id, { name: 'Hijacked' }, 'ops', LATER).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AppError);
      expect((error as AppError).error).toMatchObject({ kind: 'NOT_FOUND', details: { field: 'id' } });
    }
    expect(await findProduct(t.database, other.tenant.id, theirs.id)).toEqual(theirs);
  });

  it('a SKU taken within the tenant is a unique violation; the same SKU in another tenant is fine', async () => {
    const error = await updateProduct(t.database, w.tenant.id, w.products[2]!.id, { sku: 'SKU-4' }, 'ops', LATER).catch((e: unknown) => e);
    expect(isUniqueViolation(error)).toBe(true);
    expect((await findProduct(t.database, w.tenant.id, w.products[2]!.id))!.sku).toBe('SKU-3');
    const renamed = await updateProduct(t.database, other.tenant.id, other.products[0]!.id, { sku: 'SKU-4' }, 'ops', LATER);
    expect(renamed.sku).toBe('SKU-4');
  });
});
