// The tenant's products for partners (extension, decisions §11): a list by id ascending with exact
// SKU and barcode filters and a case-insensitive search, and one product by id. Products without
// stock are listed too.
import { pageFacts, productDetailResponse, productListQuery, productListResponse, simplePagination } from '@pits/domain';
import { findProduct, listProducts } from '@pits/persistence';
import { presentProduct } from './inbound-presenters.js';
import { notFound, pageOf } from './route-helpers.js';
import { type Route, defineRoute } from './route-spec.js';

/** A path id that is not a positive integer names no product. */
function productId(value: string | undefined): number {
  return value !== undefined && /^[1-9]\d{0,14}$/.test(value) ? Number(value) : 0;
}

const EXAMPLE_PRODUCT = {
  product_id: 1042,
  category_id: 7,
  name: 'Kopi Arabika Gayo 250 g',
  sku: 'KOPI-GAYO-250',
  barcode: '8991234567890',
  description: 'Single-origin arabica, whole bean.',
  brand: 'Gayo Highlands',
  product_type: 'physical',
  published_price: '89000.00',
  cost_price: '61500.00',
  weight: '0.25',
  width: '9.00',
  height: '18.00',
  length: '6.00',
  status: 'published',
  is_bundle: false,
  is_managed_by_fulfillment: true,
  advance_qc: false,
  production_batch: false,
  cold_storage: false,
  fulfillment_manage_by: null,
  outbound_expired: 0,
  inbound_expired: 0,
  outer_barcode: null,
  created_by: 'catalogue-import',
  updated_by: 'catalogue-import',
  deleted_by: null,
  created_at: '2026-01-12T03:20:11.482Z',
  updated_at: '2026-01-30T09:02:45.117Z',
  deleted_at: null,
};

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
      queryExample: { page: 1, per_page: 20, sku: 'KOPI-ARABICA-250,TEH-MELATI-100', barcode: '8991002101234', search: 'kopi' },
      responseExample: { products: [EXAMPLE_PRODUCT], pagination: { current_page: 1, per_page: 20, total: 1, last_page: 1 } },
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
      summary: 'Get a product (extension)',
      description: "One product of the tenant; an unknown id or another tenant's product is 404.",
      tag: 'Products',
      tenantScoped: true,
      envelope: 'A',
      status: 200,
      response: productDetailResponse,
      errors: ['NOT_FOUND'],
      responseExample: { product: EXAMPLE_PRODUCT },
      handler: async ({ db, tenantId, params }) => {
        const product = await findProduct(db, tenantId, productId(params.id));
        if (!product) throw notFound('product', params.id);
        return { product: presentProduct(product) };
      },
    }),
  ];
}
