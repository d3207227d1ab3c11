// List totals that do not grow with history (issue 15): per tenant, the number of adjustments,
// transfers and inbound shipments in each combination of the values their list filters take,
// changed in the transaction of every insert and status change (repositories/list-count-repository.ts).
// A list's total is then a sum over at most #statuses x #locations (x #types) rows instead of a
// COUNT(*) over the tenant's whole history. Filled here from the rows already there.
//
// Pages are found on an index first (ids only, then the page's rows): each list's per-filter index
// is rebuilt to carry the list's other filter columns after (created_at, id), so a page under any
// combination of filters is read from one index alone, however deep. Frozen once landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

/** Each list's filter columns; 001 indexed (tenant_id, <one filter>, created_at, id) for each. */
const LISTS = [
  { table: 'adjustments', prefix: 'adjustments', filters: ['status', 'location_id', 'type'] },
  { table: 'transfers', prefix: 'transfers', filters: ['status', 'from_location_id', 'to_location_id'] },
  { table: 'inbound_shipments', prefix: 'inbound', filters: ['status', 'location_id'] },
] as const;

export async function up(db: Kysely<unknown>, { types: t }: MigrationContext): Promise<void> {
  await db.schema
    .createTable('adjustment_list_counts')
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('location_id', t.bigint, (c) => c.notNull())
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('count', t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('adjustment_list_counts_pkey', ['tenant_id', 'status', 'location_id', 'type'])
    .execute();
  await db.schema
    .createTable('transfer_list_counts')
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('from_location_id', t.bigint, (c) => c.notNull())
    .addColumn('to_location_id', t.bigint, (c) => c.notNull())
    .addColumn('count', t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('transfer_list_counts_pkey', ['tenant_id', 'status', 'from_location_id', 'to_location_id'])
    .execute();
  await db.schema
    .createTable('inbound_list_counts')
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('status', t.text, (c) => c.notNull())
    .addColumn('location_id', t.bigint, (c) => c.notNull())
    .addColumn('count', t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('inbound_list_counts_pkey', ['tenant_id', 'status', 'location_id'])
    .execute();

  await sql`insert into adjustment_list_counts (tenant_id, status, location_id, type, count)
    select tenant_id, status, location_id, type, count(*) from adjustments group by tenant_id, status, location_id, type`.execute(db);
  await sql`insert into transfer_list_counts (tenant_id, status, from_location_id, to_location_id, count)
    select tenant_id, status, from_location_id, to_location_id, count(*) from transfers group by tenant_id, status, from_location_id, to_location_id`.execute(db);
  await sql`insert into inbound_list_counts (tenant_id, status, location_id, count)
    select tenant_id, status, location_id, count(*) from inbound_shipments group by tenant_id, status, location_id`.execute(db);

  for (const { table, prefix, filters } of LISTS) {
    for (const filter of filters) {
      await db.schema.dropIndex(`${prefix}_${filter}_list_idx`).execute();
      const others = filters.filter((f) => f !== filter);
      await db.schema.createIndex(`${prefix}_${filter}_page_idx`).on(table).columns(['tenant_id', filter, 'created_at', 'id', ...others]).execute();
    }
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const { table, prefix, filters } of LISTS) {
    for (const filter of filters) {
      await db.schema.dropIndex(`${prefix}_${filter}_page_idx`).execute();
      await db.schema.createIndex(`${prefix}_${filter}_list_idx`).on(table).columns(['tenant_id', filter, 'created_at', 'id']).execute();
    }
  }
  await db.schema.dropTable('inbound_list_counts').execute();
  await db.schema.dropTable('transfer_list_counts').execute();
  await db.schema.dropTable('adjustment_list_counts').execute();
}
