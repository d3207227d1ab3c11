// The tenant's products for partners (docs/extensions.md#products): a list by id ascending with exact
// SKU and barcode filters and a case-insensitive search, and one product by id. Products without
// stock are listed too. The presenter of a product is also the inbound list's (inbound-routes.ts).
import { productDetailResponse, productExample, productListQuery, productListResponse } from '@pits/contract';
import type * as contract from '@pits/contract';
import { pageFacts, simplePagination } from '@pits/domain';
import { type ProductRecord, findProduct, listProducts } from '@pits/persistence';
import { notFound, numericId, pageOf } from './route-helpers.js';
import { type PathParameterDoc, type Route, defineRoute } from './route-spec.js';
import type { z } from 'zod';

/** What each path id names, for the reference; Test Request pre-fills it with the sandbox's record. */
const PRODUCT_ID: PathParameterDoc = { description: "The product's id, as `id` in its answer and in the list", example: '1', sandbox: 'product' };

export function productRoutes(): Route[] {
  return [
    defineRoute({
      name: 'products.list',
      method: 'GET',
      path: '/api/partner/v1/products',
      summary: 'List products (extension)',
      description:
        "The tenant's products by id ascending, whether or not they have stock. sku takes up to 100 comma-separated exact SKUs; barcode is exact; search is a case-insensitive substring of the name or the SKU.",
      tag: 'Products',
      tenantScoped: true,
      query: productListQuery,
      envelope: 'A',
      status: 200,
      response: productListResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 20, sku: 'KOPI-ARABICA-250,TEH-MELATI-100', barcode: '8991234500017', search: 'kopi' },
      responseExample: { products: [productExample], pagination: { current_page: 1, per_page: 20, total: 1, last_page: 1 } },
      handler: async ({ db, tenantId, query }) => {
        const page = pageOf(query);
        const { rows, total } = await listProducts(db, tenantId, { skus: query.sku, barcode: query.barcode, search: query.search }, page);
        return { products: rows.map(presentProduct), pagination: simplePagination(pageFacts(total, page, rows.length)) };
      },
    }),
    defineRoute({
      name: 'products.detail',
      method: 'GET',
      path: '/api/partner/v1/products/:id',
      params: { id: PRODUCT_ID },
      summary: 'Get a product (extension)',
      description: "One product of the tenant; an unknown id or another tenant's product is 404.",
      tag: 'Products',
      tenantScoped: true,
      envelope: 'A',
      status: 200,
      response: productDetailResponse,
      errors: ['NOT_FOUND'],
      responseExample: { product: productExample },
      handler: async ({ db, tenantId, params }) => {
        const product = await findProduct(db, tenantId, numericId(params.id));
        if (!product) throw notFound('product', params.id);
        return { product: presentProduct(product) };
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Presenter

/** A product in the shape the inbound list embeds; the products routes answer the same. */
export function presentProduct(p: ProductRecord): z.input<typeof contract.inboundProduct> {
  return {
    product_id: p.id,
    category_id: p.categoryId,
    name: p.name,
    sku: p.sku,
    barcode: p.barcode,
    description: p.description,
    brand: p.brand,
    product_type: p.productType,
    published_price: p.publishedPrice,
    cost_price: p.costPrice,
    weight: p.weight,
    width: p.width,
    height: p.height,
    length: p.length,
    status: p.status,
    is_bundle: p.isBundle,
    is_managed_by_fulfillment: p.isManagedByFulfillment,
    advance_qc: p.advanceQc,
    production_batch: p.productionBatch,
    cold_storage: p.coldStorage,
    fulfillment_manage_by: p.fulfillmentManageBy,
    outbound_expired: p.outboundExpired,
    inbound_expired: p.inboundExpired,
    outer_barcode: p.outerBarcode,
    created_by: p.createdBy,
    updated_by: p.updatedBy,
    deleted_by: p.deletedBy,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    deleted_at: p.deletedAt,
  };
}
