// `products --tenant <id> <file>`: a tenant's catalogue from CSV (a header of Product field
// names, any order, separated by commas, semicolons or tabs) or JSON lines (one object per
// line), upserted by SKU within the tenant.
import { basename, extname } from 'node:path';
import { type ProductImportRow, findTenant, upsertProductBatch } from '@pits/persistence';
import { ERROR_COLUMN, type HeaderSpec } from '../csv/csv-header.js';
import { jsonLineRecords } from '../jsonl/json-line-records.js';
import type { RowSource } from '../report/reject-report.js';
import { PRODUCT_COLUMNS, ProductRowChecker } from '../validation/product-row.js';
import {
  type CheckedRow, FatalImportError, type ImportContext, type ImportSummary, byHeader, checkedCsvRows, openCsvTable, openTextInput, runBatches,
} from './import-run.js';

export type ProductFormat = 'csv' | 'jsonl';

/** The format a file's extension names: `.jsonl`, `.ndjson` and `.json` are JSON lines, anything else CSV. */
export function productFormatOf(path: string): ProductFormat {
  return ['.jsonl', '.ndjson', '.json'].includes(extname(path).toLowerCase()) ? 'jsonl' : 'csv';
}

const PRODUCT_HEADER: HeaderSpec = { columns: PRODUCT_COLUMNS, required: ['sku', 'name'] };

/** The name the import writes into created_by / updated_by. */
export const IMPORT_ACTOR = 'importer';

/**
 * @example
 * await importProductsFile(context, tenantId, 'catalogue.csv');
 */
export async function importProductsFile(context: ImportContext, tenantId: string, path: string, format: ProductFormat = productFormatOf(path)): Promise<ImportSummary> {
  if (!(await findTenant(context.database, tenantId))) throw new FatalImportError(`tenant ${tenantId} does not exist`);
  const file = basename(path);
  const checker = new ProductRowChecker();
  let rows: AsyncIterable<CheckedRow<ProductImportRow>>;
  let fraction: () => number;
  if (format === 'csv') {
    const table = await openCsvTable(path, PRODUCT_HEADER);
    rows = checkedCsvRows(file, table, (line, fields) => checker.check(line, byHeader(table.columns, fields)));
    fraction = table.fraction;
  } else {
    const input = await openTextInput(path);
    fraction = input.fraction;
    rows = (async function* () {
      for await (const { line, value, text, error } of jsonLineRecords(input.chunks)) {
        const source: RowSource = { kind: 'json', value, text };
        if (error) yield { file, line, source, checked: { ok: false, issues: [{ field: '', reason: error }] } };
        else if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          yield { file, line, source, checked: { ok: false, issues: [{ field: '', reason: 'must be a JSON object' }] } };
        } else {
          // A line of a rejected-rows report carries its previous error: the fix is in the other keys.
          const { [ERROR_COLUMN]: _previous, ...fields } = value as Record<string, unknown>;
          yield { file, line, source, checked: checker.check(line, fields) };
        }
      }
    })();
  }
  const now = context.now ?? (() => new Date());
  return runBatches(
    'products',
    context,
    rows,
    (batch) => upsertProductBatch(context.database, tenantId, batch, { now: now(), actor: IMPORT_ACTOR, dryRun: context.dryRun }),
    fraction,
  );
}
