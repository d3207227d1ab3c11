// The products routes (extension, docs/extensions.md#products): a tenant's catalogue, paged by id, with
// exact SKU and barcode filters and a case-insensitive search; each product in the shape the
// inbound list embeds.
import { z } from 'zod';
import { inboundProduct } from './inbound-schemas.js';
import { TEXT_LIMITS, textField } from './text-schemas.js';
import { skuList } from './query-schemas.js';
import { MAX_PER_PAGE, pageQuery, perPageQuery, simplePaginationSchema } from './pagination-schemas.js';
import { envelopeA } from './envelope-schemas.js';

/** Query of `GET /api/partner/v1/products`: page, per_page (default 20, max 100) and three filters. */
export const productListQuery = z
  .object({
    page: pageQuery,
    per_page: perPageQuery(20),
    sku: skuList.optional(),
    barcode: textField({ trim: true, min: 1, max: TEXT_LIMITS.sku }).optional().meta({ description: 'Exact barcode.' }),
    search: textField({ trim: true, min: 1, max: 100 })
      .optional()
      .meta({ description: 'Case-insensitive substring of the name or the SKU; % and _ match themselves.' }),
  })
  .meta({ id: 'ProductListQuery', description: 'Paging and filters of the products list.' });
export type ProductListQuery = z.output<typeof productListQuery>;

/** 200 of list: envelope A, `data.products` by id ascending and the simple pagination object. */
export const productListResponse = envelopeA(
  z.strictObject({ products: z.array(inboundProduct).max(MAX_PER_PAGE), pagination: simplePaginationSchema }),
).meta({ id: 'ProductListResponse', description: 'A page of the tenant\'s products, by id ascending.' });

/** 200 of detail: envelope A, `data.product`. */
export const productDetailResponse = envelopeA(z.strictObject({ product: inboundProduct })).meta({
  id: 'ProductDetailResponse',
  description: 'One product of the tenant.',
});
