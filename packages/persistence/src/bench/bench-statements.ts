// The statements of the inventory benchmark's bare routes, generated from the repositories' own
// prepared queries: each compiles, for a dialect, to the SQL text and parameter array the gateway
// would send for the same parameters, without an open database. The bare routes run them on the
// raw drivers, so a new column changes the repository, never the benchmark. The lot statements
// are the exception (lotStatements below): the repository builds them on every call.
import { type StockKey, addDays, compareFefo, isSellable, wibDate } from '@pits/domain';
import type { CompiledQuery, Insertable } from 'kysely';
import type { DialectName } from '../database-config.js';
import { dialectNamed } from '../dialects/dialect-registry.js';
import { buildOnlyKysely } from '../execution/kysely-bridge.js';
import type { Scope } from '../execution/scope.js';
import type { StatementRunner } from '../execution/statement-runner.js';
import { type ParamRef, type PreparedQuery, markedList, markedRows, preparedQuery } from '../parameterised-query.js';
import {
  adjustmentByNumberQuery,
  adjustmentItemsQuery,
  adjustmentPageQuery,
  insertAdjustmentItemsQuery,
  insertAdjustmentQuery,
  lockAdjustmentQuery,
  markApprovedQuery,
} from '../repositories/adjustment-repository.js';
import { keyOwnerForTenantQuery } from '../repositories/api-key-repository.js';
import { nextDocumentSequenceQuery } from '../repositories/document-sequence-repository.js';
import { adjustmentTotalQuery, changeAdjustmentCountsQuery } from '../repositories/list-count-repository.js';
import { tenantLocationQuery } from '../repositories/location-repository.js';
import { tenantProductsQuery } from '../repositories/product-repository.js';
import {
  databaseNowQuery,
  insertReservationItemsQuery,
  insertReservationQuery,
  lockActiveReservationOfQuery,
  lockReservationQuery,
  reservationByNumberQuery,
  reservationItemsQuery,
  setConsumedQuantityQuery,
  updateActiveReservationQuery,
} from '../repositories/reservation-repository.js';
import { insertLedgerQuery, lockStockQuery, stockLevelsQuery, writeStockQuery } from '../repositories/stock-repository.js';
import { subscribedEndpointsQuery } from '../repositories/webhook-repository.js';
import type { DB, LotAllocationTable, LotStockTable } from '../schema/index.js';

// The row builders the operations use, so the bare routes write the same columns.
export { newAdjustmentItemRow, newAdjustmentRow, type NewAdjustmentFields, type NewAdjustmentLineFields } from '../operations/adjustment-operations.js';
export { emptyLevelRow, ledgerActor, ledgerRow, levelRow } from '../repositories/stock-repository.js';
export { countChanges } from '../repositories/list-count-repository.js';
export type { NewReservation, NewReservationItem } from '../repositories/reservation-repository.js';
// The lot rules the bare routes allocate by (docs/lots.md#holds-and-transfers): plain dates, no decimals.
export { addDays, compareFefo, isSellable, wibDate };

/** One statement as a driver takes it: text with the dialect's placeholders, and their values in order. */
export interface BenchStatement {
  readonly sql: string;
  readonly parameters: readonly unknown[];
}

const compilesOnly: StatementRunner = {
  run(): never {
    throw new Error('a build-only scope compiles statements; run them on a driver of your own');
  },
};

/**
 * A scope that compiles `dialect`'s SQL and runs nothing (its Kysely instance refuses to execute,
 * its runner throws): what prepared queries need to compile without an open database.
 *
 * @example const compiled = someQuery.compile(buildOnlyScope(config.dialect), params);
 */
export function buildOnlyScope(dialect: DialectName): Scope {
  const sqlDialect = dialectNamed(dialect);
  return { db: buildOnlyKysely<DB>(sqlDialect.queryDialect), dialect: sqlDialect, runner: compilesOnly };
}

/**
 * Every statement of the inventory benchmark's routes, for `dialect`: each function takes the
 * parameters of the repository's prepared query and returns its compiled text and values. A call
 * only binds a cached template (parameterised-query.ts), as on the gateway.
 *
 * @example
 * const statements = inventoryStatements(config.dialect);
 * const { sql, parameters } = statements.adjustmentByNumber({ tenantId, number });
 * const row = db.prepare(sql).get(...parameters);
 */
export function inventoryStatements(dialect: DialectName) {
  const scope = buildOnlyScope(dialect);
  const bind =
    <P, R>(query: PreparedQuery<P, R>) =>
    (params: P): CompiledQuery<R> =>
      query.compile(scope, params);
  return {
    /** authenticate() on a tenant-scoped route: the key's partner and its installation for the tenant. */
    keyAndInstallation: bind(keyOwnerForTenantQuery),
    location: bind(tenantLocationQuery),
    products: bind(tenantProductsQuery),
    nextSequence: bind(nextDocumentSequenceQuery),
    insertAdjustment: bind(insertAdjustmentQuery),
    insertItems: bind(insertAdjustmentItemsQuery),
    /** The kept list counts moved (rows from `countChanges`). */
    changeCounts: bind(changeAdjustmentCountsQuery),
    adjustmentByNumber: bind(adjustmentByNumberQuery),
    items: bind(adjustmentItemsQuery),
    stockRead: bind(stockLevelsQuery),
    listTotal: bind(adjustmentTotalQuery),
    listPage: bind(adjustmentPageQuery),
    lockAdjustment: bind(lockAdjustmentQuery),
    /** Creates the missing stock rows and locks all of them (rows from `emptyLevelRow`). */
    lockStock: bind(lockStockQuery),
    /** The new levels of locked rows (rows from `levelRow`). */
    writeStock: bind(writeStockQuery),
    insertLedger: bind(insertLedgerQuery),
    markApproved: bind(markApprovedQuery),
    subscribedEndpoints: bind(subscribedEndpointsQuery),
    // Order holds: create and consume (reservation-operations.ts).
    /** The database's clock (holds are judged by it). */
    databaseNow: bind(databaseNowQuery),
    lockActiveReservationOf: bind(lockActiveReservationOfQuery),
    insertReservation: bind(insertReservationQuery),
    insertReservationItems: bind(insertReservationItemsQuery),
    /** A hold by number, its status as of the database's clock. */
    reservationByNumber: bind(reservationByNumberQuery),
    reservationItems: bind(reservationItemsQuery),
    lockReservation: bind(lockReservationQuery),
    setConsumedQuantity: bind(setConsumedQuantityQuery),
    /** Columns of an active hold changed (one template per set of columns). */
    updateActiveReservation: bind(updateActiveReservationQuery),
  };
}

/** The statements of `inventoryStatements`, by name. */
export type InventoryStatements = ReturnType<typeof inventoryStatements>;

// ---------------------------------------------------------------------------------------------
// Lots (docs/lots.md). lot-repository.ts and markLinesWithLots build these statements with Kysely
// on every call; a bare route that did the same would pay the gateway's building cost and hide it.
// So they are kept here as prepared queries, each built as its repository function builds it, and
// bench-statements.test.ts holds every one to that function's compiled text and parameters on both
// dialects (the benchmark's capture check compares the texts again before each run).

const LOT_COLUMNS = ['lots.id', 'lots.product_id', 'lots.lot_number', 'lots.expiry_date', 'lots.production_date'] as const;

/** readLotLevels: the lots at stock rows (`keys` unique, at most 300). */
const lotLevelsQuery = preparedQuery({
  shape: (p: { keys: StockKey[] }) => p.keys.length,
  build: (scope, param: ParamRef<{ keys: StockKey[] }>, count) =>
    scope.db
      .selectFrom('lot_stock')
      .innerJoin('lots', 'lots.id', 'lot_stock.lot_id')
      .select([...LOT_COLUMNS, 'lot_stock.location_id', 'lot_stock.lot_id', 'lot_stock.good', 'lot_stock.damaged', 'lot_stock.reserved'])
      .where((eb) =>
        eb(
          eb.refTuple('lot_stock.location_id', 'lot_stock.product_id'),
          'in',
          Array.from({ length: count }, (_, i) => eb.tuple(param('keys', i, 'locationId'), param('keys', i, 'productId'))),
        ),
      ),
});

/** databaseToday: the database's clock and the test calendar's shift (`todayOf` turns them into the day). */
const todayQuery = preparedQuery({
  build: (scope, _param: ParamRef<Record<string, never>>) =>
    scope.db.selectNoFrom((eb) => [scope.dialect.clockNow().as('now'), eb.selectFrom('calendar_shift').select('days').where('id', '=', 1).as('shift')]),
});

type HoldLines = { reservationId: number; lineNumbers: number[] };

/** markLinesWithLots, its first statement: the lines that took lots are flagged. */
const markLinesQuery = preparedQuery({
  shape: (p: HoldLines) => p.lineNumbers.length,
  build: (scope, param: ParamRef<HoldLines>, count) =>
    scope.db.updateTable('reservation_items').set({ has_lots: 1 }).where('reservation_id', '=', param('reservationId')).where('line_no', 'in', markedList(param, 'lineNumbers', count)),
});

/** markLinesWithLots, its second: those lines' row ids. */
const lineIdsQuery = preparedQuery({
  shape: (p: HoldLines) => p.lineNumbers.length,
  build: (scope, param: ParamRef<HoldLines>, count) =>
    scope.db.selectFrom('reservation_items').select(['id', 'line_no']).where('reservation_id', '=', param('reservationId')).where('line_no', 'in', markedList(param, 'lineNumbers', count)),
});

/** A lot_allocations row, in the repository's column order. */
export type NewLotAllocation = Omit<Insertable<LotAllocationTable>, 'id'>;
const ALLOCATION_COLUMNS = ['tenant_id', 'document', 'item_id', 'seq', 'lot_id', 'quantity'] as const satisfies readonly (keyof NewLotAllocation)[];

/** insertAllocations (at most 300 rows). */
const insertAllocationsQuery = preparedQuery({
  shape: (p: { rows: NewLotAllocation[] }) => p.rows.length,
  build: (scope, param: ParamRef<{ rows: NewLotAllocation[] }>, count) => scope.db.insertInto('lot_allocations').values(markedRows(param, 'rows', count, ALLOCATION_COLUMNS)),
});

/** A lot_stock row as writeLotLevels writes it, in its column order. */
export type LotStockRow = Omit<Insertable<LotStockTable>, 'id'>;
const LOT_STOCK_COLUMNS = ['tenant_id', 'location_id', 'product_id', 'lot_id', 'good', 'damaged', 'reserved', 'expiring_sent', 'unsellable_sent', 'updated_at'] as const satisfies readonly (keyof LotStockRow)[];

/** writeLotLevels (at most 200 rows): a lot's units at a location, its row created on its first units there. */
const writeLotStockQuery = preparedQuery({
  shape: (p: { rows: LotStockRow[] }) => p.rows.length,
  build: (scope, param: ParamRef<{ rows: LotStockRow[] }>, count) =>
    scope.dialect.upsert(scope.db.insertInto('lot_stock').values(markedRows(param, 'rows', count, LOT_STOCK_COLUMNS)), ['location_id', 'product_id', 'lot_id'], (eb) => ({
      good: eb.ref('excluded.good'),
      damaged: eb.ref('excluded.damaged'),
      reserved: eb.ref('excluded.reserved'),
      updated_at: eb.ref('excluded.updated_at'),
    })),
});

type AllocationsOf = { document: LotAllocationTable['document']; ids: number[] };

/** listAllocations: the lots lines took, in the order taken (`ids` unique, at most 500). */
const allocationsQuery = preparedQuery({
  shape: (p: AllocationsOf) => p.ids.length,
  build: (scope, param: ParamRef<AllocationsOf>, count) =>
    scope.db
      .selectFrom('lot_allocations')
      .innerJoin('lots', 'lots.id', 'lot_allocations.lot_id')
      .select(['lot_allocations.item_id', 'lot_allocations.lot_id', 'lot_allocations.quantity', 'lots.lot_number', 'lots.expiry_date'])
      .where('lot_allocations.document', '=', param('document'))
      .where('lot_allocations.item_id', 'in', markedList(param, 'ids', count))
      .orderBy('lot_allocations.item_id')
      .orderBy('lot_allocations.seq'),
});

/** productPolicies: products' lot settings (`ids` unique, at most 500). */
const policiesQuery = preparedQuery({
  shape: (p: { ids: number[] }) => p.ids.length,
  build: (scope, param: ParamRef<{ ids: number[] }>, count) =>
    scope.db.selectFrom('products').select(['id', 'production_batch', 'inbound_expired', 'outbound_expired']).where('id', 'in', markedList(param, 'ids', count)),
});

/**
 * The statements of a hold on lot-tracked products beyond a plain hold's, for `dialect`, each
 * named after the repository function that sends it. As with `inventoryStatements`, a call only
 * binds a kept template.
 *
 * @example
 * const lots = lotStatements(config.dialect);
 * const today = todayOf(db.prepare(lots.today({}).sql).get());
 */
export function lotStatements(dialect: DialectName) {
  const scope = buildOnlyScope(dialect);
  const bind =
    <P, R>(query: PreparedQuery<P, R>) =>
    (params: P): CompiledQuery<R> =>
      query.compile(scope, params);
  return {
    /** readLotLevels */
    lotLevels: bind(lotLevelsQuery),
    /** databaseToday */
    today: bind(todayQuery),
    /** markLinesWithLots: the flag, then the lines' ids */
    markLines: bind(markLinesQuery),
    lineIds: bind(lineIdsQuery),
    /** insertAllocations */
    insertAllocations: bind(insertAllocationsQuery),
    /** writeLotLevels */
    writeLotStock: bind(writeLotStockQuery),
    /** listAllocations */
    allocations: bind(allocationsQuery),
    /** productPolicies */
    policies: bind(policiesQuery),
  };
}

/** The statements of `lotStatements`, by name. */
export type LotStatements = ReturnType<typeof lotStatements>;

/** The service's today from the row of `today` (databaseToday's arithmetic). */
export function todayOf(row: { now: unknown; shift: unknown }): string {
  return addDays(wibDate(new Date(String(row.now))), Number(row.shift ?? 0));
}
