// Products of a tenant's catalogue: created, changed, listed and looked up by internal teams.
// Prices and dimensions go in as decimal strings with at most two places and come out with two.
import { z } from 'zod';
import { AppError, domainError, toFixedString } from '@pits/domain';
import {
  type ProductRow,
  createProduct,
  findProduct,
  findProductBySku,
  isUniqueViolation,
  listProducts,
  updateProduct,
} from '@pits/persistence';
import { INTERNAL_ACTOR, definedOnly, idInput, pageFields, paginationOf, tenantId, twoPlaceDecimal } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

/** A product as the internal API shows it. */
export interface ProductView {
  id: number;
  tenantId: string;
  categoryId: number;
  name: string;
  sku: string;
  barcode: string;
  description: string;
  brand: string | null;
  productType: string;
  /** Prices and dimensions: decimal strings with exactly two places (`"19.90"`). */
  publishedPrice: string;
  costPrice: string;
  weight: string;
  width: string;
  height: string;
  length: string;
  status: string;
  isBundle: boolean;
  isManagedByFulfillment: boolean;
  advanceQc: boolean;
  productionBatch: boolean;
  coldStorage: boolean;
  fulfillmentManageBy: string | null;
  outboundExpired: number;
  inboundExpired: number;
  outerBarcode: string | null;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
}

// PostgreSQL's numeric prints eight places and SQLite's text two: both read as the same two-place string.
const twoPlaces = (value: string) => toFixedString(value, 2);

export function toProductView(row: ProductRow): ProductView {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    categoryId: row.category_id,
    name: row.name,
    sku: row.sku,
    barcode: row.barcode,
    description: row.description,
    brand: row.brand,
    productType: row.product_type,
    publishedPrice: twoPlaces(row.published_price),
    costPrice: twoPlaces(row.cost_price),
    weight: twoPlaces(row.weight),
    width: twoPlaces(row.width),
    height: twoPlaces(row.height),
    length: twoPlaces(row.length),
    status: row.status,
    isBundle: row.is_bundle === 1,
    isManagedByFulfillment: row.is_managed_by_fulfillment === 1,
    advanceQc: row.advance_qc === 1,
    productionBatch: row.production_batch === 1,
    coldStorage: row.cold_storage === 1,
    fulfillmentManageBy: row.fulfillment_manage_by,
    outboundExpired: row.outbound_expired,
    inboundExpired: row.inbound_expired,
    outerBarcode: row.outer_barcode,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const sku = z.string().trim().min(1).max(100);

const productFields = z.strictObject({
  sku,
  name: z.string().trim().min(1).max(255),
  categoryId: z.int().min(0),
  barcode: z.string().trim().max(100),
  description: z.string().max(5000),
  brand: z.string().trim().max(200).nullable(),
  productType: z.string().trim().min(1).max(50),
  publishedPrice: twoPlaceDecimal,
  costPrice: twoPlaceDecimal,
  weight: twoPlaceDecimal,
  width: twoPlaceDecimal,
  height: twoPlaceDecimal,
  length: twoPlaceDecimal,
  status: z.string().trim().min(1).max(50),
  isBundle: z.boolean(),
  isManagedByFulfillment: z.boolean(),
  advanceQc: z.boolean(),
  productionBatch: z.boolean(),
  coldStorage: z.boolean(),
  fulfillmentManageBy: z.string().trim().max(100).nullable(),
  outboundExpired: z.int().min(0),
  inboundExpired: z.int().min(0),
  outerBarcode: z.string().trim().max(100).nullable(),
});

/** A second product with the same SKU for the tenant: BAD_REQUEST on the SKU field. */
function skuTaken(error: unknown, field: string, value: string | undefined): unknown {
  if (!isUniqueViolation(error)) return error;
  return new AppError(domainError('VALIDATION_ERROR', `SKU ${value ?? ''} is taken for this tenant`, { field, issue: 'is taken for this tenant' }));
}

function notFound(what: string, field: string): AppError {
  return new AppError(domainError('NOT_FOUND', `product ${what} does not exist for this tenant`, { field }));
}

export const productRouter = router({
  /** A new product of the tenant: `sku` and `name` required, the rest defaulted. A SKU taken: BAD_REQUEST on `sku`. */
  create: protectedProcedure
    .input(productFields.partial().required({ sku: true, name: true }).extend({ tenantId }))
    .mutation(async ({ ctx, input }) => {
      const { tenantId: id, sku: code, name, ...rest } = input;
      await requireTenant(ctx.database, id);
      try {
        return toProductView(await createProduct(ctx.database, id, { sku: code, name, ...definedOnly(rest) }, INTERNAL_ACTOR, ctx.now()));
      } catch (error) {
        throw skuTaken(error, 'sku', code);
      }
    }),

  /** Changes the given fields of a product; absent fields stay. Unknown tenant or product: NOT_FOUND. */
  update: protectedProcedure
    .input(z.strictObject({ tenantId, id: idInput, changes: productFields.partial() }))
    .mutation(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      try {
        return toProductView(await updateProduct(ctx.database, input.tenantId, input.id, definedOnly(input.changes), INTERNAL_ACTOR, ctx.now()));
      } catch (error) {
        throw skuTaken(error, 'changes.sku', input.changes.sku);
      }
    }),

  /** A page of the tenant's products by id, optionally only the one with exactly `sku`. Unknown tenant: NOT_FOUND on `tenantId`. */
  list: protectedProcedure
    .input(z.strictObject({ tenantId, sku: sku.optional(), ...pageFields }))
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const { rows, total } = await listProducts(ctx.database, input.tenantId, { sku: input.sku }, input);
      return { products: rows.map(toProductView), pagination: paginationOf(total, input, rows.length) };
    }),

  /** One product; unknown or another tenant's: NOT_FOUND on `id`. */
  byId: protectedProcedure
    .input(z.strictObject({ tenantId, id: idInput }))
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const row = await findProduct(ctx.database, input.tenantId, input.id);
      if (!row) throw notFound(String(input.id), 'id');
      return toProductView(row);
    }),

  /** One product by its exact SKU; unknown: NOT_FOUND on `sku`. */
  bySku: protectedProcedure
    .input(z.strictObject({ tenantId, sku }))
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const row = await findProductBySku(ctx.database, input.tenantId, input.sku);
      if (!row) throw notFound(input.sku, 'sku');
      return toProductView(row);
    }),
});
