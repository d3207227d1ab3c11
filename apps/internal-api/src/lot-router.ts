// Lots for support teams (docs/lots.md#internal-api-and-importer): what each location of a tenant
// holds of each lot, with its dates and whether it may still be sold, as the partners' lots read
// shows it. Quantities come out as exact decimal strings, never floats.
import { z } from 'zod';
import { safeText } from '@pits/contract';
import { type Dec, toPlainString } from '@pits/domain';
import { type StockLotView, listStockLots } from '@pits/persistence';
import { calendarDay, idInput, pageFields, paginationOf, tenantId } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

const text = (value: Dec) => toPlainString(value);

/**
 * One lot at one location on today's date (WIB, docs/lots.md#reading-lots): `available` is
 * `good - reserved` while the lot is sellable and `"0"` when it is not; `daysLeft` is null for a
 * lot without an expiry date. Its return type is the procedure's output type.
 *
 * @example toStockLotOutput(lot) // { locationId: 1, productId: 3, sku: 'SAMBAL', lotNumber: 'SB-1', expiryDate: '2027-01-31', productionDate: null, good: '18', damaged: '0', reserved: '0', available: '18', daysLeft: 70, sellable: true }
 */
export function toStockLotOutput(lot: StockLotView) {
  return {
    locationId: lot.locationId,
    productId: lot.productId,
    sku: lot.sku,
    lotNumber: lot.lotNumber,
    expiryDate: lot.expiryDate,
    productionDate: lot.productionDate,
    good: text(lot.good),
    damaged: text(lot.damaged),
    reserved: text(lot.reserved),
    available: text(lot.available),
    daysLeft: lot.daysLeft,
    sellable: lot.sellable,
  };
}

/** One optional filter value as the list filter the repository takes. */
const listOf = <T>(value: T | undefined): T[] | undefined => (value === undefined ? undefined : [value]);

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const lotInputs = {
  list: z.strictObject({
    tenantId,
    locationId: idInput.optional(),
    productId: idInput.optional(),
    sku: safeText.trim().min(1).max(100).optional(),
    /** Lots whose expiry date is before this day; lots without one are left out. */
    expiringBefore: calendarDay.optional(),
    /** Only the lots that are (true) or are not (false) sellable today. */
    sellable: z.boolean().optional(),
    ...pageFields,
  }),
};

export const lotRouter = router({
  /**
   * A page of the tenant's lots with units (good, damaged or reserved above 0) at each location,
   * first expiring first (lots without an expiry date last), then by lot number and location.
   * Filters are exact and every one given must match, as in `GET /stock/lots`. Unknown tenant:
   * NOT_FOUND on `tenantId`.
   */
  list: protectedProcedure
    .input(lotInputs.list)
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const filters = {
        locationId: input.locationId,
        productIds: listOf(input.productId),
        skus: listOf(input.sku),
        expiringBefore: input.expiringBefore,
        sellable: input.sellable,
      };
      const { rows, total } = await listStockLots(ctx.database, input.tenantId, filters, input);
      return { lots: rows.map(toStockLotOutput), pagination: paginationOf(total, input, rows.length) };
    }),
});
