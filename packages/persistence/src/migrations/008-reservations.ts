// Order holds (docs/holds.md): reservations and their lines; on every stock row the part of
// `reserved` that holds keep, and a version that grows with every change of the row, so a
// receiver of stock.level_changed can drop an event older than one it has applied. Frozen once
// landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

export async function up(db: Kysely<unknown>, { types: t, idColumn }: MigrationContext): Promise<void> {
  const s = db.schema;
  await s
    .alterTable('stock_levels')
    .addColumn('reserved_for_orders', t.quantity, (c) => c.notNull().defaultTo(0).check(sql`reserved_for_orders >= 0 and reserved_for_orders <= reserved`))
    .execute();
  await s.alterTable('stock_levels').addColumn('version', t.bigint, (c) => c.notNull().defaultTo(0)).execute();

  await s
    .createTable('reservations')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('partner_id', t.bigint, (c) => c.notNull())
    .addColumn('number', t.text, (c) => c.notNull())
    .addColumn('reference', t.text, (c) => c.notNull())
    .addColumn('location_id', t.bigint, (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('status', t.text, (c) => c.notNull().check(sql`status in ('active', 'consumed', 'released', 'expired')`))
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addColumn('consumed_at', t.timestamp)
    .addColumn('released_at', t.timestamp)
    .addColumn('release_reason', t.text)
    .addColumn('created_by', t.json, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await s.createIndex('reservations_number_key').on('reservations').columns(['tenant_id', 'number']).unique().execute();
  // One active hold per order: the database refuses a second, whatever the concurrency.
  await s.createIndex('reservations_active_reference_key').on('reservations').columns(['tenant_id', 'reference']).unique().where(sql.ref('status'), '=', 'active').execute();
  // The expiry sweep reads active holds by expiry, and nothing else.
  await s.createIndex('reservations_expiry_idx').on('reservations').columns(['expires_at', 'id']).where(sql.ref('status'), '=', 'active').execute();
  await s.createIndex('reservations_list_idx').on('reservations').columns(['tenant_id', 'created_at', 'id']).execute();
  await s.createIndex('reservations_status_list_idx').on('reservations').columns(['tenant_id', 'status', 'created_at', 'id']).execute();

  await s
    .createTable('reservation_items')
    .addColumn('id', t.id, idColumn)
    .addColumn('reservation_id', t.bigint, (c) => c.notNull().references('reservations.id').onDelete('cascade'))
    .addColumn('line_no', t.bigint, (c) => c.notNull())
    .addColumn('product_id', t.bigint, (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('sku', t.text, (c) => c.notNull())
    .addColumn('product_name', t.text, (c) => c.notNull())
    .addColumn('quantity', t.quantity, (c) => c.notNull().check(sql`quantity > 0`))
    .addColumn('consumed_quantity', t.quantity, (c) => c.notNull().defaultTo(0).check(sql`consumed_quantity >= 0 and consumed_quantity <= quantity`))
    .execute();
  await s.createIndex('reservation_items_reservation_idx').on('reservation_items').columns(['reservation_id', 'line_no']).unique().execute();
  await s.createIndex('reservation_items_product_idx').on('reservation_items').columns(['product_id', 'reservation_id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('reservation_items').execute();
  await db.schema.dropTable('reservations').execute();
  await db.schema.alterTable('stock_levels').dropColumn('version').execute();
  await db.schema.alterTable('stock_levels').dropColumn('reserved_for_orders').execute();
}
