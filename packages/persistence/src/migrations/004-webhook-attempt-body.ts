// What a receiver answered, per delivery attempt: at most 1 KiB of the response body (contract
// docs/webhooks.md#delivery-and-retries), null when no response came. Number 003 belongs to another change. Frozen once landed.
import type { Kysely } from 'kysely';
import type { MigrationContext } from './migration-context.js';

export async function up(db: Kysely<unknown>, { types: t }: MigrationContext): Promise<void> {
  await db.schema.alterTable('webhook_delivery_attempts').addColumn('response_body', t.text).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('webhook_delivery_attempts').dropColumn('response_body').execute();
}
