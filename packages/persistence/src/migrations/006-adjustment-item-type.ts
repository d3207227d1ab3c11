// Each adjustment line carries its own direction, so one adjustment can hold both signs (a stock
// count that found more of one product and less of another). Lines that exist take their
// adjustment's type. Frozen once landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

export async function up(db: Kysely<unknown>, { types: t }: MigrationContext): Promise<void> {
  await db.schema
    .alterTable('adjustment_items')
    .addColumn('type', t.text, (c) => c.notNull().defaultTo('increase').check(sql`type in ('increase', 'decrease')`))
    .execute();
  await sql`update adjustment_items set type = (select adjustments.type from adjustments where adjustments.id = adjustment_items.adjustment_id)`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('adjustment_items').dropColumn('type').execute();
}
