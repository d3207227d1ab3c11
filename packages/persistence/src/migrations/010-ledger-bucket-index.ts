// The newest ledger row of each bucket of a stock row, found by index (docs/holds.md#stock-effect):
// `stock.verify` compares each balance with the last ledger row's quantity_after, so its cost
// grows with stock rows, not with the ledger's history. Frozen once landed.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('stock_ledger_bucket_idx').on('stock_ledger').columns(['location_id', 'product_id', 'bucket', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('stock_ledger_bucket_idx').execute();
}
