// The statements of the inventory benchmark's bare routes, generated from the repositories' own
// prepared queries: each compiles, for a dialect, to the SQL text and parameter array the gateway
// would send for the same parameters, without an open database. The bare routes run them on the
// raw drivers, so a new column changes the repository, never the benchmark.
import { addDays, compareFefo, isSellable, wibDate } from '@pits/domain';
import type { CompiledQuery } from 'kysely';
import type { DialectName } from '../database-config.js';
import { dialectNamed } from '../dialects/dialect-registry.js';
import { buildOnlyKysely } from '../execution/kysely-bridge.js';
import type { Scope } from '../execution/scope.js';
import type { StatementRunner } from '../execution/statement-runner.js';
import type { PreparedQuery } from '../parameterised-query.js';
import {
  adjustmentDetailQuery,
  adjustmentPageQuery,
  insertAdjustmentItemsQuery,
  insertAdjustmentQuery,
  insertAdjustmentWithLinesQuery,
  lockAdjustmentWithItemsQuery,
  markApprovedQuery,
} from '../repositories/adjustment-repository.js';
import { keyOwnerForTenantQuery } from '../repositories/api-key-repository.js';
import { nextDocumentSequenceQuery } from '../repositories/document-sequence-repository.js';
import { adjustmentTotalQuery } from '../repositories/list-count-repository.js';
import {
  databaseTodayQuery,
  insertLotAllocationsQuery,
  lotAllocationsQuery,
  lotLevelsQuery,
  productPoliciesQuery,
  writeLotStockQuery,
} from '../repositories/lot-repository.js';
import { tenantLocationWithProductsQuery } from '../repositories/product-repository.js';
import {
  databaseNowQuery,
  insertReservationItemsQuery,
  insertReservationQuery,
  lockActiveReservationOfQuery,
  lotLineIdsQuery,
  markLotLinesQuery,
  lockReservationQuery,
  reservationByNumberQuery,
  reservationItemsQuery,
  setConsumedQuantityQuery,
  updateActiveReservationQuery,
} from '../repositories/reservation-repository.js';
import { insertLedgerQuery, lockStockQuery, stockLevelsQuery, writeLedgerWithStockQuery, writeStockQuery } from '../repositories/stock-repository.js';
import { subscribedEndpointsQuery } from '../repositories/event-outbox-repository.js';
import type { DB } from '../schema/index.js';

// The row builders the operations use, so the bare routes write the same columns.
export { newAdjustmentItemRow, newAdjustmentLineRow, newAdjustmentRow, type NewAdjustmentFields, type NewAdjustmentLineFields } from '../use-cases/adjustment-operations.js';
export type { NewAdjustmentLine } from '../repositories/adjustment-repository.js';
export { type WrittenLedgerRow, emptyLevelRow, ledgerActor, ledgerRow, levelRow, newestLedgerIds } from '../repositories/stock-repository.js';
// The key `newestLedgerIds` maps a stock row by.
export { stockKey } from '@pits/domain';
export type { NewReservation, NewReservationItem } from '../repositories/reservation-repository.js';
export type { LotStockRow, NewLotAllocation } from '../repositories/lot-repository.js';
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

/** Binds prepared queries to `dialect`'s build-only scope: a call compiles from a kept template. */
function binder(dialect: DialectName) {
  const scope = buildOnlyScope(dialect);
  return <P, R>(query: PreparedQuery<P, R>) =>
    (params: P): CompiledQuery<R> =>
      query.compile(scope, params);
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
  const bind = binder(dialect);
  return {
    /** authenticate() on a tenant-scoped route: the key's partner and its installation for the tenant. */
    keyAndInstallation: bind(keyOwnerForTenantQuery),
    /** A document's location with its lines' products, one statement (one row per product found). */
    locationWithProducts: bind(tenantLocationWithProductsQuery),
    nextSequence: bind(nextDocumentSequenceQuery),
    insertAdjustment: bind(insertAdjustmentQuery),
    insertItems: bind(insertAdjustmentItemsQuery),
    /**
     * The adjustment and its lines (rows from `newAdjustmentLineRow`) in one statement, one row per
     * line with line columns prefixed `item_`, where the gateway sends one (the dialect's
     * `insertsInWith`); undefined where it sends `insertAdjustment` then `insertItems`.
     */
    insertAdjustmentWithLines: dialectNamed(dialect).insertsInWith ? bind(insertAdjustmentWithLinesQuery) : undefined,
    /** An adjustment with its lines, their lots and their products' stock rows: one row per line. */
    adjustmentDetail: bind(adjustmentDetailQuery),
    stockRead: bind(stockLevelsQuery),
    listTotal: bind(adjustmentTotalQuery),
    listPage: bind(adjustmentPageQuery),
    /** Locks an adjustment and reads its lines (one row per line, item columns prefixed `item_`). */
    lockAdjustmentWithItems: bind(lockAdjustmentWithItemsQuery),
    /** Creates the missing stock rows and locks all of them (rows from `emptyLevelRow`). */
    lockStock: bind(lockStockQuery),
    /** The new levels of locked rows (rows from `levelRow`). */
    writeStock: bind(writeStockQuery),
    /** Inserts ledger rows, returning what `newestLedgerIds` needs; written before the levels that name them. */
    insertLedger: bind(insertLedgerQuery),
    /**
     * The ledger rows and the levels naming their newest ids in one statement (levels from
     * `levelRow` without ids), where the gateway sends one (the dialect's `insertsInWith`);
     * undefined where it sends `insertLedger` then `writeStock`.
     */
    writeLedgerWithStock: dialectNamed(dialect).insertsInWith ? bind(writeLedgerWithStockQuery) : undefined,
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
// Lots (docs/lots.md): the lot repository's prepared queries, and markLinesWithLots'.

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
  const bind = binder(dialect);
  return {
    /** readLotLevels */
    lotLevels: bind(lotLevelsQuery),
    /** databaseToday */
    today: bind(databaseTodayQuery),
    /** markLinesWithLots: the flag, then the lines' ids */
    markLines: bind(markLotLinesQuery),
    lineIds: bind(lotLineIdsQuery),
    /** insertAllocations */
    insertAllocations: bind(insertLotAllocationsQuery),
    /** writeLotLevels */
    writeLotStock: bind(writeLotStockQuery),
    /** listAllocations */
    allocations: bind(lotAllocationsQuery),
    /** productPolicies */
    policies: bind(productPoliciesQuery),
  };
}

/** The statements of `lotStatements`, by name. */
export type LotStatements = ReturnType<typeof lotStatements>;

export { todayOf } from '../repositories/lot-repository.js';
