// A webhook endpoint can be paused and its event types changed (docs/webhooks.md#endpoints):
// whether it receives new events, and when it was last changed (null until then: it reads as its
// creation). Frozen once landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

export async function up(db: Kysely<unknown>, { types: t }: MigrationContext): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').addColumn('is_active', t.boolean, (c) => c.notNull().defaultTo(sql`true`)).execute();
  await db.schema.alterTable('webhook_endpoints').addColumn('updated_at', t.timestamp).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_endpoints').dropColumn('updated_at').execute();
  await db.schema.alterTable('webhook_endpoints').dropColumn('is_active').execute();
}
