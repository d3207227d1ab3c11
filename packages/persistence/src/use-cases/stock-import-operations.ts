// The opening-stock import's batch: a merchant's balances from another warehouse system, each row a
// location code, a SKU, a lot and its good units, recorded through `recordOpeningStock` once per
// location, product and lot, however often the file is imported (docs/lots.md#lines-name-their-lot).
import { AppError, type Dec, type LotIdentity, type ResolvedLineLot, dec, lotLineFields, resolveLineLot, toPlainString } from '@pits/domain';
import type { Database } from '../create-database.js';
import { importBatch } from '../repositories/import-batch.js';
import { type NewLot, createLots, findLots, lotKey } from '../repositories/lot-repository.js';
import { type LineProduct, findTenantProductsBySku } from '../repositories/product-repository.js';
import { findOpeningsByReference, findTenantLocationsByCode } from '../repositories/stock-import-repository.js';
import { lockStockLevels } from '../repositories/stock-repository.js';
import { recordOpeningStock } from './stock-operations.js';

/** One opening balance as the import reads it; the names are the file's columns. */
export interface OpeningStockImportRow {
  location_code: string;
  sku: string;
  /** Null for a product without lots. */
  lot_number: string | null;
  expiry_date: string | null;
  production_date: string | null;
  /** Good units: a decimal string above 0 with at most 4 places. */
  good: string;
}

export interface OpeningStockBatchResult {
  /** Rows recorded now. */
  inserted: number;
  /** Rows an earlier run recorded with the same good units: nothing is added twice. */
  unchanged: number;
  /** Rows refused, by `index` in the batch, with why, by the file's column names. */
  refused: { index: number; issues: { field: string; reason: string }[] }[];
}

/**
 * The ledger reference (cause id of the `opening` rows) of an imported balance: one per location,
 * product and lot, so a second import of the same balance finds the first.
 *
 * @example openingImportReference(3, 41, 'B-7') === 'stock-import/L3/P41/B-7'; openingImportReference(3, 42, null) === 'stock-import/L3/P42'
 */
export function openingImportReference(locationId: number, productId: number, lotNumber: string | null): string {
  return `stock-import/L${locationId}/P${productId}${lotNumber === null ? '' : `/${lotNumber}`}`;
}

/** A row that passed the checks, ready to record. */
interface AcceptedRow {
  index: number;
  row: OpeningStockImportRow;
  locationId: number;
  product: LineProduct;
  reference: string;
  /** The lot the row creates, when it is new. */
  newLot: NewLot | null;
}

/**
 * Records a batch of opening balances of the tenant in one transaction, each row through
 * `recordOpeningStock` as `actor`, and refuses the rest row by row: an unknown location code or
 * SKU, a lot the product's rules refuse (`resolveLineLot`: a lot number missing for a lot-tracked
 * product or given for another, a new lot without the expiry date its product needs, another
 * expiry date than the lot has, dates out of order), or a balance an earlier run recorded with
 * other good units (correct it with an adjustment or a stock count, not a second opening).
 * A balance already recorded with the same units counts as unchanged. The stock rows of the batch
 * are locked before the earlier runs are read, so two runs at once still record each balance once.
 *
 * @example
 * await importOpeningStockBatch(database, tenantId, rows, { now: new Date(), actor: 'importer' });
 */
export async function importOpeningStockBatch(
  database: Database,
  tenantId: string,
  rows: readonly OpeningStockImportRow[],
  options: { now: Date; actor: string; dryRun?: boolean },
): Promise<OpeningStockBatchResult> {
  return importBatch(database, options.dryRun, async (tx) => {
    const result: OpeningStockBatchResult = { inserted: 0, unchanged: 0, refused: [] };
    const locations = await findTenantLocationsByCode(tx, tenantId, rows.map((r) => r.location_code));
    const products = await findTenantProductsBySku(tx, tenantId, rows.map((r) => r.sku));
    const named = rows.flatMap((r) => {
      const product = products.get(r.sku);
      return product && r.lot_number !== null ? [{ productId: product.id, lotNumber: r.lot_number }] : [];
    });
    const known = new Map<string, LotIdentity>(await findLots(tx, tenantId, named));
    const references = new Set<string>();
    const accepted: AcceptedRow[] = [];
    for (const [index, row] of rows.entries()) {
      const locationId = locations.get(row.location_code);
      const product = products.get(row.sku);
      const issues: { field: string; reason: string }[] = [];
      if (locationId === undefined) issues.push({ field: 'location_code', reason: `no location of this tenant has the code ${row.location_code}` });
      if (product === undefined) issues.push({ field: 'sku', reason: `no product of this tenant has the SKU ${row.sku}` });
      let lot: ResolvedLineLot | null = null;
      if (product !== undefined) {
        const existing = row.lot_number === null ? undefined : known.get(lotKey(product.id, row.lot_number));
        const checked = resolveLineLot({ lotNumber: row.lot_number, expiryDate: row.expiry_date, productionDate: row.production_date }, product.policy, existing, lotLineFields(''));
        if (checked.ok) lot = checked.value;
        else issues.push(...(checked.error.issues ?? [checked.error.details]).map((i) => ({ field: i.field, reason: i.issue })));
      }
      if (issues.length > 0 || locationId === undefined || product === undefined) {
        result.refused.push({ index, issues });
        continue;
      }
      const reference = openingImportReference(locationId, product.id, row.lot_number);
      if (references.has(reference)) {
        result.refused.push({ index, issues: [{ field: 'lot_number', reason: 'this location, product and lot are already on an earlier row of the file' }] });
        continue;
      }
      references.add(reference);
      // A later row of this batch may name the lot without its dates: it is known from here on.
      if (lot?.isNew) known.set(lotKey(product.id, lot.lot.lotNumber), lot.lot);
      const newLot = lot?.isNew ? { productId: product.id, ...lot.lot, outboundExpired: product.policy.outboundExpired } : null;
      accepted.push({ index, row, locationId, product, reference, newLot });
    }

    await lockStockLevels(tx, tenantId, accepted.map((a) => ({ locationId: a.locationId, productId: a.product.id })), options.now);
    const recorded = await findOpeningsByReference(tx, tenantId, accepted.map((a) => a.reference));
    // The batch's new lots in one insert, in createLots' one order, so a document creating some of
    // them at the same moment waits on this batch (or this batch on it), never both on each other.
    await createLots(tx, tenantId, accepted.flatMap((a) => (a.newLot && !recorded.has(a.reference) ? [a.newLot] : [])), options.now);
    for (const a of accepted) {
      const before: Dec | undefined = recorded.get(a.reference);
      if (before !== undefined) {
        if (before.equals(dec(a.row.good))) result.unchanged += 1;
        else result.refused.push({ index: a.index, issues: [{ field: 'good', reason: `this balance was imported before with good ${toPlainString(before)}; correct it with an adjustment or a stock count` }] });
        continue;
      }
      try {
        await recordOpeningStock(
          tx,
          {
            tenantId,
            locationId: a.locationId,
            productId: a.product.id,
            good: a.row.good,
            actor: options.actor,
            reference: a.reference,
            lotNumber: a.row.lot_number,
            expiryDate: a.row.expiry_date,
            productionDate: a.row.production_date,
          },
          options.now,
        );
      } catch (error) {
        // The lot was refused before anything of the row was written (another transaction created
        // it a moment ago with other dates): the row is refused, the batch goes on.
        if (!(error instanceof AppError) || error.kind !== 'VALIDATION_ERROR') throw error;
        result.refused.push({ index: a.index, issues: (error.error.issues ?? [error.error.details]).map((i) => ({ field: i.field, reason: i.issue })) });
        continue;
      }
      result.inserted += 1;
    }
    result.refused.sort((x, y) => x.index - y.index);
    return result;
  });
}
