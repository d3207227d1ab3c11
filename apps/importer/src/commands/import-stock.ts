// `stock --tenant <id> <file>`: a merchant's opening balances from another warehouse system, one
// CSV row per location, product and lot (docs/lots.md#internal-api-and-importer), recorded as
// opening stock once: the ledger reference of each balance names its location, product and lot,
// so importing the same file again, or a fixed report, adds nothing twice.
import { basename } from 'node:path';
import { type OpeningStockImportRow, findTenant, importOpeningStockBatch } from '@pits/persistence';
import type { HeaderSpec } from '../csv/csv-header.js';
import { REQUIRED_STOCK_COLUMNS, STOCK_COLUMNS, StockRowChecker } from '../validation/stock-row.js';
import { IMPORT_ACTOR } from './import-products.js';
import { FatalImportError, type ImportContext, type ImportSummary, byHeader, checkedCsvRows, openCsvTable, runBatches } from './import-run.js';

const STOCK_HEADER: HeaderSpec = { columns: STOCK_COLUMNS, required: REQUIRED_STOCK_COLUMNS };

/**
 * Imports a tenant's opening balances: every row checked, accepted rows recorded in batches (one
 * transaction each) through `importOpeningStockBatch` as the importer, refused rows reported.
 * A balance recorded by an earlier run counts as unchanged; one recorded with other good units is
 * refused (correct it with an adjustment or a stock count).
 *
 * @example
 * await importStockFile(context, tenantId, 'opening-stock.csv');
 */
export async function importStockFile(context: ImportContext, tenantId: string, path: string): Promise<ImportSummary> {
  if (!(await findTenant(context.database, tenantId))) throw new FatalImportError(`tenant ${tenantId} does not exist`);
  const table = await openCsvTable(path, STOCK_HEADER);
  const checker = new StockRowChecker();
  const rows = checkedCsvRows(basename(path), table, (line, fields) => checker.check(line, byHeader(table.columns, fields)));
  const now = context.now ?? (() => new Date());
  return runBatches(
    'stock',
    context,
    rows,
    async (batch: OpeningStockImportRow[]) => ({ updated: 0, ...(await importOpeningStockBatch(context.database, tenantId, batch, { now: now(), actor: IMPORT_ACTOR, dryRun: context.dryRun })) }),
    table.fraction,
  );
}
