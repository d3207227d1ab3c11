// Crash-safe idempotency and retention. A claim carries a token that only its holder knows, so
// completing it is conditional on still holding it; the retention purge walks small batches by
// age through these indexes. Frozen once landed.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './migration-context.js';

export async function up(db: Kysely<unknown>, { types: t }: MigrationContext): Promise<void> {
  await db.schema.alterTable('idempotency_records').addColumn('claim_token', t.text).execute();
  await db.schema.createIndex('webhook_deliveries_retention_idx').on('webhook_deliveries').columns(['status', 'updated_at']).execute();
  await db.schema.createIndex('event_outbox_occurred_idx').on('event_outbox').columns(['occurred_at', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('event_outbox_occurred_idx').execute();
  await db.schema.dropIndex('webhook_deliveries_retention_idx').execute();
  await db.schema.alterTable('idempotency_records').dropColumn('claim_token').execute();
}
