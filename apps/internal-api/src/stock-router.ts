// Stock of a tenant for internal teams: opening balances (a counted stock take), levels, the
// ledger of one product at one location, the on-call check that every ledger sums to its balance,
// and the operators' check of every stock invariant (docs/holds.md#stock-effect).
// Quantities come out as exact decimal strings (`"12.5"`), never floats.
import { z } from 'zod';
import { quantityInput, safeText } from '@pits/contract';
import { AppError, type Dec, domainError, reservedForTransfers, toPlainString } from '@pits/domain';
import {
  type LedgerMismatch,
  type LineProduct,
  type Scope,
  type StockCheck,
  type StockDiscrepancy,
  type StockLevelView,
  type StockMovementView,
  findLedgerMismatches,
  findProductBySku,
  listStockLevels,
  listStockMovements,
  recordOpeningStock,
  requireTenantLocation,
  requireTenantProducts,
  verifyStock,
} from '@pits/persistence';
import { INTERNAL_ACTOR, idInput, pageFields, paginationOf, tenantId } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

const text = (value: Dec) => toPlainString(value);

/**
 * The stock of one product at one location, as exact decimal strings; `available = good - reserved`,
 * and `reserved` is what approved transfers keep (`reservedForTransfers`) plus what order holds
 * keep (`reservedForOrders`). `version` grows with every change of the row, as in the
 * `stock.level_changed` events (docs/holds.md#events). Its return type is the procedures' output type.
 *
 * @example toStockLevelOutput(level).available // '7.5'
 */
export function toStockLevelOutput(level: StockLevelView) {
  return {
    locationId: level.locationId,
    productId: level.productId,
    sku: level.sku,
    productName: level.productName,
    good: text(level.good),
    damaged: text(level.damaged),
    reserved: text(level.reserved),
    reservedForTransfers: text(reservedForTransfers(level)),
    reservedForOrders: text(level.reservedForOrders),
    available: text(level.good.minus(level.reserved)),
    version: level.version,
  };
}

/**
 * One ledger row: which bucket moved, by how much (exact decimal strings), why, who and when.
 *
 * @example toStockMovementOutput(movement).change // '-2'
 */
export function toStockMovementOutput(m: StockMovementView) {
  return {
    id: m.id,
    locationId: m.locationId,
    productId: m.productId,
    sku: m.sku,
    bucket: m.bucket,
    change: text(m.change),
    before: text(m.before),
    after: text(m.after),
    causeType: m.causeType,
    causeId: m.causeId,
    documentNumber: m.documentNumber,
    actor: m.actor,
    occurredAt: m.occurredAt,
  };
}

/** A stock row and bucket whose ledger does not sum to its balance. */
function toMismatchOutput(m: LedgerMismatch) {
  return { locationId: m.locationId, productId: m.productId, bucket: m.bucket, balance: text(m.balance), ledgerSum: text(m.ledgerSum) };
}

/**
 * A stock row where an invariant does not hold: `check` names it, `recorded` is what the row says
 * and `expected` what the documents (holds, transfers) or the ledger add up to.
 *
 * @example toDiscrepancyOutput(d) // { tenantId, locationId: 1, productId: 2, check: 'reserved_for_orders', recorded: '7', expected: '2.5' }
 */
export function toDiscrepancyOutput(d: StockDiscrepancy): {
  tenantId: string;
  locationId: number;
  productId: number;
  check: StockCheck;
  recorded: string;
  expected: string;
  /** Of a `reserved_for_orders` check: the numbers of the row's active holds. */
  reservations?: string[];
} {
  const output = { tenantId: d.tenantId, locationId: d.locationId, productId: d.productId, check: d.check, recorded: text(d.recorded), expected: text(d.expected) };
  return d.reservations === undefined ? output : { ...output, reservations: d.reservations };
}

/** One optional filter value as the list filter the repository takes. */
const listOf = <T>(value: T | undefined): T[] | undefined => (value === undefined ? undefined : [value]);

/** The tenant's product, else BAD_REQUEST on `field` (the shared check names document lines; here the input is one field). */
async function requireProduct(scope: Scope, tenant: string, productId: number, field: string): Promise<LineProduct> {
  try {
    const [product] = await requireTenantProducts(scope, tenant, [productId]);
    return product!;
  } catch (error) {
    if (!(error instanceof AppError) || error.kind !== 'VALIDATION_ERROR') throw error;
    const issue = error.error.details.issue;
    throw new AppError(domainError('VALIDATION_ERROR', issue, { field, issue }));
  }
}

/** The tenant exists, and the location and product named by the input are its own. */
async function requireStockKey(scope: Scope, input: { tenantId: string; locationId: number; productId: number }): Promise<void> {
  await requireTenant(scope, input.tenantId);
  await requireTenantLocation(scope, input.tenantId, input.locationId, 'locationId');
  await requireProduct(scope, input.tenantId, input.productId, 'productId');
}

const openingInput = z
  .strictObject({
    tenantId,
    locationId: idInput,
    /** The product by id, or by `sku` instead (exactly one of the two, as on partner document lines). */
    productId: idInput.optional(),
    sku: safeText.trim().min(1).max(100).optional(),
    good: quantityInput.optional(),
    damaged: quantityInput.optional(),
    reference: safeText.trim().min(1).max(200),
  })
  .refine((input) => input.good !== undefined || input.damaged !== undefined, { message: 'give good, damaged or both', path: ['good'] })
  .refine((input) => input.productId === undefined || input.sku === undefined, { message: 'give productId or sku, not both', path: ['sku'] })
  .refine((input) => input.productId !== undefined || input.sku !== undefined, { message: 'give productId or sku', path: ['productId'] });

/** The opening's product: by id, or by its exact SKU (an unknown SKU is BAD_REQUEST on `sku`). */
async function openingProduct(scope: Scope, tenant: string, input: { productId?: number | undefined; sku?: string | undefined }): Promise<LineProduct> {
  if (input.productId !== undefined) return requireProduct(scope, tenant, input.productId, 'productId');
  const product = await findProductBySku(scope, tenant, input.sku ?? '');
  if (!product) {
    const issue = `product with sku ${JSON.stringify(input.sku ?? '')} does not exist for this tenant`;
    throw new AppError(domainError('VALIDATION_ERROR', issue, { field: 'sku', issue }));
  }
  return product;
}

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const stockInputs = {
  recordOpening: openingInput,
  levels: z.strictObject({ tenantId, locationId: idInput.optional(), productId: idInput.optional(), sku: safeText.trim().min(1).max(100).optional(), ...pageFields }),
  ledger: z.strictObject({ tenantId, locationId: idInput, productId: idInput, limit: z.int().min(1).max(100).default(20), cursor: safeText.min(1).max(200).optional() }),
  checkLedger: z.strictObject({ tenantId: tenantId.optional() }).prefault({}),
  verify: z.strictObject({ tenantId: tenantId.optional() }).prefault({}),
};

export const stockRouter = router({
  /**
   * Adds counted quantities (each > 0, at most 4 places, number or decimal string) to a location's
   * good and damaged stock, with ledger rows of cause `opening` whose id is `reference`. Returns the
   * level after. The product is named by `productId` or by `sku`. A location or product of another
   * tenant: BAD_REQUEST on `locationId` / `productId` / `sku`.
   */
  recordOpening: protectedProcedure.input(stockInputs.recordOpening).mutation(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    await requireTenantLocation(ctx.database, input.tenantId, input.locationId, 'locationId');
    const productId = (await openingProduct(ctx.database, input.tenantId, input)).id;
    const { tenantId: tenant, locationId, good, damaged, reference } = input;
    await recordOpeningStock(
      ctx.database,
      { tenantId: tenant, locationId, productId, ...(good !== undefined ? { good } : {}), ...(damaged !== undefined ? { damaged } : {}), actor: INTERNAL_ACTOR, reference },
      ctx.now(),
    );
    const { rows } = await listStockLevels(ctx.database, tenant, { locationId, productIds: [productId] }, { page: 1, perPage: 1 });
    return toStockLevelOutput(rows[0]!);
  }),

  /** A page of the tenant's stock levels by location, then product; filters are exact. Unknown tenant: NOT_FOUND on `tenantId`. */
  levels: protectedProcedure
    .input(stockInputs.levels)
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const { rows, total } = await listStockLevels(ctx.database, input.tenantId, { locationId: input.locationId, productIds: listOf(input.productId), skus: listOf(input.sku) }, input);
      return { levels: rows.map(toStockLevelOutput), pagination: paginationOf(total, input, rows.length) };
    }),

  /**
   * The ledger of one product at one location, newest first: `limit` rows (1 to 100, default 20)
   * and `nextCursor` to pass back as `cursor` (null on the last page). A cursor this API did not
   * return: BAD_REQUEST on `cursor`.
   */
  ledger: protectedProcedure
    .input(stockInputs.ledger)
    .query(async ({ ctx, input }) => {
      await requireStockKey(ctx.database, input);
      const page = await listStockMovements(ctx.database, input.tenantId, { locationId: input.locationId, productId: input.productId }, { limit: input.limit, cursor: input.cursor });
      return { movements: page.rows.map(toStockMovementOutput), nextCursor: page.nextCursor };
    }),

  /**
   * On-call check of the ledger invariant: for every stock row and bucket, the ledger sums to the
   * balance. Of one tenant, or of every tenant when `tenantId` is absent.
   */
  checkLedger: protectedProcedure
    .input(stockInputs.checkLedger)
    .query(async ({ ctx, input }) => {
      if (input.tenantId !== undefined) await requireTenant(ctx.database, input.tenantId);
      const mismatches = await findLedgerMismatches(ctx.database, input.tenantId);
      return { balanced: mismatches.length === 0, mismatches: mismatches.map(toMismatchOutput) };
    }),

  /**
   * The operators' check of every stock invariant (docs/holds.md#stock-effect): per stock row,
   * `reservedForOrders` equals what active holds keep, `reservedForTransfers` what approved, not
   * yet shipped transfers keep, and each bucket's balance is where its ledger ends. Lists every row
   * and check that fails as `{tenantId, locationId, productId, check, recorded, expected}` (a
   * `reserved_for_orders` one also names the row's active holds in `reservations`), in (location,
   * product, check) order; an empty list when all is well. Of one tenant, or of every tenant when
   * `tenantId` is absent. Read on one snapshot: safe to run mid-sale, and empty on a healthy
   * database at any moment.
   */
  verify: protectedProcedure
    .input(stockInputs.verify)
    .query(async ({ ctx, input }) => {
      if (input.tenantId !== undefined) await requireTenant(ctx.database, input.tenantId);
      return (await verifyStock(ctx.database, input.tenantId)).map(toDiscrepancyOutput);
    }),
});
