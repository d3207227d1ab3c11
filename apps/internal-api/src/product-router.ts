// Products of a tenant's catalogue: created, changed, listed and looked up by internal teams.
// Prices and dimensions go in as decimal strings with at most two places and come out with two.
import { z } from 'zod';
import { safeText } from '@pits/contract';
import { AppError, domainError } from '@pits/domain';
import {
  type ProductRecord,
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

/**
 * A product as the internal API shows it; prices and dimensions are decimal strings with exactly
 * two places (`"19.90"`). Its return type is the procedures' output type.
 *
 * @example toProductView(product).costPrice // '12.50'
 */
export function toProductView(product: ProductRecord) {
  return {
    id: product.id,
    tenantId: product.tenantId,
    categoryId: product.categoryId,
    name: product.name,
    sku: product.sku,
    barcode: product.barcode,
    description: product.description,
    brand: product.brand,
    productType: product.productType,
    publishedPrice: product.publishedPrice,
    costPrice: product.costPrice,
    weight: product.weight,
    width: product.width,
    height: product.height,
    length: product.length,
    status: product.status,
    isBundle: product.isBundle,
    isManagedByFulfillment: product.isManagedByFulfillment,
    advanceQc: product.advanceQc,
    productionBatch: product.productionBatch,
    coldStorage: product.coldStorage,
    fulfillmentManageBy: product.fulfillmentManageBy,
    outboundExpired: product.outboundExpired,
    inboundExpired: product.inboundExpired,
    outerBarcode: product.outerBarcode,
    createdBy: product.createdBy,
    updatedBy: product.updatedBy,
    createdAt: product.createdAt,
    updatedAt: product.updatedAt,
  };
}

const sku = safeText.trim().min(1).max(100);

const productFields = z.strictObject({
  sku,
  name: safeText.trim().min(1).max(255),
  categoryId: z.int().min(0),
  barcode: safeText.trim().max(100),
  description: safeText.max(5000),
  brand: safeText.trim().max(200).nullable(),
  productType: safeText.trim().min(1).max(50),
  publishedPrice: twoPlaceDecimal,
  costPrice: twoPlaceDecimal,
  weight: twoPlaceDecimal,
  width: twoPlaceDecimal,
  height: twoPlaceDecimal,
  length: twoPlaceDecimal,
  status: safeText.trim().min(1).max(50),
  isBundle: z.boolean(),
  isManagedByFulfillment: z.boolean(),
  advanceQc: z.boolean(),
  productionBatch: z.boolean(),
  coldStorage: z.boolean(),
  fulfillmentManageBy: safeText.trim().max(100).nullable(),
  outboundExpired: z.int().min(0),
  inboundExpired: z.int().min(0),
  outerBarcode: safeText.trim().max(100).nullable(),
});

/**
 * A change of `productionBatch` refused while the product has stock or open documents
 * (docs/lots.md#lot-tracked-products) names the input's path, `changes.productionBatch`.
 */
function onChanges(error: unknown): unknown {
  if (!(error instanceof AppError) || error.kind !== 'INVALID_STATE' || error.error.details.field !== 'productionBatch') return error;
  return new AppError(domainError('INVALID_STATE', `changes.${error.message}`, { field: 'changes.productionBatch', issue: error.error.details.issue }));
}

/** A second product with the same SKU for the tenant: BAD_REQUEST on the SKU field. */
function skuTaken(error: unknown, field: string, value: string | undefined): unknown {
  if (!isUniqueViolation(error)) return error;
  return new AppError(domainError('VALIDATION_ERROR', `SKU ${value ?? ''} is taken for this tenant`, { field, issue: 'is taken for this tenant' }));
}

function notFound(what: string, field: string): AppError {
  return new AppError(domainError('NOT_FOUND', `product ${what} does not exist for this tenant`, { field }));
}

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const productInputs = {
  create: productFields.partial().required({ sku: true, name: true }).extend({ tenantId }),
  update: z.strictObject({ tenantId, id: idInput, changes: productFields.partial() }),
  list: z.strictObject({ tenantId, sku: sku.optional(), ...pageFields }),
  byId: z.strictObject({ tenantId, id: idInput }),
  bySku: z.strictObject({ tenantId, sku }),
};

export const productRouter = router({
  /** A new product of the tenant: `sku` and `name` required, the rest defaulted. A SKU taken: BAD_REQUEST on `sku`. */
  create: protectedProcedure
    .input(productInputs.create)
    .mutation(async ({ ctx, input }) => {
      const { tenantId: id, sku: code, name, ...rest } = input;
      await requireTenant(ctx.database, id);
      try {
        return toProductView(await createProduct(ctx.database, id, { sku: code, name, ...definedOnly(rest) }, INTERNAL_ACTOR, ctx.now()));
      } catch (error) {
        throw skuTaken(error, 'sku', code);
      }
    }),

  /**
   * Changes the given fields of a product; absent fields stay. Unknown tenant or product:
   * NOT_FOUND. `productionBatch` cannot change while the product has stock, active holds, open
   * transfers or pending adjustments: CONFLICT (kind INVALID_STATE) on `changes.productionBatch`,
   * nothing changed. A new `outboundExpired` redates the product's lots (docs/lots.md#lot-tracked-products).
   */
  update: protectedProcedure
    .input(productInputs.update)
    .mutation(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      try {
        return toProductView(await updateProduct(ctx.database, input.tenantId, input.id, definedOnly(input.changes), INTERNAL_ACTOR, ctx.now()));
      } catch (error) {
        throw onChanges(skuTaken(error, 'changes.sku', input.changes.sku));
      }
    }),

  /** A page of the tenant's products by id, optionally only the one with exactly `sku`. Unknown tenant: NOT_FOUND on `tenantId`. */
  list: protectedProcedure
    .input(productInputs.list)
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const { rows, total } = await listProducts(ctx.database, input.tenantId, { skus: input.sku === undefined ? undefined : [input.sku] }, input);
      return { products: rows.map(toProductView), pagination: paginationOf(total, input, rows.length) };
    }),

  /** One product; unknown or another tenant's: NOT_FOUND on `id`. */
  byId: protectedProcedure
    .input(productInputs.byId)
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const row = await findProduct(ctx.database, input.tenantId, input.id);
      if (!row) throw notFound(String(input.id), 'id');
      return toProductView(row);
    }),

  /** One product by its exact SKU; unknown: NOT_FOUND on `sku`. */
  bySku: protectedProcedure
    .input(productInputs.bySku)
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const row = await findProductBySku(ctx.database, input.tenantId, input.sku);
      if (!row) throw notFound(input.sku, 'sku');
      return toProductView(row);
    }),
});
