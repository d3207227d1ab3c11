// Merchant consent (docs/identity-and-consent.md#consent-and-installations): a partner connects only to a tenant that granted it access.
// Every installation that exists already keeps working: a grant is recorded for each. Frozen once landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

export async function up(db: Kysely<unknown>, { types: t }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('installation_grants')
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('partner_id', t.bigint, (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('granted_at', t.timestamp, (c) => c.notNull())
    .addColumn('withdrawn_at', t.timestamp)
    .addColumn('withdraw_reason', t.text)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('installation_grants_pkey', ['tenant_id', 'partner_id'])
    .execute();
  await db.schema.createIndex('installation_grants_partner_idx').on('installation_grants').columns(['partner_id', 'tenant_id']).execute();
  await sql`insert into installation_grants (tenant_id, partner_id, granted_at, withdrawn_at, withdraw_reason, created_at, updated_at)
    select tenant_id, partner_id, created_at, null, null, created_at, updated_at from installations`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('installation_grants').execute();
}
