// The list totals of migration 007 are kept by the database itself: triggers on adjustments,
// transfers and inbound shipments count each row inserted, deleted or moved to another status in
// the statement that wrote it (docs/benchmarks.md#list-totals-and-history). Every writer keeps
// them, whatever path it takes, and a document's insert or status change is one statement, not
// two: one round trip fewer per write on a database server. The counts are already right (the
// repositories kept them until now), so nothing is recounted. Frozen once landed.
import type { Kysely } from 'kysely';
import type { KeptListCount } from '../dialects/sql-dialect.js';
import type { MigrationContext } from './migration-context.js';

const LISTS: readonly KeptListCount[] = [
  { table: 'adjustments', counts: 'adjustment_list_counts', key: ['tenant_id', 'status', 'location_id', 'type'] },
  { table: 'transfers', counts: 'transfer_list_counts', key: ['tenant_id', 'status', 'from_location_id', 'to_location_id'] },
  { table: 'inbound_shipments', counts: 'inbound_list_counts', key: ['tenant_id', 'status', 'location_id'] },
];

export async function up(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  for (const list of LISTS) await context.keepListCounts(db, list);
}

export async function down(db: Kysely<unknown>, context: MigrationContext): Promise<void> {
  for (const list of [...LISTS].reverse()) await context.dropListCountTriggers(db, list);
}
