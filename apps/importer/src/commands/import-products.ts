// `products --tenant <id> <file>`: a tenant's catalogue from CSV (a header of Product field
// names) or JSON lines (one object per line), upserted by SKU within the tenant.
import { basename, extname } from 'node:path';
import { type ProductImportRow, findTenant, upsertProductBatch } from '@pits/persistence';
import { csvRecords } from '../csv/csv-records.js';
import { jsonLineRecords } from '../jsonl/json-line-records.js';
import { PRODUCT_COLUMNS, ProductRowChecker } from '../validation/product-row.js';
import { type CheckedRow, FatalImportError, type ImportContext, type ImportSummary, byHeader, openTextInput, runBatches } from './import-run.js';

export type ProductFormat = 'csv' | 'jsonl';

/** The format a file's extension names: `.jsonl`, `.ndjson` and `.json` are JSON lines, anything else CSV. */
export function productFormatOf(path: string): ProductFormat {
  return ['.jsonl', '.ndjson', '.json'].includes(extname(path).toLowerCase()) ? 'jsonl' : 'csv';
}

/** The name the import writes into created_by / updated_by. */
export const IMPORT_ACTOR = 'importer';

/**
 * @example
 * await importProductsFile(context, tenantId, 'catalogue.csv');
 */
export async function importProductsFile(context: ImportContext, tenantId: string, path: string, format: ProductFormat = productFormatOf(path)): Promise<ImportSummary> {
  if (!(await findTenant(context.database, tenantId))) throw new FatalImportError(`tenant ${tenantId} does not exist`);
  const input = await openTextInput(path);
  const file = basename(path);
  const checker = new ProductRowChecker();
  let rows: AsyncIterable<CheckedRow<ProductImportRow>>;
  if (format === 'csv') {
    const records = csvRecords(input.chunks);
    const first = await records.next();
    const header = first.done ? [] : first.value.fields.map((h) => h.trim());
    const unknown = header.filter((h) => !(PRODUCT_COLUMNS as readonly string[]).includes(h));
    if (!header.includes('sku') || !header.includes('name') || unknown.length > 0 || new Set(header).size !== header.length) {
      throw new FatalImportError(
        `${path}: wrong header: it needs sku and name, each column once, and only Product fields${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}`,
      );
    }
    rows = (async function* () {
      for await (const { line, fields, error } of records) {
        if (error) yield { file, line, checked: { ok: false, issues: [{ field: '', reason: error }] } };
        else if (fields.length !== header.length) {
          yield { file, line, checked: { ok: false, issues: [{ field: '', reason: `has ${fields.length} fields, expected ${header.length}` }] } };
        } else yield { file, line, checked: checker.check(line, byHeader(header, fields)) };
      }
    })();
  } else {
    rows = (async function* () {
      for await (const { line, value, error } of jsonLineRecords(input.chunks)) {
        if (error) yield { file, line, checked: { ok: false, issues: [{ field: '', reason: error }] } };
        else if (typeof value !== 'object' || value === null || Array.isArray(value)) {
          yield { file, line, checked: { ok: false, issues: [{ field: '', reason: 'must be a JSON object' }] } };
        } else yield { file, line, checked: checker.check(line, value as Record<string, unknown>) };
      }
    })();
  }
  const now = context.now ?? (() => new Date());
  return runBatches(
    'products',
    context,
    rows,
    (batch) => upsertProductBatch(context.database, tenantId, batch, { now: now(), actor: IMPORT_ACTOR, dryRun: context.dryRun }),
    input.fraction,
  );
}
