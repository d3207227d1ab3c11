-- up 001-initial-schema
create table "partners" ("id" integer primary key autoincrement, "name" text not null, "email" text not null, "tier" text not null check (tier in ('small', 'medium', 'large')), "app_id" text not null unique, "app_key" text not null, "created_at" text not null, "updated_at" text not null);
create table "api_keys" ("id" integer primary key autoincrement, "partner_id" integer not null references "partners" ("id") on delete cascade, "prefix" text not null check (prefix in ('pk_live_', 'pk_test_')), "key_hash" text not null unique, "last4" text not null, "label" text default '' not null, "created_at" text not null, "revoked_at" text);
create index "api_keys_partner_idx" on "api_keys" ("partner_id");
create table "tenants" ("id" text primary key, "name" text not null, "tenant_type" text default 'live' not null, "created_at" text not null, "updated_at" text not null);
create table "installations" ("id" text primary key, "partner_id" integer not null references "partners" ("id") on delete cascade, "tenant_id" text not null references "tenants" ("id") on delete cascade, "installation_type" text not null check (installation_type in ('custom', 'marketplace')), "days_connected" integer not null check (days_connected >= 0), "installed_at" text not null, "uninstall_at" text, "uninstall_reason" text, "created_at" text not null, "updated_at" text not null, constraint "installations_partner_tenant_key" unique ("partner_id", "tenant_id"));
create index "installations_list_idx" on "installations" ("partner_id", "created_at", "id");
create table "locations" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "code" text not null, "name" text not null, "type" text default 'warehouse' not null, "address" text default '' not null, "city" text default '' not null, "state" text default '' not null, "zip" text default '' not null, "subdistrict" text default '' not null, "country" text default 'Indonesia' not null, "pic_name" text default '' not null, "phone" text default '' not null, "latitude" text default '0' not null, "longitude" text default '0' not null, "is_default" integer not null, "is_pickup" integer not null, "is_return" integer not null, "status" text default 'active' not null, "origin_code" text, "receiving_grid" text default 'RCV-01' not null, "created_by" text not null, "updated_by" text not null, "deleted_by" text, "created_at" text not null, "updated_at" text not null, "deleted_at" text, constraint "locations_tenant_code_key" unique ("tenant_id", "code"));
create index "locations_tenant_idx" on "locations" ("tenant_id", "id");
create table "products" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "category_id" integer default 0 not null, "name" text not null, "sku" text not null, "barcode" text default '' not null, "description" text default '' not null, "brand" text, "product_type" text default 'physical' not null, "published_price" text not null, "cost_price" text not null, "weight" text not null, "width" text not null, "height" text not null, "length" text not null, "status" text default 'published' not null, "is_bundle" integer not null, "is_managed_by_fulfillment" integer not null, "advance_qc" integer not null, "production_batch" integer not null, "cold_storage" integer not null, "fulfillment_manage_by" text, "outbound_expired" integer default 0 not null, "inbound_expired" integer default 0 not null, "outer_barcode" text, "created_by" text not null, "updated_by" text not null, "deleted_by" text, "created_at" text not null, "updated_at" text not null, "deleted_at" text, constraint "products_tenant_sku_key" unique ("tenant_id", "sku"));
create index "products_tenant_idx" on "products" ("tenant_id", "id");
create table "logistic_preferences" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "logistic_provider_id" integer not null, "logistic_provider_name" text not null, "available_service_types" text not null, "is_default" integer not null, "is_active" integer not null, "username_enc" text not null, "password_enc" text not null, "api_key_enc" text not null, "api_secret_enc" text not null, "account_id" text, "account_name" text, "created_by" text not null, "updated_by" text not null, "created_at" text not null, "updated_at" text not null);
create index "logistic_preferences_tenant_idx" on "logistic_preferences" ("tenant_id", "id");
create table "stock_levels" ("tenant_id" text not null references "tenants" ("id") on delete cascade, "location_id" integer not null references "locations" ("id") on delete cascade, "product_id" integer not null references "products" ("id") on delete cascade, "good" integer default 0 not null, "damaged" integer default 0 not null, "reserved" integer default 0 not null, "updated_at" text not null, constraint "stock_levels_pkey" primary key ("location_id", "product_id"), constraint "stock_levels_good_nonnegative" check (good >= 0), constraint "stock_levels_damaged_nonnegative" check (damaged >= 0), constraint "stock_levels_reserved_nonnegative" check (reserved >= 0), constraint "stock_levels_reserved_within_good" check (reserved <= good));
create index "stock_levels_tenant_product_idx" on "stock_levels" ("tenant_id", "product_id");
create table "stock_ledger" ("id" integer primary key autoincrement, "tenant_id" text not null, "location_id" integer not null, "product_id" integer not null, "bucket" text not null check (bucket in ('good', 'damaged', 'reserved')), "delta" integer not null, "quantity_before" integer not null, "quantity_after" integer not null, "cause_type" text not null, "cause_id" text not null, "document_number" text, "actor" text not null, "occurred_at" text not null, constraint "stock_ledger_stock_fkey" foreign key ("location_id", "product_id") references "stock_levels" ("location_id", "product_id"), constraint "stock_ledger_balance" check (quantity_after = quantity_before + delta));
create index "stock_ledger_stock_idx" on "stock_ledger" ("location_id", "product_id", "id");
create index "stock_ledger_tenant_idx" on "stock_ledger" ("tenant_id", "id");
create index "stock_ledger_cause_idx" on "stock_ledger" ("cause_type", "cause_id");
create table "document_sequences" ("tenant_id" text not null references "tenants" ("id") on delete cascade, "prefix" text not null, "last_value" integer not null, constraint "document_sequences_pkey" primary key ("tenant_id", "prefix"));
create table "adjustments" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "partner_id" integer not null references "partners" ("id"), "number" text not null, "location_id" integer not null references "locations" ("id"), "type" text not null check (type in ('increase', 'decrease')), "stock_source" text not null check (stock_source in ('good', 'damaged')), "reason" text not null, "status" text not null check (status in ('pending', 'approved', 'rejected')), "total_amount" text not null, "item_count" integer not null, "created_by" text not null, "approved_at" text, "approved_by" text, "rejected_at" text, "rejected_by" text, "rejection_reason" text, "created_at" text not null, "updated_at" text not null, constraint "adjustments_tenant_number_key" unique ("tenant_id", "number"));
create index "adjustments_status_list_idx" on "adjustments" ("tenant_id", "status", "created_at", "id");
create index "adjustments_location_id_list_idx" on "adjustments" ("tenant_id", "location_id", "created_at", "id");
create index "adjustments_type_list_idx" on "adjustments" ("tenant_id", "type", "created_at", "id");
create index "adjustments_list_idx" on "adjustments" ("tenant_id", "created_at", "id");
create table "adjustment_items" ("id" integer primary key autoincrement, "adjustment_id" integer not null references "adjustments" ("id") on delete cascade, "line_no" integer not null, "product_id" integer not null references "products" ("id"), "product_name" text not null, "sku" text not null, "quantity" integer not null check (quantity > 0), "unit_cost" text not null, "total_cost" text not null, "notes" text default '' not null, constraint "adjustment_items_product_key" unique ("adjustment_id", "product_id"));
create table "transfers" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "partner_id" integer not null references "partners" ("id"), "number" text not null, "from_location_id" integer not null references "locations" ("id"), "to_location_id" integer not null references "locations" ("id"), "transfer_date" text not null, "expected_arrival_date" text, "actual_arrival_date" text, "reference_number" text default '' not null, "status" text not null check (status in ('pending', 'approved', 'rejected', 'in_transit', 'completed')), "notes" text default '' not null, "total_items" integer not null, "total_quantity" integer not null, "total_value" text not null, "created_by" text not null, "approved_at" text, "approved_by" text, "rejected_at" text, "rejected_by" text, "rejection_reason" text, "shipped_at" text, "shipped_by" text, "received_at" text, "received_by" text, "created_at" text not null, "updated_at" text not null, constraint "transfers_tenant_number_key" unique ("tenant_id", "number"), constraint "transfers_distinct_locations" check (from_location_id <> to_location_id));
create index "transfers_status_list_idx" on "transfers" ("tenant_id", "status", "created_at", "id");
create index "transfers_from_location_id_list_idx" on "transfers" ("tenant_id", "from_location_id", "created_at", "id");
create index "transfers_to_location_id_list_idx" on "transfers" ("tenant_id", "to_location_id", "created_at", "id");
create index "transfers_list_idx" on "transfers" ("tenant_id", "created_at", "id");
create index "transfers_date_idx" on "transfers" ("tenant_id", "transfer_date");
create table "transfer_items" ("id" integer primary key autoincrement, "transfer_id" integer not null references "transfers" ("id") on delete cascade, "line_no" integer not null, "product_id" integer not null references "products" ("id"), "product_name" text not null, "sku" text not null, "quantity" integer not null check (quantity > 0), "unit_price" text not null, "total_value" text not null, "notes" text default '' not null, constraint "transfer_items_product_key" unique ("transfer_id", "product_id"));
create table "inbound_shipments" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "code" text not null, "inbound_date" text not null, "source_type" text not null, "source_id" integer not null, "source_code" text not null, "location_id" integer not null references "locations" ("id"), "status" text not null check (status in ('pending', 'partial', 'received', 'cancelled')), "received_at" text, "cancelled_at" text, "notes" text default '' not null, "created_by" text not null, "updated_by" text not null, "created_at" text not null, "updated_at" text not null, constraint "inbound_shipments_tenant_code_key" unique ("tenant_id", "code"));
create index "inbound_status_list_idx" on "inbound_shipments" ("tenant_id", "status", "created_at", "id");
create index "inbound_location_id_list_idx" on "inbound_shipments" ("tenant_id", "location_id", "created_at", "id");
create index "inbound_list_idx" on "inbound_shipments" ("tenant_id", "created_at", "id");
create table "inbound_details" ("id" integer primary key autoincrement, "inbound_id" integer not null references "inbound_shipments" ("id") on delete cascade, "product_id" integer not null references "products" ("id"), "expected_quantity" integer not null check (expected_quantity > 0), "received_good" integer default 0 not null check (received_good >= 0), "received_damaged" integer default 0 not null check (received_damaged >= 0), "unit" text default 'pcs' not null, "unit_price" text not null, "notes" text default '' not null, "grid_id" text, "received_at" text, "received_by" text, "created_by" text not null, "updated_by" text not null, "deleted_by" text, "deleted_at" text, "created_at" text not null, "updated_at" text not null, constraint "inbound_details_not_over_received" check (received_good + received_damaged <= expected_quantity));
create index "inbound_details_inbound_idx" on "inbound_details" ("inbound_id", "id");
create table "areas" ("region_id" integer primary key autoincrement, "country" text not null, "country_code" text not null, "state" text not null, "state_code" text not null, "city" text not null, "city_code" text not null, "district" text not null, "district_code" text not null, "subdistrict" text not null, "subdistrict_code" text not null unique, "postcode" text not null, "latitude" text not null, "longitude" text not null, "state_search" text not null, "city_search" text not null, "district_search" text not null, "subdistrict_search" text not null, "created_at" text not null, "updated_at" text not null);
create index "areas_postcode_idx" on "areas" ("postcode", "subdistrict_code");
create table "idempotency_records" ("partner_id" integer not null references "partners" ("id") on delete cascade, "key" text not null, "fingerprint" text not null, "state" text not null check (state in ('in_progress', 'complete')), "status_code" integer, "response_body" text, "created_at" text not null, "expires_at" text not null, constraint "idempotency_records_pkey" primary key ("partner_id", "key"));
create index "idempotency_records_expiry_idx" on "idempotency_records" ("expires_at");
create table "webhook_endpoints" ("id" integer primary key autoincrement, "partner_id" integer not null references "partners" ("id") on delete cascade, "url" text not null, "secret_enc" text not null, "event_types" text not null, "description" text default '' not null, "created_at" text not null, "deleted_at" text);
create index "webhook_endpoints_partner_idx" on "webhook_endpoints" ("partner_id", "id");
create table "event_outbox" ("id" integer primary key autoincrement, "event_id" text not null unique, "partner_id" integer not null references "partners" ("id") on delete cascade, "tenant_id" text not null, "type" text not null, "resource_type" text not null, "resource_id" text not null, "payload" text not null, "occurred_at" text not null, "dispatched_at" text);
create index "event_outbox_pending_idx" on "event_outbox" ("dispatched_at", "id");
create table "webhook_deliveries" ("id" integer primary key autoincrement, "event_id" text not null references "event_outbox" ("event_id") on delete cascade, "endpoint_id" integer not null references "webhook_endpoints" ("id") on delete cascade, "status" text not null check (status in ('pending', 'succeeded', 'failed')), "attempts" integer default 0 not null, "next_attempt_at" text not null, "locked_by" text, "locked_until" text, "last_status_code" integer, "last_error" text, "delivered_at" text, "created_at" text not null, "updated_at" text not null, constraint "webhook_deliveries_event_endpoint_key" unique ("event_id", "endpoint_id"));
create index "webhook_deliveries_due_idx" on "webhook_deliveries" ("status", "next_attempt_at");
create index "webhook_deliveries_endpoint_idx" on "webhook_deliveries" ("endpoint_id", "id");
create table "webhook_delivery_attempts" ("id" integer primary key autoincrement, "delivery_id" integer not null references "webhook_deliveries" ("id") on delete cascade, "attempt_no" integer not null, "started_at" text not null, "duration_ms" integer not null, "status_code" integer, "error" text, "succeeded" integer not null, constraint "webhook_delivery_attempts_no_key" unique ("delivery_id", "attempt_no"));
create trigger stock_ledger_no_update before update on stock_ledger
      begin select raise(abort, 'stock_ledger rows are immutable'); end;
create trigger stock_ledger_no_delete before delete on stock_ledger
      begin select raise(abort, 'stock_ledger rows are immutable'); end;
-- up 002-area-search
create table "area_regions" ("id" integer primary key autoincrement, "level" text not null check (level in ('province', 'city', 'district')), "code" text not null, "name_search" text not null, "area_count" integer default 0 not null, constraint "area_regions_level_code_key" unique ("level", "code"));
insert into area_regions (level, code, name_search, area_count)
      select ?, "state_code", min("state_search"), count(*) from areas group by "state_code";
-- parameters: ["province"]
insert into area_regions (level, code, name_search, area_count)
      select ?, "city_code", min("city_search"), count(*) from areas group by "city_code";
-- parameters: ["city"]
insert into area_regions (level, code, name_search, area_count)
      select ?, "district_code", min("district_search"), count(*) from areas group by "district_code";
-- parameters: ["district"]
create virtual table areas_fts using fts5(subdistrict_search, content='areas', content_rowid='region_id', tokenize='trigram', columnsize=0);
create virtual table area_regions_fts using fts5(name_search, content='area_regions', content_rowid='id', tokenize='trigram', columnsize=0);
insert into areas_fts(areas_fts) values ('rebuild');
insert into area_regions_fts(area_regions_fts) values ('rebuild');
-- up 003-crash-safe-idempotency
alter table "idempotency_records" add column "claim_token" text;
create index "webhook_deliveries_retention_idx" on "webhook_deliveries" ("status", "updated_at");
create index "event_outbox_occurred_idx" on "event_outbox" ("occurred_at", "id");
-- up 004-webhook-attempt-body
alter table "webhook_delivery_attempts" add column "response_body" text;
-- up 005-installation-grants
create table "installation_grants" ("tenant_id" text not null references "tenants" ("id") on delete cascade, "partner_id" integer not null references "partners" ("id") on delete cascade, "granted_at" text not null, "withdrawn_at" text, "withdraw_reason" text, "created_at" text not null, "updated_at" text not null, constraint "installation_grants_pkey" primary key ("tenant_id", "partner_id"));
create index "installation_grants_partner_idx" on "installation_grants" ("partner_id", "tenant_id");
insert into installation_grants (tenant_id, partner_id, granted_at, withdrawn_at, withdraw_reason, created_at, updated_at)
    select tenant_id, partner_id, created_at, null, null, created_at, updated_at from installations;
-- up 006-adjustment-item-type
alter table "adjustment_items" add column "type" text default 'increase' not null check (type in ('increase', 'decrease'));
update adjustment_items set type = (select adjustments.type from adjustments where adjustments.id = adjustment_items.adjustment_id);
-- up 007-list-counts
create table "adjustment_list_counts" ("tenant_id" text not null references "tenants" ("id") on delete cascade, "status" text not null, "location_id" integer not null, "type" text not null, "count" integer not null, constraint "adjustment_list_counts_pkey" primary key ("tenant_id", "status", "location_id", "type"));
create table "transfer_list_counts" ("tenant_id" text not null references "tenants" ("id") on delete cascade, "status" text not null, "from_location_id" integer not null, "to_location_id" integer not null, "count" integer not null, constraint "transfer_list_counts_pkey" primary key ("tenant_id", "status", "from_location_id", "to_location_id"));
create table "inbound_list_counts" ("tenant_id" text not null references "tenants" ("id") on delete cascade, "status" text not null, "location_id" integer not null, "count" integer not null, constraint "inbound_list_counts_pkey" primary key ("tenant_id", "status", "location_id"));
insert into adjustment_list_counts (tenant_id, status, location_id, type, count)
    select tenant_id, status, location_id, type, count(*) from adjustments group by tenant_id, status, location_id, type;
insert into transfer_list_counts (tenant_id, status, from_location_id, to_location_id, count)
    select tenant_id, status, from_location_id, to_location_id, count(*) from transfers group by tenant_id, status, from_location_id, to_location_id;
insert into inbound_list_counts (tenant_id, status, location_id, count)
    select tenant_id, status, location_id, count(*) from inbound_shipments group by tenant_id, status, location_id;
drop index "adjustments_status_list_idx";
create index "adjustments_status_page_idx" on "adjustments" ("tenant_id", "status", "created_at", "id", "location_id", "type");
drop index "adjustments_location_id_list_idx";
create index "adjustments_location_id_page_idx" on "adjustments" ("tenant_id", "location_id", "created_at", "id", "status", "type");
drop index "adjustments_type_list_idx";
create index "adjustments_type_page_idx" on "adjustments" ("tenant_id", "type", "created_at", "id", "status", "location_id");
drop index "transfers_status_list_idx";
create index "transfers_status_page_idx" on "transfers" ("tenant_id", "status", "created_at", "id", "from_location_id", "to_location_id");
drop index "transfers_from_location_id_list_idx";
create index "transfers_from_location_id_page_idx" on "transfers" ("tenant_id", "from_location_id", "created_at", "id", "status", "to_location_id");
drop index "transfers_to_location_id_list_idx";
create index "transfers_to_location_id_page_idx" on "transfers" ("tenant_id", "to_location_id", "created_at", "id", "status", "from_location_id");
drop index "inbound_status_list_idx";
create index "inbound_status_page_idx" on "inbound_shipments" ("tenant_id", "status", "created_at", "id", "location_id");
drop index "inbound_location_id_list_idx";
create index "inbound_location_id_page_idx" on "inbound_shipments" ("tenant_id", "location_id", "created_at", "id", "status");
-- up 008-reservations
alter table "stock_levels" add column "reserved_for_orders" integer default 0 not null check (reserved_for_orders >= 0 and reserved_for_orders <= reserved);
alter table "stock_levels" add column "version" integer default 0 not null;
create table "reservations" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "partner_id" integer not null, "number" text not null, "reference" text not null, "location_id" integer not null references "locations" ("id") on delete cascade, "status" text not null check (status in ('active', 'consumed', 'released', 'expired')), "expires_at" text not null, "consumed_at" text, "released_at" text, "release_reason" text, "created_by" text not null, "created_at" text not null, "updated_at" text not null);
create unique index "reservations_number_key" on "reservations" ("tenant_id", "number");
create unique index "reservations_active_reference_key" on "reservations" ("tenant_id", "reference") where "status" = 'active';
create index "reservations_expiry_idx" on "reservations" ("expires_at", "id") where "status" = 'active';
create index "reservations_list_idx" on "reservations" ("tenant_id", "created_at", "id");
create index "reservations_status_list_idx" on "reservations" ("tenant_id", "status", "created_at", "id");
create table "reservation_items" ("id" integer primary key autoincrement, "reservation_id" integer not null references "reservations" ("id") on delete cascade, "line_no" integer not null, "product_id" integer not null references "products" ("id") on delete cascade, "sku" text not null, "product_name" text not null, "quantity" integer not null check (quantity > 0), "consumed_quantity" integer default 0 not null check (consumed_quantity >= 0 and consumed_quantity <= quantity));
create unique index "reservation_items_reservation_idx" on "reservation_items" ("reservation_id", "line_no");
create index "reservation_items_product_idx" on "reservation_items" ("product_id", "reservation_id");
-- up 009-webhook-endpoint-active
alter table "webhook_endpoints" add column "is_active" integer default true not null;
alter table "webhook_endpoints" add column "updated_at" text;
-- up 010-ledger-bucket-index
create index "stock_ledger_bucket_idx" on "stock_ledger" ("location_id", "product_id", "bucket", "id");
-- up 011-lots
create table "lots" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "product_id" integer not null references "products" ("id") on delete cascade, "lot_number" text not null, "expiry_date" text, "production_date" text, "unsellable_from" text, "expiring_from" text, "created_at" text not null);
create unique index "lots_product_number_key" on "lots" ("product_id", "lot_number");
create index "lots_tenant_expiry_idx" on "lots" ("tenant_id", "expiry_date");
create index "lots_unsellable_idx" on "lots" ("unsellable_from");
create index "lots_expiring_idx" on "lots" ("expiring_from");
create table "lot_stock" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "location_id" integer not null references "locations" ("id") on delete cascade, "product_id" integer not null references "products" ("id") on delete cascade, "lot_id" integer not null references "lots" ("id") on delete cascade, "good" integer default 0 not null, "damaged" integer default 0 not null, "reserved" integer default 0 not null, "expiring_sent" integer default 0 not null, "unsellable_sent" integer default 0 not null, "updated_at" text not null, constraint "lot_stock_good_nonnegative" check (good >= 0), constraint "lot_stock_damaged_nonnegative" check (damaged >= 0), constraint "lot_stock_reserved_nonnegative" check (reserved >= 0), constraint "lot_stock_reserved_within_good" check (reserved <= good));
create unique index "lot_stock_location_lot_key" on "lot_stock" ("location_id", "product_id", "lot_id");
create index "lot_stock_lot_idx" on "lot_stock" ("lot_id");
create index "lot_stock_tenant_idx" on "lot_stock" ("tenant_id", "product_id");
create table "lot_allocations" ("id" integer primary key autoincrement, "tenant_id" text not null references "tenants" ("id") on delete cascade, "document" text not null check (document in ('reservation', 'transfer')), "item_id" integer not null, "seq" integer not null, "lot_id" integer not null references "lots" ("id") on delete cascade, "quantity" integer not null check (quantity > 0));
create unique index "lot_allocations_item_key" on "lot_allocations" ("document", "item_id", "seq");
alter table "stock_ledger" add column "lot_number" text;
alter table "reservation_items" add column "has_lots" integer default 0 not null;
alter table "transfer_items" add column "has_lots" integer default 0 not null;
alter table "transfer_items" add column "lot_number" text;
alter table "adjustment_items" add column "lot_id" integer references "lots" ("id");
create table "calendar_shift" ("id" integer primary key check (id = 1), "days" integer not null);
insert into lots (tenant_id, product_id, lot_number, created_at)
    select p.tenant_id, p.id, 'LEGACY', min(sl.updated_at) from products p
    join stock_levels sl on sl.product_id = p.id
    where p.production_batch
    group by p.tenant_id, p.id;
insert into lot_stock (tenant_id, location_id, product_id, lot_id, good, damaged, reserved, updated_at)
    select sl.tenant_id, sl.location_id, sl.product_id, l.id, sl.good, sl.damaged, sl.reserved, sl.updated_at
    from stock_levels sl join lots l on l.product_id = sl.product_id and l.lot_number = 'LEGACY';
insert into lot_allocations (tenant_id, document, item_id, seq, lot_id, quantity)
    select r.tenant_id, 'reservation', ri.id, 1, l.id, ri.quantity
    from reservation_items ri join reservations r on r.id = ri.reservation_id
    join lots l on l.product_id = ri.product_id and l.lot_number = 'LEGACY'
    where r.status = 'active';
insert into lot_allocations (tenant_id, document, item_id, seq, lot_id, quantity)
    select tr.tenant_id, 'transfer', ti.id, 1, l.id, ti.quantity
    from transfer_items ti join transfers tr on tr.id = ti.transfer_id
    join lots l on l.product_id = ti.product_id and l.lot_number = 'LEGACY'
    where tr.status in ('approved', 'in_transit');
update reservation_items set has_lots = 1 where id in (select item_id from lot_allocations where document = 'reservation');
update transfer_items set has_lots = 1 where id in (select item_id from lot_allocations where document = 'transfer');
-- up 012-lot-notice-indexes
create index "lot_stock_expiring_due_idx" on "lot_stock" ("lot_id") where "expiring_sent" = 0;
create index "lot_stock_unsellable_due_idx" on "lot_stock" ("lot_id") where "unsellable_sent" = 0;
-- up 013-newest-ledger-ids
alter table "stock_levels" add column "good_ledger_id" integer;
alter table "stock_levels" add column "damaged_ledger_id" integer;
alter table "stock_levels" add column "reserved_ledger_id" integer;

    update stock_levels set
      good_ledger_id = (select max(l.id) from stock_ledger l where l.location_id = stock_levels.location_id and l.product_id = stock_levels.product_id and l.bucket = 'good'),
      damaged_ledger_id = (select max(l.id) from stock_ledger l where l.location_id = stock_levels.location_id and l.product_id = stock_levels.product_id and l.bucket = 'damaged'),
      reserved_ledger_id = (select max(l.id) from stock_ledger l where l.location_id = stock_levels.location_id and l.product_id = stock_levels.product_id and l.bucket = 'reserved')
  ;
drop index "stock_ledger_bucket_idx";
-- up 014-list-count-triggers
create trigger "adjustments_count_insert" after insert on "adjustments"
      begin insert into "adjustment_list_counts" ("tenant_id", "status", "location_id", "type", "count") values (new."tenant_id", new."status", new."location_id", new."type", 1) on conflict ("tenant_id", "status", "location_id", "type") do update set "count" = "adjustment_list_counts"."count" + excluded."count"; end;
create trigger "adjustments_count_update" after update of "tenant_id", "status", "location_id", "type" on "adjustments" when old."tenant_id" is distinct from new."tenant_id" or old."status" is distinct from new."status" or old."location_id" is distinct from new."location_id" or old."type" is distinct from new."type"
      begin insert into "adjustment_list_counts" ("tenant_id", "status", "location_id", "type", "count") values (old."tenant_id", old."status", old."location_id", old."type", -1) on conflict ("tenant_id", "status", "location_id", "type") do update set "count" = "adjustment_list_counts"."count" + excluded."count"; insert into "adjustment_list_counts" ("tenant_id", "status", "location_id", "type", "count") values (new."tenant_id", new."status", new."location_id", new."type", 1) on conflict ("tenant_id", "status", "location_id", "type") do update set "count" = "adjustment_list_counts"."count" + excluded."count"; end;
create trigger "adjustments_count_delete" after delete on "adjustments"
      begin insert into "adjustment_list_counts" ("tenant_id", "status", "location_id", "type", "count") values (old."tenant_id", old."status", old."location_id", old."type", -1) on conflict ("tenant_id", "status", "location_id", "type") do update set "count" = "adjustment_list_counts"."count" + excluded."count"; end;
create trigger "transfers_count_insert" after insert on "transfers"
      begin insert into "transfer_list_counts" ("tenant_id", "status", "from_location_id", "to_location_id", "count") values (new."tenant_id", new."status", new."from_location_id", new."to_location_id", 1) on conflict ("tenant_id", "status", "from_location_id", "to_location_id") do update set "count" = "transfer_list_counts"."count" + excluded."count"; end;
create trigger "transfers_count_update" after update of "tenant_id", "status", "from_location_id", "to_location_id" on "transfers" when old."tenant_id" is distinct from new."tenant_id" or old."status" is distinct from new."status" or old."from_location_id" is distinct from new."from_location_id" or old."to_location_id" is distinct from new."to_location_id"
      begin insert into "transfer_list_counts" ("tenant_id", "status", "from_location_id", "to_location_id", "count") values (old."tenant_id", old."status", old."from_location_id", old."to_location_id", -1) on conflict ("tenant_id", "status", "from_location_id", "to_location_id") do update set "count" = "transfer_list_counts"."count" + excluded."count"; insert into "transfer_list_counts" ("tenant_id", "status", "from_location_id", "to_location_id", "count") values (new."tenant_id", new."status", new."from_location_id", new."to_location_id", 1) on conflict ("tenant_id", "status", "from_location_id", "to_location_id") do update set "count" = "transfer_list_counts"."count" + excluded."count"; end;
create trigger "transfers_count_delete" after delete on "transfers"
      begin insert into "transfer_list_counts" ("tenant_id", "status", "from_location_id", "to_location_id", "count") values (old."tenant_id", old."status", old."from_location_id", old."to_location_id", -1) on conflict ("tenant_id", "status", "from_location_id", "to_location_id") do update set "count" = "transfer_list_counts"."count" + excluded."count"; end;
create trigger "inbound_shipments_count_insert" after insert on "inbound_shipments"
      begin insert into "inbound_list_counts" ("tenant_id", "status", "location_id", "count") values (new."tenant_id", new."status", new."location_id", 1) on conflict ("tenant_id", "status", "location_id") do update set "count" = "inbound_list_counts"."count" + excluded."count"; end;
create trigger "inbound_shipments_count_update" after update of "tenant_id", "status", "location_id" on "inbound_shipments" when old."tenant_id" is distinct from new."tenant_id" or old."status" is distinct from new."status" or old."location_id" is distinct from new."location_id"
      begin insert into "inbound_list_counts" ("tenant_id", "status", "location_id", "count") values (old."tenant_id", old."status", old."location_id", -1) on conflict ("tenant_id", "status", "location_id") do update set "count" = "inbound_list_counts"."count" + excluded."count"; insert into "inbound_list_counts" ("tenant_id", "status", "location_id", "count") values (new."tenant_id", new."status", new."location_id", 1) on conflict ("tenant_id", "status", "location_id") do update set "count" = "inbound_list_counts"."count" + excluded."count"; end;
create trigger "inbound_shipments_count_delete" after delete on "inbound_shipments"
      begin insert into "inbound_list_counts" ("tenant_id", "status", "location_id", "count") values (old."tenant_id", old."status", old."location_id", -1) on conflict ("tenant_id", "status", "location_id") do update set "count" = "inbound_list_counts"."count" + excluded."count"; end;
-- down 014-list-count-triggers
drop trigger if exists "inbound_shipments_count_insert";
drop trigger if exists "inbound_shipments_count_update";
drop trigger if exists "inbound_shipments_count_delete";
drop trigger if exists "transfers_count_insert";
drop trigger if exists "transfers_count_update";
drop trigger if exists "transfers_count_delete";
drop trigger if exists "adjustments_count_insert";
drop trigger if exists "adjustments_count_update";
drop trigger if exists "adjustments_count_delete";
-- down 013-newest-ledger-ids
create index "stock_ledger_bucket_idx" on "stock_ledger" ("location_id", "product_id", "bucket", "id");
alter table "stock_levels" drop column "reserved_ledger_id";
alter table "stock_levels" drop column "damaged_ledger_id";
alter table "stock_levels" drop column "good_ledger_id";
-- down 012-lot-notice-indexes
drop index "lot_stock_unsellable_due_idx";
drop index "lot_stock_expiring_due_idx";
-- down 011-lots
drop table "calendar_shift";
alter table "adjustment_items" drop column "lot_id";
alter table "transfer_items" drop column "lot_number";
alter table "transfer_items" drop column "has_lots";
alter table "reservation_items" drop column "has_lots";
alter table "stock_ledger" drop column "lot_number";
drop table "lot_allocations";
drop table "lot_stock";
drop table "lots";
-- down 010-ledger-bucket-index
drop index "stock_ledger_bucket_idx";
-- down 009-webhook-endpoint-active
alter table "webhook_endpoints" drop column "updated_at";
alter table "webhook_endpoints" drop column "is_active";
-- down 008-reservations
drop table "reservation_items";
drop table "reservations";
alter table "stock_levels" drop column "version";
alter table "stock_levels" drop column "reserved_for_orders";
-- down 007-list-counts
drop index "adjustments_status_page_idx";
create index "adjustments_status_list_idx" on "adjustments" ("tenant_id", "status", "created_at", "id");
drop index "adjustments_location_id_page_idx";
create index "adjustments_location_id_list_idx" on "adjustments" ("tenant_id", "location_id", "created_at", "id");
drop index "adjustments_type_page_idx";
create index "adjustments_type_list_idx" on "adjustments" ("tenant_id", "type", "created_at", "id");
drop index "transfers_status_page_idx";
create index "transfers_status_list_idx" on "transfers" ("tenant_id", "status", "created_at", "id");
drop index "transfers_from_location_id_page_idx";
create index "transfers_from_location_id_list_idx" on "transfers" ("tenant_id", "from_location_id", "created_at", "id");
drop index "transfers_to_location_id_page_idx";
create index "transfers_to_location_id_list_idx" on "transfers" ("tenant_id", "to_location_id", "created_at", "id");
drop index "inbound_status_page_idx";
create index "inbound_status_list_idx" on "inbound_shipments" ("tenant_id", "status", "created_at", "id");
drop index "inbound_location_id_page_idx";
create index "inbound_location_id_list_idx" on "inbound_shipments" ("tenant_id", "location_id", "created_at", "id");
drop table "inbound_list_counts";
drop table "transfer_list_counts";
drop table "adjustment_list_counts";
-- down 006-adjustment-item-type
alter table "adjustment_items" drop column "type";
-- down 005-installation-grants
drop table "installation_grants";
-- down 004-webhook-attempt-body
alter table "webhook_delivery_attempts" drop column "response_body";
-- down 003-crash-safe-idempotency
drop index "event_outbox_occurred_idx";
drop index "webhook_deliveries_retention_idx";
alter table "idempotency_records" drop column "claim_token";
-- down 002-area-search
drop table if exists areas_fts;
drop table if exists area_regions_fts;
drop table "area_regions";
