import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] products', (dialect) => {
  let api: TestApi;
  let clock = TEST_NOW.getTime();
  let tenantId: string;
  let otherTenantId: string;
  beforeAll(async () => {
    api = await openTestApi(dialect, { now: () => new Date(clock) });
    tenantId = (await api.caller.tenants.create({ name: 'Coffee Roaster' })).id;
    otherTenantId = (await api.caller.tenants.create({ name: 'Someone Else' })).id;
  });
  afterAll(() => api.t.cleanup());

  it('creates a product from sku and name, with defaults and two-place prices', async () => {
    const created = await api.caller.products.create({ tenantId, sku: 'KOPI-250', name: 'Kopi 250 g' });
    expect(created).toEqual({
      id: created.id,
      tenantId,
      categoryId: 0,
      name: 'Kopi 250 g',
      sku: 'KOPI-250',
      barcode: '',
      description: '',
      brand: null,
      productType: 'physical',
      publishedPrice: '0.00',
      costPrice: '0.00',
      weight: '0.00',
      width: '0.00',
      height: '0.00',
      length: '0.00',
      status: 'published',
      isBundle: false,
      isManagedByFulfillment: true,
      advanceQc: false,
      productionBatch: false,
      coldStorage: false,
      fulfillmentManageBy: null,
      outboundExpired: 0,
      inboundExpired: 0,
      outerBarcode: null,
      createdBy: 'internal-api',
      updatedBy: 'internal-api',
      createdAt: TEST_NOW.toISOString(),
      updatedAt: TEST_NOW.toISOString(),
    });
  });

  it('creates a product with every field; prices and dimensions come back with exactly two places', async () => {
    const created = await api.caller.products.create({
      tenantId,
      sku: 'KOPI-1KG',
      name: 'Kopi 1 kg',
      categoryId: 7,
      barcode: '8991234567890',
      description: 'Arabica, medium roast',
      brand: 'Gayo',
      productType: 'physical',
      publishedPrice: '185000',
      costPrice: '120500.5',
      weight: '1.05',
      width: '12',
      height: '25.5',
      length: '8',
      status: 'draft',
      isBundle: true,
      isManagedByFulfillment: false,
      advanceQc: true,
      productionBatch: true,
      coldStorage: true,
      fulfillmentManageBy: 'tenant',
      outboundExpired: 30,
      inboundExpired: 60,
      outerBarcode: 'OUT-1',
    });
    expect(created).toMatchObject({
      categoryId: 7,
      brand: 'Gayo',
      publishedPrice: '185000.00',
      costPrice: '120500.50',
      weight: '1.05',
      width: '12.00',
      height: '25.50',
      length: '8.00',
      status: 'draft',
      isBundle: true,
      isManagedByFulfillment: false,
      advanceQc: true,
      productionBatch: true,
      coldStorage: true,
      fulfillmentManageBy: 'tenant',
      outboundExpired: 30,
      inboundExpired: 60,
      outerBarcode: 'OUT-1',
    });
    expect(await api.caller.products.byId({ tenantId, id: created.id })).toEqual(created);
    expect(await api.caller.products.bySku({ tenantId, sku: 'KOPI-1KG' })).toEqual(created);
  });

  it('update changes the given fields only and stamps updatedAt', async () => {
    const created = await api.caller.products.create({ tenantId, sku: 'TEH-100', name: 'Teh', costPrice: '10.00', brand: 'Kebun' });
    clock += 3_600_000;
    const updated = await api.caller.products.update({ tenantId, id: created.id, changes: { name: 'Teh Hijau', costPrice: '12.5', coldStorage: true, brand: null } });
    expect(updated).toEqual({ ...created, name: 'Teh Hijau', costPrice: '12.50', coldStorage: true, brand: null, updatedAt: new Date(clock).toISOString() });
    expect(await api.caller.products.byId({ tenantId, id: created.id })).toEqual(updated);
  });

  it("lists the tenant's products by id a page at a time, filters by exact sku, and never shows another tenant's", async () => {
    await api.caller.products.create({ tenantId: otherTenantId, sku: 'KOPI-250', name: 'Theirs' });
    const all = await api.caller.products.list({ tenantId, perPage: 100 });
    const ids = all.products.map((p) => p.id);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(all.products.every((p) => p.tenantId === tenantId)).toBe(true);
    const firstPage = await api.caller.products.list({ tenantId, perPage: 1 });
    expect(firstPage.products.map((p) => p.id)).toEqual([ids[0]]);
    expect(firstPage.pagination).toMatchObject({ page: 1, perPage: 1, total: ids.length, from: 1, to: 1, hasMorePages: true });
    const bySku = await api.caller.products.list({ tenantId, sku: 'KOPI-250' });
    expect(bySku.products.map((p) => [p.sku, p.name])).toEqual([['KOPI-250', 'Kopi 250 g']]);
    expect(bySku.pagination).toMatchObject({ total: 1, lastPage: 1 });
    expect((await api.caller.products.list({ tenantId, sku: 'KOPI' })).products).toEqual([]);
    const theirs = await api.caller.products.list({ tenantId: otherTenantId });
    expect(theirs.products.map((p) => p.name)).toEqual(['Theirs']);
  });

  it('a SKU taken within the tenant is BAD_REQUEST on the sku field; the same SKU in another tenant is fine', async () => {
    const a = await api.caller.products.create({ tenantId, sku: 'DUP-1', name: 'A' });
    const r = await refusal(api.caller.products.create({ tenantId, sku: 'DUP-1', name: 'Again' }));
    expect(r).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'sku', issues: [{ field: 'sku', issue: 'is taken for this tenant' }] });
    const b = await api.caller.products.create({ tenantId, sku: 'DUP-2', name: 'B' });
    expect(await refusal(api.caller.products.update({ tenantId, id: b.id, changes: { sku: 'DUP-1' } }))).toMatchObject({ code: 'BAD_REQUEST', field: 'changes.sku' });
    expect((await api.caller.products.byId({ tenantId, id: b.id })).sku).toBe('DUP-2');
    expect(await api.caller.products.bySku({ tenantId, sku: 'DUP-1' })).toEqual(a);
    expect((await api.caller.products.create({ tenantId: otherTenantId, sku: 'DUP-1', name: 'Theirs' })).sku).toBe('DUP-1');
  });

  it('unknown or foreign products are NOT_FOUND on id or sku; an unknown tenant NOT_FOUND on tenantId', async () => {
    const foreign = await api.caller.products.create({ tenantId: otherTenantId, sku: 'ONLY-THEIRS', name: 'Foreign' });
    expect(await refusal(api.caller.products.byId({ tenantId, id: foreign.id }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'id' });
    expect(await refusal(api.caller.products.byId({ tenantId, id: 999_999 }))).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
    expect(await refusal(api.caller.products.bySku({ tenantId, sku: 'ONLY-THEIRS' }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'sku' });
    expect(await refusal(api.caller.products.bySku({ tenantId, sku: 'NO-SUCH-SKU' }))).toMatchObject({ code: 'NOT_FOUND', field: 'sku' });
    expect(await refusal(api.caller.products.update({ tenantId, id: foreign.id, changes: { name: 'Mine now' } }))).toMatchObject({ code: 'NOT_FOUND', field: 'id' });
    expect((await api.caller.products.byId({ tenantId: otherTenantId, id: foreign.id })).name).toBe('Foreign');
    const ghost = randomUUID();
    for (const call of [
      () => api.caller.products.create({ tenantId: ghost, sku: 'X', name: 'X' }),
      () => api.caller.products.update({ tenantId: ghost, id: 1, changes: { name: 'X' } }),
      () => api.caller.products.list({ tenantId: ghost }),
      () => api.caller.products.byId({ tenantId: ghost, id: 1 }),
      () => api.caller.products.bySku({ tenantId: ghost, sku: 'X' }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'tenantId' });
    }
  });

  it('invalid inputs are BAD_REQUEST with the field path', async () => {
    expect(await refusal(api.caller.products.create({ tenantId, sku: ' ', name: 'X' }))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'sku' });
    expect(await refusal(api.caller.products.create({ tenantId, sku: 'P-1', name: 'X', costPrice: '1.999' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'costPrice' });
    expect(await refusal(api.caller.products.create({ tenantId, sku: 'P-1', name: 'X', publishedPrice: '-1' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'publishedPrice' });
    expect(await refusal(api.caller.products.create({ tenantId, sku: 'P-1', name: 'X', weight: 1.5 as unknown as string }))).toMatchObject({ code: 'BAD_REQUEST', field: 'weight' });
    const r = await refusal(api.caller.products.update({ tenantId, id: 1, changes: { width: '1e3', outboundExpired: -1 } }));
    expect(r.issues.map((i) => i.field).sort()).toEqual(['changes.outboundExpired', 'changes.width']);
    expect(await refusal(api.caller.products.update({ tenantId, id: 1, changes: { colour: 'red' } as never }))).toMatchObject({ code: 'BAD_REQUEST', field: 'changes.colour' });
    expect(await refusal(api.caller.products.list({ tenantId, perPage: 101 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'perPage' });
    expect(await refusal(api.caller.products.byId({ tenantId, id: 0 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'id' });
    expect((await api.caller.products.list({ tenantId, sku: 'P-1' })).products).toEqual([]);
  });

  it('productionBatch cannot change while the product has stock: CONFLICT, kind INVALID_STATE, on changes.productionBatch, and nothing changes (docs/lots.md#lot-tracked-products)', async () => {
    const product = await api.caller.products.create({ tenantId, sku: 'MADU-LOT', name: 'Madu' });
    const location = await api.caller.locations.create({ tenantId, code: 'WH-LOT', name: 'Lots' });
    // No stock and no documents yet: the flag goes both ways.
    expect((await api.caller.products.update({ tenantId, id: product.id, changes: { productionBatch: true } })).productionBatch).toBe(true);
    expect((await api.caller.products.update({ tenantId, id: product.id, changes: { productionBatch: false } })).productionBatch).toBe(false);
    await api.caller.stock.recordOpening({ tenantId, locationId: location.id, productId: product.id, damaged: '2', reference: 'OPEN' });
    const before = await api.caller.products.byId({ tenantId, id: product.id });
    const r = await refusal(api.caller.products.update({ tenantId, id: product.id, changes: { productionBatch: true, name: 'Madu (lots)' } }));
    expect(r).toEqual({
      code: 'CONFLICT',
      kind: 'INVALID_STATE',
      message: 'changes.productionBatch cannot change while the product has stock',
      field: 'changes.productionBatch',
      issues: [{ field: 'changes.productionBatch', issue: 'cannot change while the product has stock' }],
    });
    expect(await api.caller.products.byId({ tenantId, id: product.id })).toEqual(before);
    // The rest of a product still changes, the flag given as it is included.
    expect(await api.caller.products.update({ tenantId, id: product.id, changes: { productionBatch: false, name: 'Madu Hutan' } })).toMatchObject({ name: 'Madu Hutan', productionBatch: false });
  });

  it('without the service token every product procedure is UNAUTHORIZED, and nothing changes', async () => {
    const before = await api.caller.products.list({ tenantId, perPage: 100 });
    for (const call of [
      () => api.anonymous.products.create({ tenantId, sku: 'NOPE', name: 'Nope' }),
      () => api.anonymous.products.update({ tenantId, id: before.products[0]!.id, changes: { name: 'Nope' } }),
      () => api.anonymous.products.list({ tenantId }),
      () => api.anonymous.products.byId({ tenantId, id: before.products[0]!.id }),
      () => api.anonymous.products.bySku({ tenantId, sku: before.products[0]!.sku }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
    }
    expect(await api.caller.products.list({ tenantId, perPage: 100 })).toEqual(before);
  });
});
