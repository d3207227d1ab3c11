// Each stock row names the newest ledger row of each of its buckets (docs/holds.md#stock-effect),
// written by the same statement that writes its levels, so `stock.verify` reads those rows by
// primary key. It replaces migration 010's index on (location, product, bucket, id), a fourth
// B-tree every ledger row paid for on every stock change. The ids of existing rows are filled from
// the ledger (through that index) before it goes. Frozen once landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

const BUCKETS = ['good', 'damaged', 'reserved'] as const;

export async function up(db: Kysely<unknown>, { types: t }: MigrationContext): Promise<void> {
  for (const bucket of BUCKETS) {
    await db.schema.alterTable('stock_levels').addColumn(`${bucket}_ledger_id`, t.bigint).execute();
  }
  await sql`
    update stock_levels set
      good_ledger_id = (select max(l.id) from stock_ledger l where l.location_id = stock_levels.location_id and l.product_id = stock_levels.product_id and l.bucket = 'good'),
      damaged_ledger_id = (select max(l.id) from stock_ledger l where l.location_id = stock_levels.location_id and l.product_id = stock_levels.product_id and l.bucket = 'damaged'),
      reserved_ledger_id = (select max(l.id) from stock_ledger l where l.location_id = stock_levels.location_id and l.product_id = stock_levels.product_id and l.bucket = 'reserved')
  `.execute(db);
  await db.schema.dropIndex('stock_ledger_bucket_idx').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('stock_ledger_bucket_idx').on('stock_ledger').columns(['location_id', 'product_id', 'bucket', 'id']).execute();
  for (const bucket of [...BUCKETS].reverse()) {
    await db.schema.alterTable('stock_levels').dropColumn(`${bucket}_ledger_id`).execute();
  }
}
