// The tenant's products for partners (docs/extensions.md#products): a list by id ascending with exact
// SKU and barcode filters and a case-insensitive search, and one product by id. Products without
// stock are listed too.
import { productDetailResponse, productExample, productListQuery, productListResponse } from '@pits/contract';
import { pageFacts, simplePagination } from '@pits/domain';
import { findProduct, listProducts } from '@pits/persistence';
import { presentProduct } from './inbound-presenters.js';
import { notFound, numericId, pageOf } from './route-helpers.js';
import { type Route, defineRoute } from './route-spec.js';

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
