// The product import's batch upsert: a tenant's catalogue rows by SKU, in one transaction per
// batch, counting what was inserted, updated and left as it was, and refusing the rows whose lot
// settings may not change now (docs/lots.md#lot-tracked-products).
import { toFixedString } from '@pits/domain';
import type { Insertable, Updateable } from 'kysely';
import type { Database } from '../create-database.js';
import { boolValue } from './boolean-values.js';
import type { ProductTable } from '../schema/index.js';
import { importBatch } from './import-batch.js';
import { redateLots } from './lot-repository.js';
import { lotTrackingInUse } from './product-repository.js';
import { execute, executeWrite } from '../execution/execute.js';

/** The product columns a catalogue file carries: all but the row's identity, tenant and audit stamps. */
type CatalogueColumns = Omit<ProductTable, 'id' | 'tenant_id' | 'created_by' | 'updated_by' | 'deleted_by' | 'created_at' | 'updated_at' | 'deleted_at'>;

/**
 * One product as the import reads it: every field of the contract's Product that a file carries,
 * under its column as `ProductTable` (the one list of them) declares it, flags as booleans. Prices
 * and dimensions are decimal strings with two places.
 */
export type ProductImportRow = { [C in keyof CatalogueColumns]: CatalogueColumns[C] extends 0 | 1 ? boolean : CatalogueColumns[C] };

const MONEY = ['published_price', 'cost_price', 'weight', 'width', 'height', 'length'] as const;
const BOOLEANS = ['is_bundle', 'is_managed_by_fulfillment', 'advance_qc', 'production_batch', 'cold_storage'] as const;
const PLAIN = ['name', 'category_id', 'barcode', 'description', 'brand', 'product_type', 'status', 'fulfillment_manage_by', 'outbound_expired', 'inbound_expired', 'outer_barcode'] as const;

export interface ProductBatchResult {
  inserted: number;
  updated: number;
  unchanged: number;
  /** Rows left as they were because the database refused them: `index` in the batch, and why, by field. */
  refused: { index: number; issues: { field: string; reason: string }[] }[];
}

/** The stored columns a row sets (money with two places, booleans as 0/1). */
function columns(row: ProductImportRow) {
  return {
    ...Object.fromEntries(PLAIN.map((f) => [f, row[f]])),
    ...Object.fromEntries(MONEY.map((f) => [f, toFixedString(row[f], 2)])),
    ...Object.fromEntries(BOOLEANS.map((f) => [f, boolValue(row[f])])),
  } as Pick<ProductTable, (typeof PLAIN)[number] | (typeof MONEY)[number]> & Record<(typeof BOOLEANS)[number], 0 | 1>;
}

/**
 * Upserts a batch of a tenant's products by SKU in one transaction. A product the file lists
 * again after it was deleted comes back. SKUs within a batch must be distinct. As a product
 * update does (`updateProduct`): a row that would change `production_batch` while the product has
 * stock or open documents is refused (listed in `refused`, the product left as it is), and a new
 * `outbound_expired` redates the product's lots.
 *
 * @example
 * await upsertProductBatch(database, tenantId, rows, { now: new Date(), actor: 'importer' });
 */
export async function upsertProductBatch(
  database: Database,
  tenantId: string,
  rows: readonly ProductImportRow[],
  options: { now: Date; actor: string; dryRun?: boolean },
): Promise<ProductBatchResult> {
  const at = options.now.toISOString();
  return importBatch(database, options.dryRun, async (tx) => {
    const existing = new Map<string, Record<string, unknown>>();
    const skus = rows.map((r) => r.sku);
    for (let i = 0; i < skus.length; i += 500) {
      const found = await execute(tx, tx.db.selectFrom('products').selectAll().where('tenant_id', '=', tenantId).where('sku', 'in', skus.slice(i, i + 500)));
      for (const p of found) existing.set(p.sku, p as unknown as Record<string, unknown>);
    }
    const inserts: Insertable<ProductTable>[] = [];
    const refused: ProductBatchResult['refused'] = [];
    let updated = 0;
    for (const [index, row] of rows.entries()) {
      const wanted = columns(row);
      const old = existing.get(row.sku);
      if (!old) {
        inserts.push({ ...wanted, tenant_id: tenantId, sku: row.sku, created_by: options.actor, updated_by: options.actor, created_at: at, updated_at: at });
        continue;
      }
      const same =
        old.deleted_at === null &&
        Object.entries(wanted as Record<string, unknown>).every(([k, v]) => (MONEY.includes(k as (typeof MONEY)[number]) ? toFixedString(String(old[k]), 2) === v : old[k] === v));
      if (same) continue;
      const productId = Number(old.id);
      if (old.production_batch !== wanted.production_batch) {
        const issue = await lotTrackingInUse(tx, tenantId, productId);
        if (issue !== undefined) {
          refused.push({ index, issues: [{ field: 'production_batch', reason: issue }] });
          continue;
        }
      }
      updated += 1;
      await executeWrite(tx, tx.db
        .updateTable('products')
        .set({ ...(wanted satisfies Updateable<ProductTable>), updated_by: options.actor, updated_at: at, deleted_at: null, deleted_by: null })
        .where('tenant_id', '=', tenantId)
        .where('sku', '=', row.sku));
      if (Number(old.outbound_expired) !== wanted.outbound_expired) await redateLots(tx, productId, wanted.outbound_expired);
    }
    for (let i = 0; i < inserts.length; i += 200) {
      await executeWrite(tx, tx.db.insertInto('products').values(inserts.slice(i, i + 200)));
    }
    return { inserted: inserts.length, updated, unchanged: rows.length - inserts.length - updated - refused.length, refused };
  });
}
