// Stock of a tenant for internal teams: opening balances (a counted stock take, into the lot it
// names for a lot-tracked product), levels, the ledger of one product at one location, the on-call
// check that every ledger sums to its balance, and the operators' check of every stock invariant
// (docs/holds.md#stock-effect, docs/lots.md#stock-per-lot).
// Quantities come out as exact decimal strings (`"12.5"`), never floats.
import { z } from 'zod';
import { quantityInput, safeText } from '@pits/contract';
import { AppError, type Dec, type FieldIssue, domainError, lotDateIssues, reservedForTransfers, toPlainString } from '@pits/domain';
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
import { INTERNAL_ACTOR, calendarDay, idInput, lotNumberInput, pageFields, paginationOf, tenantId } from './procedure-inputs.js';
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
 * A stock row where an invariant does not hold: `check` names it, `recorded` is what the row (or,
 * for `lot_allocations`, the lot) says and `expected` what the documents (holds, transfers), the
 * ledger or the row's lots add up to.
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
  /** Of a `lot_allocations` check: the lot whose reserved units differ from its allocations. */
  lotNumber?: string;
} {
  const output = { tenantId: d.tenantId, locationId: d.locationId, productId: d.productId, check: d.check, recorded: text(d.recorded), expected: text(d.expected) };
  return {
    ...output,
    ...(d.reservations === undefined ? {} : { reservations: d.reservations }),
    ...(d.lotNumber === undefined ? {} : { lotNumber: d.lotNumber }),
  };
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
    /** The lot of the units (docs/lots.md#lines-name-their-lot): required for a lot-tracked product, refused for any other. */
    lotNumber: lotNumberInput.optional(),
    /** A new lot's expiry date (required when its product has a shelf-life minimum); a known lot's own, or absent. */
    expiryDate: calendarDay.optional(),
    productionDate: calendarDay.optional(),
  })
  .superRefine(refuseProductionAfterExpiry)
  .refine((input) => input.good !== undefined || input.damaged !== undefined, { message: 'give good, damaged or both', path: ['good'] })
  .refine((input) => input.productId === undefined || input.sku === undefined, { message: 'give productId or sku, not both', path: ['sku'] })
  .refine((input) => input.productId !== undefined || input.sku !== undefined, { message: 'give productId or sku', path: ['productId'] });

/** The lot fields as the persistence rules name them (a line's, `lotLineFields('')`), and as this input names them. */
const LOT_INPUT_FIELDS: Record<string, string> = { lot_number: 'lotNumber', expiry_date: 'expiryDate', production_date: 'productionDate' };

/** A production date after the expiry date is refused on `productionDate`, in the domain's words (`lotDateIssues`); malformed dates are their fields' own issues. */
function refuseProductionAfterExpiry(input: { expiryDate?: string | undefined; productionDate?: string | undefined }, ctx: z.RefinementCtx): void {
  if (input.expiryDate === undefined || input.productionDate === undefined) return;
  const dates = { expiryDate: input.expiryDate, productionDate: input.productionDate };
  for (const { field, issue } of lotDateIssues(dates, { expiryDate: 'expiryDate', productionDate: 'productionDate' })) ctx.addIssue({ code: 'custom', path: [field], message: issue });
}

/**
 * A lot refused by the rules of a line (`recordOpeningStock`: a lot number missing or not allowed,
 * a new lot without its expiry date, another expiry date than the lot has) names this input's
 * fields, `lotNumber`, `expiryDate` or `productionDate`, with the same issues.
 */
function onLotInputFields(error: unknown): unknown {
  if (!(error instanceof AppError) || error.kind !== 'VALIDATION_ERROR') return error;
  const rename = (i: FieldIssue): FieldIssue => ({ field: LOT_INPUT_FIELDS[i.field] ?? i.field, issue: i.issue });
  const first = rename(error.error.details);
  if (first.field === error.error.details.field) return error;
  return new AppError(domainError('VALIDATION_ERROR', `${first.field} ${first.issue}`, { ...first, issues: (error.error.issues ?? [error.error.details]).map(rename) }));
}

/** The opening's product: by id, or by its exact SKU (an unknown SKU is BAD_REQUEST on `sku`). */
async function openingProduct(scope: Scope, tenant: string, input: { productId?: number | undefined; sku?: string | undefined }): Promise<Pick<LineProduct, 'id'>> {
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
   * tenant: BAD_REQUEST on `locationId` / `productId` / `sku`. For a lot-tracked product the units
   * go into the lot `lotNumber` names, created with `expiryDate` and `productionDate` when new; the
   * rules of a line refuse a lot on `lotNumber`, `expiryDate` or `productionDate`
   * (docs/lots.md#lines-name-their-lot). Not held to `inbound_expired`: it is a count, not a receipt.
   */
  recordOpening: protectedProcedure.input(stockInputs.recordOpening).mutation(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    await requireTenantLocation(ctx.database, input.tenantId, input.locationId, 'locationId');
    const productId = (await openingProduct(ctx.database, input.tenantId, input)).id;
    const { tenantId: tenant, locationId, good, damaged, reference, lotNumber, expiryDate, productionDate } = input;
    const lot = { lotNumber: lotNumber ?? null, expiryDate: expiryDate ?? null, productionDate: productionDate ?? null };
    await recordOpeningStock(
      ctx.database,
      { tenantId: tenant, locationId, productId, ...(good !== undefined ? { good } : {}), ...(damaged !== undefined ? { damaged } : {}), actor: INTERNAL_ACTOR, reference, ...lot },
      ctx.now(),
    ).catch((error: unknown) => {
      throw onLotInputFields(error);
    });
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
   * yet shipped transfers keep, and each bucket's balance is where its ledger ends; a lot-tracked
   * row is the sum of its lots (`lots_good`, `lots_damaged`, `lots_reserved`), and each lot keeps
   * reserved what holds and transfers allocated of it (`lot_allocations`, naming the lot in
   * `lotNumber`; docs/lots.md#stock-per-lot). Lists every row and check that fails as
   * `{tenantId, locationId, productId, check, recorded, expected}` (a `reserved_for_orders` one
   * also names the row's active holds in `reservations`), in (location, product, check, lot)
   * order; an empty list when all is well. Of one tenant, or of every tenant when
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
