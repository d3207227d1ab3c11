import { AppError } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUniqueViolation } from '../database-errors.js';
import { type TestDatabase, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { createAdjustment, rejectAdjustment } from '../use-cases/adjustment-operations.js';
import { createReservation } from '../use-cases/reservation-operations.js';
import { recordOpeningStock } from '../use-cases/stock-operations.js';
import { createTransfer } from '../use-cases/transfer-operations.js';
import { upsertProductBatch } from './product-import-repository.js';
import { createProduct, findProduct, findProductBySku, findTenantProducts, findTenantProductsBySku, listProducts, lotTrackingInUse, updateProduct } from './product-repository.js';

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

  describe('lot settings (docs/lots.md#lot-tracked-products)', () => {
    /** The error a call ends with (a thrown AppError's plain data), or undefined when it succeeds. */
    const refusalOf = (call: Promise<unknown>) => call.then(() => undefined, (e: unknown) => (e instanceof AppError ? e.error : e));
    const lotDates = (productId: number) => t.database.db.selectFrom('lots').select(['lot_number', 'unsellable_from', 'expiring_from']).where('product_id', '=', productId).orderBy('lot_number').execute();

    it('production_batch changes freely while the product has no stock and no open documents', async () => {
      const fresh = await createProduct(t.database, w.tenant.id, { sku: 'LOT-FREE', name: 'No stock yet' }, 'seed', LATER);
      expect(await lotTrackingInUse(t.database, w.tenant.id, fresh.id)).toBeUndefined();
      expect((await updateProduct(t.database, w.tenant.id, fresh.id, { productionBatch: true }, 'ops', LATER)).productionBatch).toBe(true);
      expect((await updateProduct(t.database, w.tenant.id, fresh.id, { productionBatch: false }, 'ops', LATER)).productionBatch).toBe(false);
    });

    it('a change of production_batch is INVALID_STATE on productionBatch while the product has stock, and nothing changes', async () => {
      const stocked = await createProduct(t.database, w.tenant.id, { sku: 'LOT-STOCKED', name: 'Stocked' }, 'seed', LATER);
      await recordOpeningStock(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, productId: stocked.id, damaged: '1', actor: 'seed', reference: 'open' }, LATER);
      const error = await refusalOf(updateProduct(t.database, w.tenant.id, stocked.id, { productionBatch: true, name: 'Renamed too' }, 'ops', LATER));
      expect(error).toMatchObject({ kind: 'INVALID_STATE', details: { field: 'productionBatch', issue: 'cannot change while the product has stock' } });
      expect(await findProduct(t.database, w.tenant.id, stocked.id)).toEqual(stocked);
      // Giving the flag it already has is no change: the rest of the update goes through.
      expect((await updateProduct(t.database, w.tenant.id, stocked.id, { productionBatch: false, name: 'Renamed' }, 'ops', LATER)).name).toBe('Renamed');
    });

    it('a pending adjustment keeps production_batch as it is until it is decided', async () => {
      const product = await createProduct(t.database, w.tenant.id, { sku: 'LOT-PENDING', name: 'Pending' }, 'seed', LATER);
      const adjustment = await createAdjustment(
        t.database,
        { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, type: 'increase', stockSource: 'good', reason: 'found', items: [{ productId: product.id, quantity: '2', unitCost: '1' }] },
        LATER,
      );
      expect(await lotTrackingInUse(t.database, w.tenant.id, product.id)).toBe('cannot change while the product has pending adjustments');
      expect(await refusalOf(updateProduct(t.database, w.tenant.id, product.id, { productionBatch: true }, 'ops', LATER))).toMatchObject({ kind: 'INVALID_STATE' });
      await rejectAdjustment(t.database, { tenantId: w.tenant.id, number: adjustment.number, actor: w.actor, reason: 'miscounted' }, LATER);
      expect((await updateProduct(t.database, w.tenant.id, product.id, { productionBatch: true }, 'ops', LATER)).productionBatch).toBe(true);
    });

    it('names every kind of use it finds: stock, active holds, open transfers', async () => {
      const product = w.products[3]!;
      await recordOpeningStock(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, productId: product.id, good: '5', actor: 'seed', reference: 'open' }, LATER);
      await createReservation(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, reference: 'ORDER-LOT-1', expiresIn: 900, items: [{ productId: product.id, quantity: '1' }] });
      await createTransfer(
        t.database,
        { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, fromLocationId: w.locations[0].id, toLocationId: w.locations[1].id, transferDate: '2026-11-23', items: [{ productId: product.id, quantity: '1' }] },
        LATER,
      );
      expect(await lotTrackingInUse(t.database, w.tenant.id, product.id)).toBe('cannot change while the product has stock, active holds and open transfers');
      // Another tenant's documents on other products are not this product's.
      expect(await lotTrackingInUse(t.database, other.tenant.id, other.products[0]!.id)).toBeUndefined();
    });

    it('a new outbound_expired redates the lots of the product in the same update', async () => {
      const product = await createProduct(t.database, w.tenant.id, { sku: 'LOT-DATED', name: 'Dated', productionBatch: true }, 'seed', LATER);
      await recordOpeningStock(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, productId: product.id, good: '3', actor: 'seed', reference: 'open', lotNumber: 'B-1', expiryDate: '2027-03-31' }, LATER);
      expect(await lotDates(product.id)).toEqual([{ lot_number: 'B-1', unsellable_from: '2027-03-31', expiring_from: '2027-03-24' }]);
      await updateProduct(t.database, w.tenant.id, product.id, { outboundExpired: 30 }, 'ops', LATER);
      expect(await lotDates(product.id)).toEqual([{ lot_number: 'B-1', unsellable_from: '2027-03-02', expiring_from: '2027-02-23' }]);
    });

    it('the product import refuses the row that would change production_batch of a stocked product, and redates lots on a new outbound_expired', async () => {
      const world = await seedTenantWorld(t.database, { products: 0, label: 'Importing' });
      const stocked = await createProduct(t.database, world.tenant.id, { sku: 'IMP-STOCKED', name: 'Stocked' }, 'seed', LATER);
      const dated = await createProduct(t.database, world.tenant.id, { sku: 'IMP-DATED', name: 'Dated', productionBatch: true }, 'seed', LATER);
      await recordOpeningStock(t.database, { tenantId: world.tenant.id, locationId: world.locations[0].id, productId: stocked.id, good: '1', actor: 'seed', reference: 'open' }, LATER);
      await recordOpeningStock(t.database, { tenantId: world.tenant.id, locationId: world.locations[0].id, productId: dated.id, good: '1', actor: 'seed', reference: 'open', lotNumber: 'D-1', expiryDate: '2027-03-31' }, LATER);
      const row = (sku: string, name: string, productionBatch: boolean, outboundExpired: number) => ({
        sku, name, category_id: 0, barcode: '', description: '', brand: null, product_type: 'physical', published_price: '0.00', cost_price: '0.00', weight: '0.00', width: '0.00',
        height: '0.00', length: '0.00', status: 'published', is_bundle: false, is_managed_by_fulfillment: true, advance_qc: false, production_batch: productionBatch, cold_storage: false,
        fulfillment_manage_by: null, outbound_expired: outboundExpired, inbound_expired: 0, outer_barcode: null,
      });
      const result = await upsertProductBatch(t.database, world.tenant.id, [row('IMP-STOCKED', 'Stocked now lots', true, 0), row('IMP-DATED', 'Dated', true, 30), row('IMP-NEW', 'New', true, 0)], { now: LATER, actor: 'importer' });
      expect(result).toEqual({ inserted: 1, updated: 1, unchanged: 0, refused: [{ index: 0, issues: [{ field: 'production_batch', reason: 'cannot change while the product has stock' }] }] });
      expect(await findProduct(t.database, world.tenant.id, stocked.id)).toEqual(stocked);
      expect(await lotDates(dated.id)).toEqual([{ lot_number: 'D-1', unsellable_from: '2027-03-02', expiring_from: '2027-02-23' }]);
    });
  });
});
