// Every table of the v1 contract: identity, tenants, catalogue, stock and its ledger, adjustments,
// transfers, inbound shipments, areas, idempotency and webhooks. Frozen once landed.
import { type Kysely, sql } from 'kysely';
import type { MigrationContext } from './migration-context.js';

export async function up(db: Kysely<unknown>, { types: t, idColumn, makeLedgerImmutable }: MigrationContext): Promise<void> {
  const s = db.schema;

  await s
    .createTable('partners')
    .addColumn('id', t.id, idColumn)
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('email', t.text, (c) => c.notNull())
    .addColumn('tier', t.text, (c) => c.notNull().check(sql`tier in ('small', 'medium', 'large')`))
    .addColumn('app_id', t.text, (c) => c.notNull().unique())
    .addColumn('app_key', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await s
    .createTable('api_keys')
    .addColumn('id', t.id, idColumn)
    .addColumn('partner_id', t.bigint, (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('prefix', t.text, (c) => c.notNull().check(sql`prefix in ('pk_live_', 'pk_test_')`))
    .addColumn('key_hash', t.text, (c) => c.notNull().unique())
    .addColumn('last4', t.text, (c) => c.notNull())
    .addColumn('label', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('revoked_at', t.timestamp)
    .execute();
  await s.createIndex('api_keys_partner_idx').on('api_keys').column('partner_id').execute();

  await s
    .createTable('tenants')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('tenant_type', t.text, (c) => c.notNull().defaultTo('live'))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();

  await s
    .createTable('installations')
    .addColumn('id', t.text, (c) => c.primaryKey())
    .addColumn('partner_id', t.bigint, (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('installation_type', t.text, (c) => c.notNull().check(sql`installation_type in ('custom', 'marketplace')`))
    .addColumn('days_connected', t.bigint, (c) => c.notNull().check(sql`days_connected >= 0`))
    .addColumn('installed_at', t.timestamp, (c) => c.notNull())
    .addColumn('uninstall_at', t.timestamp)
    .addColumn('uninstall_reason', t.text)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('installations_partner_tenant_key', ['partner_id', 'tenant_id'])
    .execute();
  await s.createIndex('installations_list_idx').on('installations').columns(['partner_id', 'created_at', 'id']).execute();

  await s
    .createTable('locations')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('code', t.text, (c) => c.notNull())
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('type', t.text, (c) => c.notNull().defaultTo('warehouse'))
    .addColumn('address', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('city', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('state', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('zip', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('subdistrict', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('country', t.text, (c) => c.notNull().defaultTo('Indonesia'))
    .addColumn('pic_name', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('phone', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('latitude', t.text, (c) => c.notNull().defaultTo('0'))
    .addColumn('longitude', t.text, (c) => c.notNull().defaultTo('0'))
    .addColumn('is_default', t.boolean, (c) => c.notNull())
    .addColumn('is_pickup', t.boolean, (c) => c.notNull())
    .addColumn('is_return', t.boolean, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull().defaultTo('active'))
    .addColumn('origin_code', t.text)
    .addColumn('receiving_grid', t.text, (c) => c.notNull().defaultTo('RCV-01'))
    .addColumn('created_by', t.text, (c) => c.notNull())
    .addColumn('updated_by', t.text, (c) => c.notNull())
    .addColumn('deleted_by', t.text)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('deleted_at', t.timestamp)
    .addUniqueConstraint('locations_tenant_code_key', ['tenant_id', 'code'])
    .execute();
  await s.createIndex('locations_tenant_idx').on('locations').columns(['tenant_id', 'id']).execute();

  await s
    .createTable('products')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('category_id', t.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('name', t.text, (c) => c.notNull())
    .addColumn('sku', t.text, (c) => c.notNull())
    .addColumn('barcode', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('description', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('brand', t.text)
    .addColumn('product_type', t.text, (c) => c.notNull().defaultTo('physical'))
    .addColumn('published_price', t.money, (c) => c.notNull())
    .addColumn('cost_price', t.money, (c) => c.notNull())
    .addColumn('weight', t.money, (c) => c.notNull())
    .addColumn('width', t.money, (c) => c.notNull())
    .addColumn('height', t.money, (c) => c.notNull())
    .addColumn('length', t.money, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull().defaultTo('published'))
    .addColumn('is_bundle', t.boolean, (c) => c.notNull())
    .addColumn('is_managed_by_fulfillment', t.boolean, (c) => c.notNull())
    .addColumn('advance_qc', t.boolean, (c) => c.notNull())
    .addColumn('production_batch', t.boolean, (c) => c.notNull())
    .addColumn('cold_storage', t.boolean, (c) => c.notNull())
    .addColumn('fulfillment_manage_by', t.text)
    .addColumn('outbound_expired', t.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('inbound_expired', t.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('outer_barcode', t.text)
    .addColumn('created_by', t.text, (c) => c.notNull())
    .addColumn('updated_by', t.text, (c) => c.notNull())
    .addColumn('deleted_by', t.text)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addColumn('deleted_at', t.timestamp)
    .addUniqueConstraint('products_tenant_sku_key', ['tenant_id', 'sku'])
    .execute();
  await s.createIndex('products_tenant_idx').on('products').columns(['tenant_id', 'id']).execute();

  await s
    .createTable('logistic_preferences')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('logistic_provider_id', t.bigint, (c) => c.notNull())
    .addColumn('logistic_provider_name', t.text, (c) => c.notNull())
    .addColumn('available_service_types', t.json, (c) => c.notNull())
    .addColumn('is_default', t.boolean, (c) => c.notNull())
    .addColumn('is_active', t.boolean, (c) => c.notNull())
    .addColumn('username_enc', t.text, (c) => c.notNull())
    .addColumn('password_enc', t.text, (c) => c.notNull())
    .addColumn('api_key_enc', t.text, (c) => c.notNull())
    .addColumn('api_secret_enc', t.text, (c) => c.notNull())
    .addColumn('account_id', t.text)
    .addColumn('account_name', t.text)
    .addColumn('created_by', t.text, (c) => c.notNull())
    .addColumn('updated_by', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await s.createIndex('logistic_preferences_tenant_idx').on('logistic_preferences').columns(['tenant_id', 'id']).execute();

  await s
    .createTable('stock_levels')
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('location_id', t.bigint, (c) => c.notNull().references('locations.id').onDelete('cascade'))
    .addColumn('product_id', t.bigint, (c) => c.notNull().references('products.id').onDelete('cascade'))
    .addColumn('good', t.quantity, (c) => c.notNull().defaultTo(0))
    .addColumn('damaged', t.quantity, (c) => c.notNull().defaultTo(0))
    .addColumn('reserved', t.quantity, (c) => c.notNull().defaultTo(0))
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('stock_levels_pkey', ['location_id', 'product_id'])
    .addCheckConstraint('stock_levels_good_nonnegative', sql`good >= 0`)
    .addCheckConstraint('stock_levels_damaged_nonnegative', sql`damaged >= 0`)
    .addCheckConstraint('stock_levels_reserved_nonnegative', sql`reserved >= 0`)
    .addCheckConstraint('stock_levels_reserved_within_good', sql`reserved <= good`)
    .execute();
  await s.createIndex('stock_levels_tenant_product_idx').on('stock_levels').columns(['tenant_id', 'product_id']).execute();

  await s
    .createTable('stock_ledger')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull())
    .addColumn('location_id', t.bigint, (c) => c.notNull())
    .addColumn('product_id', t.bigint, (c) => c.notNull())
    .addColumn('bucket', t.text, (c) => c.notNull().check(sql`bucket in ('good', 'damaged', 'reserved')`))
    .addColumn('delta', t.quantity, (c) => c.notNull())
    .addColumn('quantity_before', t.quantity, (c) => c.notNull())
    .addColumn('quantity_after', t.quantity, (c) => c.notNull())
    .addColumn('cause_type', t.text, (c) => c.notNull())
    .addColumn('cause_id', t.text, (c) => c.notNull())
    .addColumn('document_number', t.text)
    .addColumn('actor', t.text, (c) => c.notNull())
    .addColumn('occurred_at', t.timestamp, (c) => c.notNull())
    .addForeignKeyConstraint('stock_ledger_stock_fkey', ['location_id', 'product_id'], 'stock_levels', ['location_id', 'product_id'])
    .addCheckConstraint('stock_ledger_balance', sql`quantity_after = quantity_before + delta`)
    .execute();
  await s.createIndex('stock_ledger_stock_idx').on('stock_ledger').columns(['location_id', 'product_id', 'id']).execute();
  await s.createIndex('stock_ledger_tenant_idx').on('stock_ledger').columns(['tenant_id', 'id']).execute();
  await s.createIndex('stock_ledger_cause_idx').on('stock_ledger').columns(['cause_type', 'cause_id']).execute();

  await s
    .createTable('document_sequences')
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('prefix', t.text, (c) => c.notNull())
    .addColumn('last_value', t.bigint, (c) => c.notNull())
    .addPrimaryKeyConstraint('document_sequences_pkey', ['tenant_id', 'prefix'])
    .execute();

  await s
    .createTable('adjustments')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('partner_id', t.bigint, (c) => c.notNull().references('partners.id'))
    .addColumn('number', t.text, (c) => c.notNull())
    .addColumn('location_id', t.bigint, (c) => c.notNull().references('locations.id'))
    .addColumn('type', t.text, (c) => c.notNull().check(sql`type in ('increase', 'decrease')`))
    .addColumn('stock_source', t.text, (c) => c.notNull().check(sql`stock_source in ('good', 'damaged')`))
    .addColumn('reason', t.text, (c) => c.notNull())
    .addColumn('status', t.text, (c) => c.notNull().check(sql`status in ('pending', 'approved', 'rejected')`))
    .addColumn('total_amount', t.money, (c) => c.notNull())
    .addColumn('item_count', t.bigint, (c) => c.notNull())
    .addColumn('created_by', t.json, (c) => c.notNull())
    .addColumn('approved_at', t.timestamp)
    .addColumn('approved_by', t.json)
    .addColumn('rejected_at', t.timestamp)
    .addColumn('rejected_by', t.json)
    .addColumn('rejection_reason', t.text)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('adjustments_tenant_number_key', ['tenant_id', 'number'])
    .execute();
  for (const filter of ['status', 'location_id', 'type']) {
    await s.createIndex(`adjustments_${filter}_list_idx`).on('adjustments').columns(['tenant_id', filter, 'created_at', 'id']).execute();
  }
  await s.createIndex('adjustments_list_idx').on('adjustments').columns(['tenant_id', 'created_at', 'id']).execute();

  await s
    .createTable('adjustment_items')
    .addColumn('id', t.id, idColumn)
    .addColumn('adjustment_id', t.bigint, (c) => c.notNull().references('adjustments.id').onDelete('cascade'))
    .addColumn('line_no', t.bigint, (c) => c.notNull())
    .addColumn('product_id', t.bigint, (c) => c.notNull().references('products.id'))
    .addColumn('product_name', t.text, (c) => c.notNull())
    .addColumn('sku', t.text, (c) => c.notNull())
    .addColumn('quantity', t.quantity, (c) => c.notNull().check(sql`quantity > 0`))
    .addColumn('unit_cost', t.money, (c) => c.notNull())
    .addColumn('total_cost', t.money, (c) => c.notNull())
    .addColumn('notes', t.text, (c) => c.notNull().defaultTo(''))
    .addUniqueConstraint('adjustment_items_product_key', ['adjustment_id', 'product_id'])
    .execute();

  await s
    .createTable('transfers')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('partner_id', t.bigint, (c) => c.notNull().references('partners.id'))
    .addColumn('number', t.text, (c) => c.notNull())
    .addColumn('from_location_id', t.bigint, (c) => c.notNull().references('locations.id'))
    .addColumn('to_location_id', t.bigint, (c) => c.notNull().references('locations.id'))
    .addColumn('transfer_date', t.date, (c) => c.notNull())
    .addColumn('expected_arrival_date', t.date)
    .addColumn('actual_arrival_date', t.date)
    .addColumn('reference_number', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('status', t.text, (c) =>
      c.notNull().check(sql`status in ('pending', 'approved', 'rejected', 'in_transit', 'completed')`),
    )
    .addColumn('notes', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('total_items', t.bigint, (c) => c.notNull())
    .addColumn('total_quantity', t.quantity, (c) => c.notNull())
    .addColumn('total_value', t.money, (c) => c.notNull())
    .addColumn('created_by', t.json, (c) => c.notNull())
    .addColumn('approved_at', t.timestamp)
    .addColumn('approved_by', t.json)
    .addColumn('rejected_at', t.timestamp)
    .addColumn('rejected_by', t.json)
    .addColumn('rejection_reason', t.text)
    .addColumn('shipped_at', t.timestamp)
    .addColumn('shipped_by', t.json)
    .addColumn('received_at', t.timestamp)
    .addColumn('received_by', t.json)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('transfers_tenant_number_key', ['tenant_id', 'number'])
    .addCheckConstraint('transfers_distinct_locations', sql`from_location_id <> to_location_id`)
    .execute();
  for (const filter of ['status', 'from_location_id', 'to_location_id']) {
    await s.createIndex(`transfers_${filter}_list_idx`).on('transfers').columns(['tenant_id', filter, 'created_at', 'id']).execute();
  }
  await s.createIndex('transfers_list_idx').on('transfers').columns(['tenant_id', 'created_at', 'id']).execute();
  await s.createIndex('transfers_date_idx').on('transfers').columns(['tenant_id', 'transfer_date']).execute();

  await s
    .createTable('transfer_items')
    .addColumn('id', t.id, idColumn)
    .addColumn('transfer_id', t.bigint, (c) => c.notNull().references('transfers.id').onDelete('cascade'))
    .addColumn('line_no', t.bigint, (c) => c.notNull())
    .addColumn('product_id', t.bigint, (c) => c.notNull().references('products.id'))
    .addColumn('product_name', t.text, (c) => c.notNull())
    .addColumn('sku', t.text, (c) => c.notNull())
    .addColumn('quantity', t.quantity, (c) => c.notNull().check(sql`quantity > 0`))
    .addColumn('unit_price', t.money, (c) => c.notNull())
    .addColumn('total_value', t.money, (c) => c.notNull())
    .addColumn('notes', t.text, (c) => c.notNull().defaultTo(''))
    .addUniqueConstraint('transfer_items_product_key', ['transfer_id', 'product_id'])
    .execute();

  await s
    .createTable('inbound_shipments')
    .addColumn('id', t.id, idColumn)
    .addColumn('tenant_id', t.text, (c) => c.notNull().references('tenants.id').onDelete('cascade'))
    .addColumn('code', t.text, (c) => c.notNull())
    .addColumn('inbound_date', t.timestamp, (c) => c.notNull())
    .addColumn('source_type', t.text, (c) => c.notNull())
    .addColumn('source_id', t.bigint, (c) => c.notNull())
    .addColumn('source_code', t.text, (c) => c.notNull())
    .addColumn('location_id', t.bigint, (c) => c.notNull().references('locations.id'))
    .addColumn('status', t.text, (c) => c.notNull().check(sql`status in ('pending', 'partial', 'received', 'cancelled')`))
    .addColumn('received_at', t.timestamp)
    .addColumn('cancelled_at', t.timestamp)
    .addColumn('notes', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('created_by', t.text, (c) => c.notNull())
    .addColumn('updated_by', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('inbound_shipments_tenant_code_key', ['tenant_id', 'code'])
    .execute();
  for (const filter of ['status', 'location_id']) {
    await s.createIndex(`inbound_${filter}_list_idx`).on('inbound_shipments').columns(['tenant_id', filter, 'created_at', 'id']).execute();
  }
  await s.createIndex('inbound_list_idx').on('inbound_shipments').columns(['tenant_id', 'created_at', 'id']).execute();

  await s
    .createTable('inbound_details')
    .addColumn('id', t.id, idColumn)
    .addColumn('inbound_id', t.bigint, (c) => c.notNull().references('inbound_shipments.id').onDelete('cascade'))
    .addColumn('product_id', t.bigint, (c) => c.notNull().references('products.id'))
    .addColumn('expected_quantity', t.quantity, (c) => c.notNull().check(sql`expected_quantity > 0`))
    .addColumn('received_good', t.quantity, (c) => c.notNull().defaultTo(0).check(sql`received_good >= 0`))
    .addColumn('received_damaged', t.quantity, (c) => c.notNull().defaultTo(0).check(sql`received_damaged >= 0`))
    .addColumn('unit', t.text, (c) => c.notNull().defaultTo('pcs'))
    .addColumn('unit_price', t.money, (c) => c.notNull())
    .addColumn('notes', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('grid_id', t.text)
    .addColumn('received_at', t.timestamp)
    .addColumn('received_by', t.text)
    .addColumn('created_by', t.text, (c) => c.notNull())
    .addColumn('updated_by', t.text, (c) => c.notNull())
    .addColumn('deleted_by', t.text)
    .addColumn('deleted_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addCheckConstraint('inbound_details_not_over_received', sql`received_good + received_damaged <= expected_quantity`)
    .execute();
  await s.createIndex('inbound_details_inbound_idx').on('inbound_details').columns(['inbound_id', 'id']).execute();

  await s
    .createTable('areas')
    .addColumn('region_id', t.id, idColumn)
    .addColumn('country', t.text, (c) => c.notNull())
    .addColumn('country_code', t.text, (c) => c.notNull())
    .addColumn('state', t.text, (c) => c.notNull())
    .addColumn('state_code', t.text, (c) => c.notNull())
    .addColumn('city', t.text, (c) => c.notNull())
    .addColumn('city_code', t.text, (c) => c.notNull())
    .addColumn('district', t.text, (c) => c.notNull())
    .addColumn('district_code', t.text, (c) => c.notNull())
    .addColumn('subdistrict', t.text, (c) => c.notNull())
    .addColumn('subdistrict_code', t.text, (c) => c.notNull().unique())
    .addColumn('postcode', t.text, (c) => c.notNull())
    .addColumn('latitude', t.text, (c) => c.notNull())
    .addColumn('longitude', t.text, (c) => c.notNull())
    .addColumn('state_search', t.text, (c) => c.notNull())
    .addColumn('city_search', t.text, (c) => c.notNull())
    .addColumn('district_search', t.text, (c) => c.notNull())
    .addColumn('subdistrict_search', t.text, (c) => c.notNull())
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .execute();
  await s.createIndex('areas_postcode_idx').on('areas').columns(['postcode', 'subdistrict_code']).execute();

  await s
    .createTable('idempotency_records')
    .addColumn('partner_id', t.bigint, (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('key', t.text, (c) => c.notNull())
    .addColumn('fingerprint', t.text, (c) => c.notNull())
    .addColumn('state', t.text, (c) => c.notNull().check(sql`state in ('in_progress', 'complete')`))
    .addColumn('status_code', t.bigint)
    .addColumn('response_body', t.text)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('expires_at', t.timestamp, (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_records_pkey', ['partner_id', 'key'])
    .execute();
  await s.createIndex('idempotency_records_expiry_idx').on('idempotency_records').column('expires_at').execute();

  await s
    .createTable('webhook_endpoints')
    .addColumn('id', t.id, idColumn)
    .addColumn('partner_id', t.bigint, (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('url', t.text, (c) => c.notNull())
    .addColumn('secret_enc', t.text, (c) => c.notNull())
    .addColumn('event_types', t.json, (c) => c.notNull())
    .addColumn('description', t.text, (c) => c.notNull().defaultTo(''))
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('deleted_at', t.timestamp)
    .execute();
  await s.createIndex('webhook_endpoints_partner_idx').on('webhook_endpoints').columns(['partner_id', 'id']).execute();

  await s
    .createTable('event_outbox')
    .addColumn('id', t.id, idColumn)
    .addColumn('event_id', t.text, (c) => c.notNull().unique())
    .addColumn('partner_id', t.bigint, (c) => c.notNull().references('partners.id').onDelete('cascade'))
    .addColumn('tenant_id', t.text, (c) => c.notNull())
    .addColumn('type', t.text, (c) => c.notNull())
    .addColumn('resource_type', t.text, (c) => c.notNull())
    .addColumn('resource_id', t.text, (c) => c.notNull())
    .addColumn('payload', t.json, (c) => c.notNull())
    .addColumn('occurred_at', t.timestamp, (c) => c.notNull())
    .addColumn('dispatched_at', t.timestamp)
    .execute();
  await s.createIndex('event_outbox_pending_idx').on('event_outbox').columns(['dispatched_at', 'id']).execute();

  await s
    .createTable('webhook_deliveries')
    .addColumn('id', t.id, idColumn)
    .addColumn('event_id', t.text, (c) => c.notNull().references('event_outbox.event_id').onDelete('cascade'))
    .addColumn('endpoint_id', t.bigint, (c) => c.notNull().references('webhook_endpoints.id').onDelete('cascade'))
    .addColumn('status', t.text, (c) => c.notNull().check(sql`status in ('pending', 'succeeded', 'failed')`))
    .addColumn('attempts', t.bigint, (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', t.timestamp, (c) => c.notNull())
    .addColumn('locked_by', t.text)
    .addColumn('locked_until', t.timestamp)
    .addColumn('last_status_code', t.bigint)
    .addColumn('last_error', t.text)
    .addColumn('delivered_at', t.timestamp)
    .addColumn('created_at', t.timestamp, (c) => c.notNull())
    .addColumn('updated_at', t.timestamp, (c) => c.notNull())
    .addUniqueConstraint('webhook_deliveries_event_endpoint_key', ['event_id', 'endpoint_id'])
    .execute();
  await s.createIndex('webhook_deliveries_due_idx').on('webhook_deliveries').columns(['status', 'next_attempt_at']).execute();
  await s.createIndex('webhook_deliveries_endpoint_idx').on('webhook_deliveries').columns(['endpoint_id', 'id']).execute();

  await s
    .createTable('webhook_delivery_attempts')
    .addColumn('id', t.id, idColumn)
    .addColumn('delivery_id', t.bigint, (c) => c.notNull().references('webhook_deliveries.id').onDelete('cascade'))
    .addColumn('attempt_no', t.bigint, (c) => c.notNull())
    .addColumn('started_at', t.timestamp, (c) => c.notNull())
    .addColumn('duration_ms', t.bigint, (c) => c.notNull())
    .addColumn('status_code', t.bigint)
    .addColumn('error', t.text)
    .addColumn('succeeded', t.boolean, (c) => c.notNull())
    .addUniqueConstraint('webhook_delivery_attempts_no_key', ['delivery_id', 'attempt_no'])
    .execute();

  // Ledger rows are immutable: the database refuses updates and deletes too.
  await makeLedgerImmutable(db);
}
