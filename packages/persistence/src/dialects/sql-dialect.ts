// Everything that differs between the databases this product runs on, as one interface. This
// folder is the only place that knows a database by name: the rest of the package (and nothing
// outside it) reaches a difference through `scope.dialect`, and adding a database means writing one
// more implementation of `SqlDialect` and listing it in dialect-registry.ts.
//
// Every member is required and does something explicit. Where two databases happen to take the
// same SQL from Kysely (an upsert, RETURNING, LIKE), the member is a thin typed pass-through that
// each implementation names on purpose (see standard-sql.ts), so a database without that SQL
// implements it here instead of silently getting the wrong statement elsewhere.
//
// Value types, identical on every dialect (what `open` must make the driver return):
//   ids, counts, scaled quantities -> number (a safe integer, never a bigint or a string)
//   money                          -> string (an exact decimal)
//   timestamps                     -> ISO-8601 string with milliseconds and Z
//   dates                          -> 'YYYY-MM-DD' string
//   booleans                       -> 0 | 1
//   JSON                           -> string (parsed by the table's mapper)
import type {
  ColumnDefinitionBuilder,
  CompiledQuery,
  Expression,
  InsertQueryBuilder,
  InsertResult,
  Kysely,
  OnConflictBuilder,
  QueryResult,
  RawBuilder,
  SelectExpression,
  SelectQueryBuilder,
  Selectable,
  Selection,
  Transaction,
  UpdateQueryBuilder,
  UpdateResult,
} from 'kysely';
import type { Database } from '../create-database.js';
import type { DatabaseConfig } from '../database-config.js';
import type { AreaImportRow, AreaUpdate, RegionInsert, RegionMatch, RegionUpdate, StoredArea } from '../repositories/area-fields.js';
import type { AreaRegionLevel, DB } from '../schema/index.js';
import type { Scope, Tx } from '../transaction.js';

/**
 * Runs a compiled statement straight on the driver, without the layers of Kysely's executor, when
 * that overtakes no one: an embedded database answers at once (synchronously) while its one
 * connection is free or held by the caller's own transaction (`fromTransaction`); a server
 * database answers a statement outside any transaction on a pooled connection. Undefined means it
 * cannot: run it through Kysely. It reports to the database's events as Kysely's log would, and
 * fails with the driver's own errors.
 */
export interface DirectExecutor {
  run<R>(compiled: CompiledQuery, fromTransaction: boolean): QueryResult<R> | Promise<QueryResult<R>> | undefined;
  /**
   * `work` in one transaction, as `db.transaction().execute(work)` runs it (commit when it returns,
   * rollback when it throws), with less machinery per call. `direct` runs statements on the
   * transaction's own connection: the scope of `work` hands it on. Absent: Kysely's transaction.
   */
  transaction?<T>(work: (trx: Transaction<DB>, direct: DirectExecutor) => Promise<T>): Promise<T>;
}

/** Where a database reports connections it lost (they are replaced; nothing else needs doing). */
export interface DatabaseEvents {
  logger?: { warn(details: object, message: string): void };
  /** Every statement as the driver receives it (tests and benchmarks compare the SQL sent). */
  onQuery?: (sql: string, parameters: readonly unknown[]) => void;
  /** Every statement the database refused or did not answer (metrics count them by `classifyDatabaseError`). */
  onQueryError?: (error: unknown) => void;
}

/** How the connections of an open database are used right now (what a metrics scrape reports). */
export interface DatabaseConnections {
  /** Connections open (an embedded database: its one handle). */
  readonly total: number;
  /** Open and not lent to a query or transaction. */
  readonly idle: number;
  /** Callers waiting for a connection. */
  readonly waiting: number;
}

/** What tests may rely on a dialect for (production code asks the operations themselves). */
export interface DialectCapabilities {
  /**
   * True when `lockRows` takes row locks, so several connections write at once and wait for each
   * other per row; false when a write transaction holds the whole database instead.
   */
  readonly hasRowLocks: boolean;
  /** True when the database runs inside the process (a file, or memory): tests can open one anywhere, no server needed. */
  readonly embedded: boolean;
}

/** The column types migrations use; `id` goes with `idColumn`. */
export interface ColumnTypes {
  /** Auto-increment surrogate key. */
  readonly id: RawBuilder<unknown>;
  readonly bigint: RawBuilder<unknown>;
  /** A quantity scaled by 10^4 (see @pits/domain QUANTITY_SCALE). */
  readonly quantity: RawBuilder<unknown>;
  /** An exact decimal of any size the validation lets through. */
  readonly money: RawBuilder<unknown>;
  readonly timestamp: RawBuilder<unknown>;
  readonly date: RawBuilder<unknown>;
  readonly boolean: RawBuilder<unknown>;
  readonly json: RawBuilder<unknown>;
  readonly text: RawBuilder<unknown>;
}

/**
 * The dialect-specific DDL of the migrations, one named operation each. Migrations are frozen, so
 * an operation never changes once a migration calls it: a later change is a new operation.
 */
export interface MigrationDdl {
  /** 001: refuse UPDATE and DELETE of stock_ledger rows in the database itself. */
  makeLedgerImmutable(db: Kysely<unknown>): Promise<void>;
  /** 002: substring indexes on areas.subdistrict_search and area_regions.name_search, filled from the rows already there. */
  createAreaSubstringIndexes(db: Kysely<unknown>): Promise<void>;
  /** 002 down. */
  dropAreaSubstringIndexes(db: Kysely<unknown>): Promise<void>;
}

/** Schema and bookkeeping of migrations. */
export interface DialectMigrations {
  readonly columnTypes: ColumnTypes;
  /** The auto-increment primary key of a column typed `columnTypes.id`. */
  idColumn(column: ColumnDefinitionBuilder): ColumnDefinitionBuilder;
  /** Kysely Migrator options for the database `db` is connected to: where its bookkeeping tables live. */
  migratorOptions(db: Kysely<unknown>): Promise<{ migrationTableSchema?: string }>;
  /**
   * True when a migration run failed before migrating anything only because another process
   * changed the catalogue meanwhile (test runs drop their schemas): looking again will do.
   */
  lostCatalogRace(error: unknown): boolean;
  readonly ddl: MigrationDdl;
}

/** How the driver says what went wrong. */
export interface DriverErrors {
  /** A unique or primary-key violation. */
  isUniqueViolation(error: unknown): boolean;
  /** A CHECK constraint violation. */
  isCheckViolation(error: unknown): boolean;
  /** A conflict between transactions that an immediate retry may get past (a deadlock, a serialization failure). */
  isTransientConflict(error: unknown): boolean;
  /** The database cannot serve now: unreachable, past a deadline, its lock wait ran out, its file unusable. */
  isUnavailable(error: unknown): boolean;
  /** Of the unavailable ones: a deadline ran out (a statement, a lock wait, getting a connection), as opposed to a lost or refused connection. */
  isTimeout(error: unknown): boolean;
}

/**
 * The area search's substring matching and the area import's batch writes, which each database
 * does its own way (everything else about areas is in area-repository.ts).
 */
export interface AreaStore {
  /** A needle shorter than this cannot use the substring index; the repository scans instead. */
  readonly shortestIndexedNeedle: number;
  /** Regions of `levels` whose lower-cased name contains `needle` (shortestIndexedNeedle or more characters). */
  matchRegions(scope: Scope, levels: readonly AreaRegionLevel[], needle: string): Promise<RegionMatch[]>;
  /** Subdistrict codes of the villages whose lower-cased name contains `needle`. */
  matchVillageCodes(scope: Scope, needle: string): Promise<string[]>;
  /** The stored areas among `codes`, by code (the batch's transaction `tx` is open on `database`). */
  existingAreas(database: Database, tx: Tx, codes: readonly string[]): Promise<Map<string, StoredArea>>;
  /** Inserts new areas, and indexes them for search, in the batch's transaction. */
  insertAreas(database: Database, tx: Tx, records: readonly AreaImportRow[], at: string): Promise<void>;
  /** Rewrites `fields` (plus the search columns and updated_at) of existing areas, and their index entries. */
  updateAreas(database: Database, tx: Tx, updates: readonly AreaUpdate[], fields: readonly (keyof AreaImportRow)[], at: string): Promise<void>;
  insertRegions(database: Database, tx: Tx, regions: readonly RegionInsert[]): Promise<void>;
  /** Sets the name and adds `added` villages to the count of existing regions. */
  updateRegions(database: Database, tx: Tx, regions: readonly RegionUpdate[]): Promise<void>;
}

/** Settings a test run reads (the process environment, or a test's own). */
export type TestEnvironment = Readonly<Record<string, string | undefined>>;

/** A fresh, empty, unmigrated database for one test file or one e2e run. */
export interface ThrowawayDatabase {
  readonly config: DatabaseConfig;
  /** A DATABASE_URL under which another process reaches the same database; null when no other connection can (an in-memory database). */
  readonly url: string | null;
  /** Removes it (the file, the schema). Close every connection first. */
  drop(): Promise<void>;
}

/** What the test helpers (@pits/persistence/testing) need of a dialect. */
export interface DialectTesting {
  /** Whether this run can test on the dialect, from its own settings in `env`; why not, when it cannot. */
  availability(env: TestEnvironment): Promise<{ available: true } | { available: false; reason: string }>;
  /** A throwaway database; `shared: true` when more connections (or processes) must reach it. */
  createThrowaway(env: TestEnvironment, options: { shared: boolean; poolSize?: number | undefined }): Promise<ThrowawayDatabase>;
  /** The DATABASE_URL under which another process reaches the database `db` is connected to. */
  childDatabaseUrl(db: Kysely<DB>, env: TestEnvironment): Promise<string>;
  /** Inside `tx`, keeps every other transaction from writing `table` until `tx` ends. */
  holdWriteLock(tx: Tx, table: keyof DB & string): Promise<void>;
}

/** The extra argument of an upsert: the columns to set on a conflict. */
export type UpsertSet<Tables, TB extends keyof Tables> = Parameters<OnConflictBuilder<Tables, TB>['doUpdateSet']>[0];

/**
 * One database as this product uses it. `C` is the configuration variant that opens it.
 *
 * @example
 * const row = await tx.dialect.lockRows(tx.db.selectFrom('transfers').selectAll().where('id', '=', id)).executeTakeFirst();
 */
export interface SqlDialect<C extends DatabaseConfig = DatabaseConfig> {
  /** The name configuration gives it (`DatabaseConfig['dialect']`). */
  readonly name: C['dialect'];
  readonly capabilities: DialectCapabilities;

  // ---- opening ------------------------------------------------------------------------------

  /**
   * Opens the database `config` names with its deadlines (a lock wait, a statement, a connection
   * bounded; a lost connection replaced, never fatal), returning the value types listed above.
   */
  open(config: C, events: DatabaseEvents): Kysely<DB>;
  /** How the connections of `db` (opened by this dialect's `open`) are used right now; cheap, called on every metrics scrape. */
  connections(db: Kysely<DB>): DatabaseConnections;
  /**
   * For a database that runs in the process: how a compiled statement runs at once, without
   * Kysely's asynchronous executor, when it can (see `DirectExecutor`). Absent: always through Kysely.
   */
  directExecutor?(db: Kysely<DB>): DirectExecutor | undefined;

  // ---- migrations ---------------------------------------------------------------------------

  readonly migrations: DialectMigrations;

  // ---- locks --------------------------------------------------------------------------------

  /**
   * `query` (a SELECT in a transaction) locking the rows it reads until the transaction ends; with
   * `of`, only the rows of that table of a join (the joined rows are read, not locked).
   */
  lockRows<Tables, TB extends keyof Tables, O>(query: SelectQueryBuilder<Tables, TB, O>, of?: TB & string): SelectQueryBuilder<Tables, TB, O>;
  /** Like `lockRows`, but rows another transaction holds locked are left out instead of waited for. */
  lockRowsSkipLocked<Tables, TB extends keyof Tables, O>(query: SelectQueryBuilder<Tables, TB, O>): SelectQueryBuilder<Tables, TB, O>;

  // ---- writes -------------------------------------------------------------------------------

  /** The insert returning every column of the rows it wrote. */
  insertReturningAll<Tables, TB extends keyof Tables>(query: InsertQueryBuilder<Tables, TB, InsertResult>): InsertQueryBuilder<Tables, TB, Selectable<Tables[TB]>>;
  /** The insert returning `selections` of the rows it wrote. */
  insertReturning<Tables, TB extends keyof Tables, SE extends SelectExpression<Tables, TB>>(
    query: InsertQueryBuilder<Tables, TB, InsertResult>,
    selections: readonly SE[],
  ): InsertQueryBuilder<Tables, TB, Selection<Tables, TB, SE>>;
  /** The update returning every column of the rows it changed. */
  updateReturningAll<Tables, UT extends keyof Tables, TB extends keyof Tables>(
    query: UpdateQueryBuilder<Tables, UT, TB, UpdateResult>,
  ): ReturnType<UpdateQueryBuilder<Tables, UT, TB, UpdateResult>['returningAll']>;
  /** The insert skipping rows whose `conflictColumns` (a unique key) are taken already. */
  insertIgnoringDuplicates<Tables, TB extends keyof Tables>(
    query: InsertQueryBuilder<Tables, TB, InsertResult>,
    conflictColumns: readonly (keyof Tables[TB] & string)[],
  ): InsertQueryBuilder<Tables, TB, InsertResult>;
  /** The insert, or where `conflictColumns` (a unique key) are taken, an update of that row with `set`. */
  upsert<Tables, TB extends keyof Tables>(
    query: InsertQueryBuilder<Tables, TB, InsertResult>,
    conflictColumns: readonly (keyof Tables[TB] & string)[],
    set: UpsertSet<Tables, TB>,
  ): InsertQueryBuilder<Tables, TB, InsertResult>;

  // ---- search -------------------------------------------------------------------------------

  /** `column` contains `needle`; both are lower-cased already; LIKE wildcards in `needle` match literally. */
  containsLowerCase(column: Expression<string>, needle: string): RawBuilder<boolean>;
  /**
   * `text` in lower case, the way `String#toLowerCase` writes it (every script, not only ASCII), so
   * a case-insensitive match finds the same rows on every database. Lower-case the needle in code.
   */
  lowerCase(text: Expression<string>): RawBuilder<string>;
  readonly areas: AreaStore;

  // ---- errors -------------------------------------------------------------------------------

  readonly errors: DriverErrors;

  // ---- tests --------------------------------------------------------------------------------

  readonly testing: DialectTesting;
}
