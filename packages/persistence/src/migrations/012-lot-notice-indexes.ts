// The lots still to announce at their locations (docs/lots.md#events): the day-boundary job reads
// only rows whose notice has not been sent, so these partial indexes stay small however many lots
// have come and gone. Frozen once landed.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('lot_stock_expiring_due_idx').on('lot_stock').column('lot_id').where(sql.ref('expiring_sent'), '=', 0).execute();
  await db.schema.createIndex('lot_stock_unsellable_due_idx').on('lot_stock').column('lot_id').where(sql.ref('unsellable_sent'), '=', 0).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('lot_stock_unsellable_due_idx').execute();
  await db.schema.dropIndex('lot_stock_expiring_due_idx').execute();
}
