// The SQL the gateway runs for the adjustment endpoints (and the stock count) of the inventory benchmark, written
// out as text for the bare routes (bare-inventory-server.ts). The benchmark checks these texts
// against what the gateway's persistence functions really send (gateway-sql-capture.ts) before
// it measures anything, so the bare routes cannot drift from the gateway unnoticed.
export type BenchDialect = 'sqlite' | 'postgres';

const JOINED = `select "adjustments".*, "locations"."code" as "location_code", "locations"."name" as "location_name", "locations"."address" as "location_address" from "adjustments" inner join "locations" on "locations"."id" = "adjustments"."location_id"`;

const columns = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ');
const tuple = (width: number) => `(${Array.from({ length: width }, () => '?').join(', ')})`;
const tuples = (count: number, width: number) => Array.from({ length: count }, () => tuple(width)).join(', ');

const ADJUSTMENT_INSERT_COLUMNS = [
  'tenant_id', 'partner_id', 'number', 'location_id', 'type', 'stock_source', 'reason', 'status', 'total_amount', 'item_count',
  'created_by', 'approved_at', 'approved_by', 'rejected_at', 'rejected_by', 'rejection_reason', 'created_at', 'updated_at',
] as const;
const ITEM_INSERT_COLUMNS = ['adjustment_id', 'line_no', 'product_id', 'product_name', 'sku', 'type', 'quantity', 'unit_cost', 'total_cost', 'notes'] as const;
const STOCK_INSERT_COLUMNS = ['tenant_id', 'location_id', 'product_id', 'good', 'damaged', 'reserved', 'updated_at'] as const;
const LEDGER_INSERT_COLUMNS = [
  'tenant_id', 'location_id', 'product_id', 'bucket', 'delta', 'quantity_before', 'quantity_after', 'cause_type', 'cause_id',
  'document_number', 'actor', 'occurred_at',
] as const;

/** `?` placeholders as the dialect's driver wants them (`$1, $2, …` for pg). */
function placeholders(text: string, dialect: BenchDialect): string {
  if (dialect === 'sqlite') return text;
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

/** Every statement text, by dialect; functions take the number of lines of the document. */
export function inventorySql(dialect: BenchDialect) {
  const p = (text: string) => placeholders(text, dialect);
  return {
    /** authenticate() on a tenant-scoped route, every request: the partner of an unrevoked key and its installation for the tenant. */
    keyAndInstallation: p(
      'select "api_keys"."id" as "key_id", "partners"."id" as "partner_id", "partners"."name", "partners"."email", "partners"."tier", "installations"."id" as "installation_id", "installations"."uninstall_at" from "api_keys" inner join "partners" on "partners"."id" = "api_keys"."partner_id" left join "installations" on "installations"."partner_id" = "api_keys"."partner_id" and "installations"."tenant_id" = ? where "api_keys"."key_hash" = ? and "api_keys"."revoked_at" is null',
    ),
    adjustmentByNumber: p(`${JOINED} where "adjustments"."tenant_id" = ? and "adjustments"."number" = ?`),
    items: p('select * from "adjustment_items" where "adjustment_id" = ? order by "line_no"'),
    stockRead: (lines: number) =>
      p(`select "location_id", "product_id", "good", "damaged", "reserved" from "stock_levels" where ("location_id", "product_id") in (${tuples(lines, 2)})`),
    /** The list's total from the kept counts (list-count-repository.ts). */
    listCount: (byStatus: boolean) => p(`select sum("count") as "total" from "adjustment_list_counts" where "tenant_id" = ?${byStatus ? ' and "status" = ?' : ''}`),
    /** The page's ids on the index, then their rows joined. */
    listPage: (byStatus: boolean) =>
      p(
        `select "adjustments".*, "locations"."code" as "location_code", "locations"."name" as "location_name", "locations"."address" as "location_address" from (select "adjustments"."id" from "adjustments" where "adjustments"."tenant_id" = ?${byStatus ? ' and "adjustments"."status" = ?' : ''} order by "adjustments"."created_at" desc, "adjustments"."id" desc limit ? offset ?) as "page" inner join "adjustments" on "adjustments"."id" = "page"."id" inner join "locations" on "locations"."id" = "adjustments"."location_id" order by "adjustments"."created_at" desc, "adjustments"."id" desc`,
      ),
    /** The kept list counts: `rows` combinations moved by one (+1 for a create; -1 and +1 for a decision). */
    countChange: (rows: number) =>
      p(
        `insert into "adjustment_list_counts" ("tenant_id", "status", "location_id", "type", "count") values ${tuples(rows, 5)} on conflict ("tenant_id", "status", "location_id", "type") do update set "count" = "adjustment_list_counts"."count" + "excluded"."count"`,
      ),
    location: p('select * from "locations" where "tenant_id" = ? and "id" = ? and "deleted_at" is null'),
    products: (lines: number) => p(`select "id", "name", "sku", "cost_price" from "products" where "tenant_id" = ? and "deleted_at" is null and "id" in ${tuple(lines)}`),
    nextSequence: p(
      'insert into "document_sequences" ("tenant_id", "prefix", "last_value") values (?, ?, ?) on conflict ("tenant_id", "prefix") do update set "last_value" = "document_sequences"."last_value" + ? returning "last_value"',
    ),
    insertAdjustment: p(`insert into "adjustments" (${columns(ADJUSTMENT_INSERT_COLUMNS)}) values ${tuple(ADJUSTMENT_INSERT_COLUMNS.length)} returning *`),
    insertItems: (lines: number) => p(`insert into "adjustment_items" (${columns(ITEM_INSERT_COLUMNS)}) values ${tuples(lines, ITEM_INSERT_COLUMNS.length)} returning *`),
    lockAdjustment: p(`${JOINED} where "adjustments"."tenant_id" = ? and "adjustments"."number" = ?${dialect === 'postgres' ? ' for update of "adjustments"' : ''}`),
    /** Creates the missing stock rows and locks all of them in one statement, returning the levels. */
    lockStock: (lines: number) =>
      p(
        `insert into "stock_levels" (${columns(STOCK_INSERT_COLUMNS)}) values ${tuples(lines, STOCK_INSERT_COLUMNS.length)} on conflict ("location_id", "product_id") do update set "updated_at" = "stock_levels"."updated_at" returning "location_id", "product_id", "good", "damaged", "reserved"`,
      ),
    /** The new levels of every locked row in one statement. */
    writeStock: (lines: number) =>
      p(
        `insert into "stock_levels" (${columns(STOCK_INSERT_COLUMNS)}) values ${tuples(lines, STOCK_INSERT_COLUMNS.length)} on conflict ("location_id", "product_id") do update set "good" = "excluded"."good", "damaged" = "excluded"."damaged", "reserved" = "excluded"."reserved", "updated_at" = "excluded"."updated_at"`,
      ),
    insertLedger: (lines: number) => p(`insert into "stock_ledger" (${columns(LEDGER_INSERT_COLUMNS)}) values ${tuples(lines, LEDGER_INSERT_COLUMNS.length)}`),
    markApproved: p('update "adjustments" set "status" = ?, "approved_at" = ?, "approved_by" = ?, "updated_at" = ? where "id" = ? and "status" = ?'),
    subscribedEndpoints: p(
      'select "webhook_endpoints"."id", "webhook_endpoints"."partner_id", "webhook_endpoints"."event_types" from "webhook_endpoints" inner join "installations" on "installations"."partner_id" = "webhook_endpoints"."partner_id" where "installations"."tenant_id" = ? and "installations"."uninstall_at" is null and "webhook_endpoints"."deleted_at" is null',
    ),
  };
}

export type InventorySql = ReturnType<typeof inventorySql>;

export type InventoryCase = 'create' | 'detail' | 'list' | 'list-status' | 'approve' | 'count';

/**
 * The statements one request of `kind` runs after authentication, in order, as the bare route
 * runs them (transaction begin/commit left out: both sides wrap the same statements in one).
 * `lines` is the number of lines of the adjustment concerned (for a count: its lines, every one of
 * which differs from the stock, as the benchmark's counts do).
 */
export function plannedStatements(kind: InventoryCase, dialect: BenchDialect, lines: number): string[] {
  const s = inventorySql(dialect);
  switch (kind) {
    case 'create':
      return [s.location, s.products(lines), s.nextSequence, s.insertAdjustment, s.countChange(1), s.insertItems(lines)];
    case 'detail':
      return [s.adjustmentByNumber, s.items, s.stockRead(lines)];
    case 'list':
      return [s.listCount(false), s.listPage(false)];
    case 'list-status':
      return [s.listCount(true), s.listPage(true)];
    case 'approve':
      return [
        s.lockAdjustment,
        s.items,
        s.lockStock(lines),
        s.writeStock(lines),
        s.insertLedger(lines),
        s.markApproved,
        s.countChange(2),
        s.subscribedEndpoints,
      ];
    case 'count':
      return [
        s.location,
        s.products(lines),
        s.lockStock(lines),
        s.nextSequence,
        s.insertAdjustment,
        s.countChange(1),
        s.insertItems(lines),
        s.writeStock(lines),
        s.insertLedger(lines),
        s.subscribedEndpoints,
      ];
  }
}
