// Everything that differs between the databases this product runs on, as one interface. This
// folder is the only place that knows a database by name: the rest of the package (and nothing
// outside it) reaches a difference through `scope.dialect`, and adding a database means writing one
// more implementation of `SqlDialect` (its configuration and URL form included, with its statement
// runner, see execution/statement-runner.ts), writing its area store (repositories/areas/), and
// listing both in dialect-registry.ts; `DatabaseConfig` and `DialectName` follow from that list.
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
  Expression,
  InsertQueryBuilder,
  InsertResult,
  Kysely,
  OnConflictBuilder,
  RawBuilder,
  SelectExpression,
  SelectQueryBuilder,
  Selectable,
  Selection,
  UpdateQueryBuilder,
  UpdateResult,
} from 'kysely';
import type { QueryDialect } from '../execution/kysely-bridge.js';
import type { DatabaseEvents, DatabaseRunner, StatementRunner } from '../execution/statement-runner.js';
import type { DB } from '../schema/index.js';
import type { DatabaseSettings } from './database-settings.js';

export type { DatabaseConnections, DatabaseEvents } from '../execution/statement-runner.js';

/** What a test's lock holder needs of a transaction scope (a `Tx` is one). */
export interface LockingScope {
  readonly db: Kysely<DB>;
  readonly runner: StatementRunner;
}

/** The configuration of one dialect: its name, the settings every database takes, and its own fields. */
export interface DialectConfig extends DatabaseSettings {
  /** The dialect's name, as dialect-registry.ts lists it. */
  readonly dialect: string;
}

/** How DATABASE_URL names a dialect's databases, and how a configuration is shown. */
export interface DatabaseUrlForm<C extends DialectConfig> {
  /** The forms, for help texts. */
  readonly forms: string;
  /**
   * The configuration `text` (a trimmed DATABASE_URL; empty when none is set) names, resolving
   * relative paths against `cwd`; undefined when it names another dialect's database. A text in
   * this dialect's form that cannot be used throws, saying why.
   */
  parse(text: string, cwd: string): C | undefined;
  /** The configuration for logs: never a password. */
  describe(config: C): string;
  /**
   * Which database `config` reaches, without a password: two configurations that reach the same
   * data give the same identity.
   */
  identity(config: C): string;
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
  /**
   * 014: triggers that keep `list.counts` in step with `list.table` in the database itself, for
   * every writer: a row inserted counts +1 under its key, a row deleted -1, and a row whose key
   * changes (a status change) -1 under the old key, then +1 under the new one, in the statement
   * that changed it.
   */
  keepListCounts(db: Kysely<unknown>, list: KeptListCount): Promise<void>;
  /** 014 down. */
  dropListCountTriggers(db: Kysely<unknown>, list: KeptListCount): Promise<void>;
}

/** A table whose rows are counted per key in a table of counts (migration 007's list totals). */
export interface KeptListCount {
  /** The documents' table, e.g. `adjustments`. */
  readonly table: string;
  /** The counts' table, with the key's columns and `count`; the key is its primary key. */
  readonly counts: string;
  /** The columns counted by, the same in both tables, `tenant_id` first. */
  readonly key: readonly string[];
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
  /**
   * True when a migration run failed before migrating anything because it waited past its
   * statement deadline for a lock another connection holds (another process migrating): waiting
   * again will do, up to the migration lock wait (migrate.ts). Kysely's adapter of this dialect
   * (`queryDialect.createAdapter`) must serialise migrations across processes.
   */
  lockWaitRanOut(error: unknown): boolean;
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

/** Settings a test run reads (the process environment, or a test's own). */
export type TestEnvironment = Readonly<Record<string, string | undefined>>;

/** A fresh, empty, unmigrated database for one test file or one e2e run. */
export interface ThrowawayDatabase<C extends DialectConfig = DialectConfig> {
  readonly config: C;
  /** A DATABASE_URL under which another process reaches the same database; null when no other connection can (an in-memory database). */
  readonly url: string | null;
  /** Removes it (the file, the schema). Close every connection first. */
  drop(): Promise<void>;
}

/** What the test helpers (@pits/persistence/testing) need of a dialect. */
export interface DialectTesting<C extends DialectConfig = DialectConfig> {
  /** Whether this run can test on the dialect, from its own settings in `env`; why not, when it cannot. */
  availability(env: TestEnvironment): Promise<{ available: true } | { available: false; reason: string }>;
  /** A throwaway database; `shared: true` when more connections (or processes) must reach it. */
  createThrowaway(env: TestEnvironment, options: { shared: boolean; poolSize?: number | undefined }): Promise<ThrowawayDatabase<C>>;
  /** The DATABASE_URL under which another process reaches the database `db` is connected to. */
  childDatabaseUrl(db: Kysely<DB>, env: TestEnvironment): Promise<string>;
  /** Inside `tx`, keeps every other transaction from writing `table` until `tx` ends. */
  holdWriteLock(tx: LockingScope, table: keyof DB & string): Promise<void>;
  /**
   * Inside `tx`, whether the database plans `statement` reading `index` as a bounded range (not a
   * scan of the whole index or table, however few rows the test has), with the plan's text.
   */
  planReadsIndexRange(tx: LockingScope, statement: { sql: string; parameters: readonly unknown[] }, index: string): Promise<{ range: boolean; plan: string }>;
  /** How many sessions of this database wait for a lock another holds right now (0 where one writer holds the whole database). */
  lockWaiters(scope: LockingScope): Promise<number>;
}

/** The extra argument of an upsert: the columns to set on a conflict. */
export type UpsertSet<Tables, TB extends keyof Tables> = Parameters<OnConflictBuilder<Tables, TB>['doUpdateSet']>[0];

/**
 * One database as this product uses it. `C` is the configuration variant that opens it.
 *
 * @example
 * const row = await executeTakeFirst(tx, tx.dialect.lockRows(tx.db.selectFrom('transfers').selectAll().where('id', '=', id)));
 */
export interface SqlDialect<C extends DialectConfig = DialectConfig> {
  /** The name configuration gives it (`C['dialect']`, its key in dialect-registry.ts). */
  readonly name: C['dialect'];
  readonly capabilities: DialectCapabilities;

  // ---- configuration ------------------------------------------------------------------------

  readonly url: DatabaseUrlForm<C>;

  // ---- opening ------------------------------------------------------------------------------

  /**
   * Opens the database `config` names with its deadlines (a lock wait, a statement, a connection
   * bounded; a lost connection replaced, never fatal): its statement runner, returning the value
   * types listed above and reporting every statement to `events`.
   */
  open(config: C, events: DatabaseEvents): DatabaseRunner;
  /** Kysely's SQL compiler, adapter and introspector for this database (queries are built with them). */
  readonly queryDialect: QueryDialect;

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
  /**
   * True when an insert may run in a WITH of the statement that reads what it returns (a
   * data-modifying WITH, `db.with(name, (db) => insert…returning(…))`). The stock writes then send a
   * transaction's ledger rows and the levels that name them as one statement, a round trip fewer
   * on every write (stock-repository.ts `writeStockRows`); false sends them as two, the ledger's ids
   * read back in between. Where the database runs in the process, a round trip costs nothing.
   */
  readonly insertsInWith: boolean;

  // ---- search -------------------------------------------------------------------------------

  /** `column` contains `needle`; both are lower-cased already; LIKE wildcards in `needle` match literally. */
  containsLowerCase(column: Expression<string>, needle: string): RawBuilder<boolean>;
  /**
   * `text` in lower case, the way `String#toLowerCase` writes it (every script, not only ASCII), so
   * a case-insensitive match finds the same rows on every database. Lower-case the needle in code.
   */
  lowerCase(text: Expression<string>): RawBuilder<string>;

  // ---- time ---------------------------------------------------------------------------------

  /**
   * The database's clock at the moment the statement runs, comparable with a timestamp column and
   * read back as an ISO-8601 string: the one clock that judges expiry, whatever each process's
   * clock says (docs/holds.md#states-and-expiry).
   */
  clockNow(): RawBuilder<string>;

  // ---- errors -------------------------------------------------------------------------------

  readonly errors: DriverErrors;

  // ---- tests --------------------------------------------------------------------------------

  readonly testing: DialectTesting<C>;
}
