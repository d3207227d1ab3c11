// Products through the assembled gateway: list and detail in the inbound product shape, filters,
// tenant scoping, and the contract's refusals; every response checked against its strict schema.
import { errorEnvelope, productDetailResponse, productListResponse } from '@pits/contract';
import { createCredentialCipher, createProduct } from '@pits/persistence';
import { type TenantWorld, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { type TenantGateway, openTenantGateway } from '../testing/tenant-gateway.js';
import { partnerRoutes } from './partner-routes.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] product routes', (dialect) => {
  let g: TenantGateway;
  let w: TenantWorld;
  let other: TenantWorld;
  beforeAll(async () => {
    // Products 1-2 get opening stock at the first location; the ones created below have none.
    g = await openTenantGateway(dialect, { products: 2, openingGood: '5' });
    w = g.w;
    other = await seedTenantWorld(g.t.database, { products: 1, label: 'Other' });
    await createProduct(g.t.database, w.tenant.id, { sku: 'KOPI_250', name: 'Kopi Arabika 250 g', barcode: '8991001' }, 'seed', new Date());
    await createProduct(g.t.database, w.tenant.id, { sku: 'TEH-1', name: 'Teh Melati', barcode: '8991002' }, 'seed', new Date());
  });
  afterAll(() => g.close());

  const call = <S extends z.ZodType>(schema: S, path: string, expected = 200) => g.call(schema, 'GET', path, undefined, expected);
  const skus = async (query: string) => (await call(productListResponse, `/api/partner/v1/products${query}`)).data.products.map((p) => p.sku);

  it('lists every product of the tenant by id ascending, with or without stock, a page at a time', async () => {
    const all = await call(productListResponse, '/api/partner/v1/products');
    expect(all.data.products.map((p) => p.sku)).toEqual(['SKU-1', 'SKU-2', 'KOPI_250', 'TEH-1']);
    expect(all.data.pagination).toEqual({ current_page: 1, per_page: 20, total: 4, last_page: 1 });
    expect(all.data.products[0]).toMatchObject({ product_id: w.products[0]!.id, name: 'Product 1', cost_price: '1.50', published_price: '2.00' });
    const second = await call(productListResponse, '/api/partner/v1/products?page=2&per_page=3');
    expect(second.data.products.map((p) => p.sku)).toEqual(['TEH-1']);
    expect(second.data.pagination).toEqual({ current_page: 2, per_page: 3, total: 4, last_page: 2 });
  });

  it('filters by comma-separated exact SKUs, exact barcode and a case-insensitive search with literal wildcards', async () => {
    expect(await skus('?sku=TEH-1,SKU-1,NOPE')).toEqual(['SKU-1', 'TEH-1']);
    expect(await skus('?sku=teh-1')).toEqual([]);
    expect(await skus('?barcode=8991001')).toEqual(['KOPI_250']);
    expect(await skus('?search=ARABIKA')).toEqual(['KOPI_250']);
    expect(await skus('?search=sku')).toEqual(['SKU-1', 'SKU-2']);
    expect(await skus(`?search=${encodeURIComponent('i_2')}`)).toEqual(['KOPI_250']);
    expect(await skus(`?search=${encodeURIComponent('%')}`)).toEqual([]);
  });

  it('refuses bad filters with 422 on the parameter', async () => {
    const tooMany = Array.from({ length: 101 }, (_, i) => `S${i}`).join(',');
    for (const [query, field] of [
      [`?sku=${tooMany}`, 'sku'],
      ['?sku=A,,B', 'sku'],
      ['?search=', 'search'],
      [`?search=${encodeURIComponent('a\u0000b')}`, 'search'],
      ['?per_page=101', 'per_page'],
    ] as const) {
      const refused = await call(errorEnvelope, `/api/partner/v1/products${query}`, 422);
      expect(refused.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    }
  });

  it("shows one product; an unknown id, a malformed id or another tenant's product is 404", async () => {
    const product = await call(productDetailResponse, `/api/partner/v1/products/${w.products[1]!.id}`);
    expect(product.data.product).toMatchObject({ product_id: w.products[1]!.id, sku: 'SKU-2', deleted_at: null });
    for (const id of [String(other.products[0]!.id), '999999', 'abc']) {
      const missing = await call(errorEnvelope, `/api/partner/v1/products/${id}`, 404);
      expect(missing).toMatchObject({ status: 'not_found', error: { code: 'NOT_FOUND' } });
    }
  });
});

describe('examples of the routes issue 13 added', () => {
  const routes = partnerRoutes({ cipher: createCredentialCipher('c'.repeat(64)), urlPolicy: { allowPrivate: false }, resolveHost: () => Promise.resolve([]) });
  it.each(['products.list', 'products.detail', 'stock.counts', 'webhooks.test'])('%s: the reference examples are what its schemas accept', (name) => {
    const route = routes.find((r) => r.name === name)!;
    expect(route.responseExample, name).toBeDefined();
    expect(route.response.safeParse({ status: route.envelope === 'A' ? 'ok' : 200, ...(route.envelope === 'B' ? { message: 'Ok' } : {}), data: route.responseExample, errors: null, request_id: '1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633b' }).error).toBeUndefined();
    if (route.body) expect(route.body.safeParse(route.example).error).toBeUndefined();
    if (route.query) {
      expect(route.queryExample, name).toBeDefined();
      expect(route.query.safeParse(route.queryExample).error).toBeUndefined();
    }
  });
});
