// Lots and expiry dates (docs/lots.md): a tenant's lots of a product with their dates, each lot's
// good, damaged and reserved units at a location (a lot-tracked stock row is their sum), the lots
// that hold and transfer lines took, the lot of each ledger row, and the days a test may move the
// service's calendar by. Stock of products flagged `production_batch` before lots existed moves
// into lot LEGACY, with the holds and approved transfers that reserve it. Frozen once landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

export async function up(db: Kysely<unknown>, { types: t, idColumn }: MigrationContext): Promise<void> {
  const s = db.schema;
  await s
    .createTable('lots')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('product_id', t.bigint, (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('lot_number', t.text, (c) => c.notNull())
    .addColumn('expiry_date', t.date)
    .addColumn('production_date', t.date)
    // From the product's outbound_expired (recomputed when it changes): the first WIB day the lot
    // is not sellable, and the first day its stock.lot_expiring notice is due.
    .addColumn('unsellable_from', t.date)
    .addColumn('expiring_from', t.date)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .execute();
  await s.createIndex('lots_product_number_key').on('lots').columns(['product_id', 'lot_number']).unique().execute();
  await s.createIndex('lots_tenant_expiry_idx').on('lots').columns(['tenant_id', 'expiry_date']).execute();
  await s.createIndex('lots_unsellable_idx').on('lots').columns(['unsellable_from']).execute();
  await s.createIndex('lots_expiring_idx').on('lots').columns(['expiring_from']).execute();

  await s
    .createTable('lot_stock')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('location_id', t.bigint, (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('product_id', t.bigint, (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('lot_id', t.bigint, (c) => c.notNull().references('lots.id').onDelete('cascade'))
    .addColumn('good', t.quantity, (c) => c.notNull().defaultTo(0))
    .addColumn('damaged', t.quantity, (c) => c.notNull().defaultTo(0))
    .addColumn('reserved', t.quantity, (c) => c.notNull().defaultTo(0))
    // Whether this lot's stock.lot_expiring, and its turning unsellable, were announced here.
    .addColumn('expiring_sent', t.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('unsellable_sent', t.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint('lot_stock_good_nonnegative', sql`good >= 0`)
    .addCheckConstraint('lot_stock_damaged_nonnegative', sql`damaged >= 0`)
    .addCheckConstraint('lot_stock_reserved_nonnegative', sql`reserved >= 0`)
    .addCheckConstraint('lot_stock_reserved_within_good', sql`reserved <= good`)
    .execute();
  await s.createIndex('lot_stock_location_lot_key').on('lot_stock').columns(['location_id', 'product_id', 'lot_id']).unique().execute();
  await s.createIndex('lot_stock_lot_idx').on('lot_stock').columns(['lot_id']).execute();
  await s.createIndex('lot_stock_tenant_idx').on('lot_stock').columns(['tenant_id', 'product_id']).execute();

  await s
    .createTable('lot_allocations')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('document', t.text, (c) => c.notNull().check(sql`document in ('reservation', 'transfer')`))
    .addColumn('item_id', t.bigint, (c) => c.notNull())
    .addColumn('seq', t.bigint, (c) => c.notNull())
    .addColumn('lot_id', t.bigint, (c) => c.notNull().references('lots.id').onDelete('cascade'))
    .addColumn('quantity', t.quantity, (c) => c.notNull().check(sql`quantity > 0`))
    .execute();
  await s.createIndex('lot_allocations_item_key').on('lot_allocations').columns(['document', 'item_id', 'seq']).unique().execute();

  await s.alterTable('stock_ledger').addColumn('lot_number', t.text).execute();
  // Whether a line took lots, so ending a hold or a transfer of products without lots never looks.
  await s.alterTable('reservation_items').addColumn('has_lots', t.bigint, (c) => c.notNull().defaultTo(0)).execute();
  await s.alterTable('transfer_items').addColumn('has_lots', t.bigint, (c) => c.notNull().defaultTo(0)).execute();
  // The lot a transfer line names, which pins its allocation at approval; null: first expired first out.
  await s.alterTable('transfer_items').addColumn('lot_number', t.text).execute();
  // The lot an adjustment line (or a stock count's) names, from its creation.
  await s.alterTable('adjustment_items').addColumn('lot_id', t.bigint, (c) => c.references('lots.id')).execute();

  await s
    .createTable('calendar_shift')
    .addColumn('id', t.bigint, (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('days', t.bigint, (c) => c.notNull())
    .execute();

  await legacyLots(db);
}

/** Stock of products flagged before lots existed: one lot LEGACY without dates holds it all. */
async function legacyLots(db: Kysely<unknown>): Promise<void> {
  // A boolean column on one database, an integer on the other: both are true by themselves.
  await sql`insert into lots (tenant_id, product_id, lot_number, created_at)
    select p.tenant_id, p.id, 'LEGACY', min(sl.updated_at) from products p
    join stock_levels sl on sl.product_id = p.id
    where p.production_batch
    group by p.tenant_id, p.id`.execute(db);
  await sql`insert into lot_stock (tenant_id, location_id, product_id, lot_id, good, damaged, reserved, updated_at)
    select sl.tenant_id, sl.location_id, sl.product_id, l.id, sl.good, sl.damaged, sl.reserved, sl.updated_at
    from stock_levels sl join lots l on l.product_id = sl.product_id and l.lot_number = 'LEGACY'`.execute(db);
  await sql`insert into lot_allocations (tenant_id, document, item_id, seq, lot_id, quantity)
    select r.tenant_id, 'reservation', ri.id, 1, l.id, ri.quantity
    from reservation_items ri join reservations r on r.id = ri.reservation_id
    join lots l on l.product_id = ri.product_id and l.lot_number = 'LEGACY'
    where r.status = 'active'`.execute(db);
  await sql`insert into lot_allocations (tenant_id, document, item_id, seq, lot_id, quantity)
    select tr.tenant_id, 'transfer', ti.id, 1, l.id, ti.quantity
    from transfer_items ti join transfers tr on tr.id = ti.transfer_id
    join lots l on l.product_id = ti.product_id and l.lot_number = 'LEGACY'
    where tr.status in ('approved', 'in_transit')`.execute(db);
  await sql`update reservation_items set has_lots = 1 where id in (select item_id from lot_allocations where document = 'reservation')`.execute(db);
  await sql`update transfer_items set has_lots = 1 where id in (select item_id from lot_allocations where document = 'transfer')`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('calendar_shift').execute();
  await db.schema.alterTable('adjustment_items').dropColumn('lot_id').execute();
  await db.schema.alterTable('transfer_items').dropColumn('lot_number').execute();
  await db.schema.alterTable('transfer_items').dropColumn('has_lots').execute();
  await db.schema.alterTable('reservation_items').dropColumn('has_lots').execute();
  await db.schema.alterTable('stock_ledger').dropColumn('lot_number').execute();
  await db.schema.dropTable('lot_allocations').execute();
  await db.schema.dropTable('lot_stock').execute();
  await db.schema.dropTable('lots').execute();
}
