// SQLite (better-sqlite3) as a SqlDialect. One connection per process (sqlite-driver.ts), write
// transactions that take the database's write lock at BEGIN IMMEDIATE, FTS5 trigram tables for
// substring search, and bulk writes through reused prepared statements on the raw handle.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { type CompiledQuery, type DatabaseConnection, Kysely, type QueryResult, Transaction, sql } from 'kysely';
import { type DatabaseConfig, DEFAULT_DATABASE_DEADLINES, deadlinesOf } from '../database-config.js';
import { type ParamRef, markedList, preparedQuery } from '../parameterised-query.js';
import {
  AREA_FIELDS,
  AREA_INSERT_COLUMNS,
  SEARCH_COLUMNS,
  STORED_AREA_COLUMNS,
  type RegionMatch,
  type StoredArea,
  searchValues,
} from '../repositories/area-fields.js';
import type { AreaRegionLevel, DB } from '../schema/index.js';
import type { AreaStore, DatabaseEvents, DirectExecutor, SqlDialect } from './sql-dialect.js';
import { ProductSqliteDialect } from './sqlite-driver.js';
import { queryLog } from './query-events.js';
import { standardSql } from './standard-sql.js';

type SqliteConfig = Extract<DatabaseConfig, { dialect: 'sqlite' }>;

/** The SQL function `openSqlite` registers on every connection: lower case in every script. */
const UNICODE_LOWER = 'pits_lower';

/** SQLite's synchronous busy wait: short, as it blocks the process (statements outside a write transaction only). */
const SQLITE_BUSY_WAIT_MS = 20;

/**
 * Opens a better-sqlite3 handle with the pragmas every connection of this product uses. A
 * statement waits up to `busyTimeoutMs` (synchronously) for another connection's write lock, then
 * fails with SQLITE_BUSY.
 */
export function openSqlite(location: string, busyTimeoutMs = DEFAULT_DATABASE_DEADLINES.statementTimeoutMs): BetterSqlite3.Database {
  if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
  const raw = new BetterSqlite3(location);
  if (location !== ':memory:') raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma(`busy_timeout = ${Math.trunc(busyTimeoutMs)}`);
  raw.pragma('synchronous = NORMAL');
  // SQLite's own lower() folds ASCII only; PostgreSQL's folds every script. This one matches it.
  raw.function(UNICODE_LOWER, { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text) as string | null);
  return raw;
}

// The better-sqlite3 handle under each Kysely instance this dialect opened: the area import runs
// thousands of reused prepared statements on it without Kysely compiling and awaiting each one.
const handles = new WeakMap<Kysely<DB>, BetterSqlite3.Database>();

/**
 * The handle of a database this dialect opened. Use it only inside `withTransaction(database, …)`:
 * Kysely then holds the one connection, so the statements run in that transaction and nothing else
 * runs on the handle meanwhile.
 */
function handleOf(database: { readonly db: Kysely<DB> }): BetterSqlite3.Database {
  const handle = handles.get(database.db);
  if (!handle) throw new Error('the SQLite area store needs a database opened by createDatabase');
  return handle;
}

// ---------------------------------------------------------------------------------------------
// Errors

const code = (error: unknown): string => {
  const value = (error as { code?: unknown } | null)?.code;
  return typeof value === 'string' ? value : '';
};

// The busy wait ran out, or the file cannot be read, written or opened.
const UNAVAILABLE = /^SQLITE_(BUSY|LOCKED|IOERR|CANTOPEN|FULL|PROTOCOL|READONLY)(_|$)/;

// ---------------------------------------------------------------------------------------------
// Area search and import

const statementCache = new WeakMap<BetterSqlite3.Database, Map<string, BetterSqlite3.Statement>>();

function prepared(handle: BetterSqlite3.Database, text: string): BetterSqlite3.Statement {
  let cache = statementCache.get(handle);
  if (!cache) statementCache.set(handle, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement) cache.set(text, (statement = handle.prepare(text)));
  return statement;
}

/**
 * A needle as an FTS5 phrase: in a trigram table, `match` on it finds rows whose text contains
 * the needle (case-insensitively). Double quotes inside are doubled.
 *
 * @example fts5Phrase('ka"b') === '"ka""b"'
 */
export function fts5Phrase(needle: string): string {
  return `"${needle.replace(/"/g, '""')}"`;
}

const regionMatches = preparedQuery({
  shape: (p: { levels: AreaRegionLevel[]; phrase: string }) => p.levels.length,
  build: (_scope, param, levels) => sql<RegionMatch>`select r.level, r.code, r.area_count from area_regions_fts f
      join area_regions r on r.id = f.rowid
      where area_regions_fts match ${param('phrase')} and r.level in (${sql.join(markedList(param, 'levels', levels))})`,
});

const villageMatches = preparedQuery({
  build: (_scope, param: ParamRef<{ phrase: string }>) => sql<{ subdistrict_code: string }>`select a.subdistrict_code from areas a
      where a.region_id in (select rowid from areas_fts where areas_fts match ${param('phrase')})`,
});

/** Indexes the rows of `table` with ids first..last in its FTS table (they are all new). */
function indexRange(handle: BetterSqlite3.Database, fts: string, table: string, id: string, column: string, first: number, last: number): void {
  prepared(handle, `insert into ${fts} (rowid, ${column}) select ${id}, ${column} from ${table} where ${id} between ? and ?`).run(first, last);
}

function reindexOne(handle: BetterSqlite3.Database, fts: string, column: string, id: number, oldText: string, newText: string): void {
  prepared(handle, `insert into ${fts} (${fts}, rowid, ${column}) values ('delete', ?, ?)`).run(id, oldText);
  prepared(handle, `insert into ${fts} (rowid, ${column}) values (?, ?)`).run(id, newText);
}

// FTS5 trigram tables (areas_fts, area_regions_fts) answer substring matches; the import keeps
// them in step in the same transaction as the rows, set-based (far cheaper than triggers).
const areas: AreaStore = {
  // A trigram index can only answer a substring of at least three characters.
  shortestIndexedNeedle: 3,

  async matchRegions(scope, levels, needle) {
    return regionMatches.execute(scope, { levels: [...levels], phrase: fts5Phrase(needle) });
  },

  async matchVillageCodes(scope, needle) {
    return (await villageMatches.execute(scope, { phrase: fts5Phrase(needle) })).map((r) => r.subdistrict_code);
  },

  async existingAreas(database, _tx, codes) {
    // One statement per 500 codes rather than one per code: a first import finds nothing, fast.
    const handle = handleOf(database);
    const found = new Map<string, StoredArea>();
    for (let i = 0; i < codes.length; i += 500) {
      const chunk = codes.slice(i, i + 500);
      const select = prepared(handle, `select ${STORED_AREA_COLUMNS.join(', ')} from areas where subdistrict_code in (${chunk.map(() => '?').join(', ')})`);
      for (const row of select.all(...chunk) as StoredArea[]) found.set(row.subdistrict_code, row);
    }
    return found;
  },

  async insertAreas(database, _tx, records, at) {
    if (records.length === 0) return;
    const handle = handleOf(database);
    const insert = prepared(handle, `insert into areas (${AREA_INSERT_COLUMNS.join(', ')}) values (${AREA_INSERT_COLUMNS.map(() => '?').join(', ')})`);
    let first = Infinity;
    let last = -Infinity;
    for (const record of records) {
      const id = Number(insert.run(...AREA_FIELDS.map((f) => record[f]), ...searchValues(record), at, at).lastInsertRowid);
      first = Math.min(first, id);
      last = Math.max(last, id);
    }
    // Ids only grow and the transaction holds the write lock: every row in [first, last] is one of these.
    indexRange(handle, 'areas_fts', 'areas', 'region_id', 'subdistrict_search', first, last);
  },

  async updateAreas(database, _tx, updates, fields, at) {
    if (updates.length === 0) return;
    const handle = handleOf(database);
    const set = [...fields, ...SEARCH_COLUMNS.map(([column]) => column), 'updated_at'].map((c) => `${c} = ?`).join(', ');
    const update = prepared(handle, `update areas set ${set} where region_id = ?`);
    for (const { regionId, record, oldSubdistrictSearch } of updates) {
      const search = searchValues(record);
      update.run(...fields.map((f) => record[f]), ...search, at, regionId);
      const newSubdistrictSearch = search[3]!;
      if (newSubdistrictSearch !== oldSubdistrictSearch) reindexOne(handle, 'areas_fts', 'subdistrict_search', regionId, oldSubdistrictSearch, newSubdistrictSearch);
    }
  },

  async insertRegions(database, _tx, regions) {
    if (regions.length === 0) return;
    const handle = handleOf(database);
    const insert = prepared(handle, 'insert into area_regions (level, code, name_search, area_count) values (?, ?, ?, ?)');
    let first = Infinity;
    let last = -Infinity;
    for (const r of regions) {
      const id = Number(insert.run(r.level, r.code, r.nameSearch, r.added).lastInsertRowid);
      first = Math.min(first, id);
      last = Math.max(last, id);
    }
    indexRange(handle, 'area_regions_fts', 'area_regions', 'id', 'name_search', first, last);
  },

  async updateRegions(database, _tx, regions) {
    const handle = handleOf(database);
    const update = prepared(handle, 'update area_regions set name_search = ?, area_count = area_count + ? where id = ?');
    for (const r of regions) {
      update.run(r.nameSearch, r.added, r.id);
      if (r.nameSearch !== r.oldNameSearch) reindexOne(handle, 'area_regions_fts', 'name_search', r.id, r.oldNameSearch, r.nameSearch);
    }
  },
};

// ---------------------------------------------------------------------------------------------
// Statements run at once

const directs = new WeakMap<Kysely<DB>, DirectExecutor>();

/**
 * better-sqlite3 answers synchronously, so a statement that need not wait for the connection runs
 * right away, without the promises of Kysely's executor: on the hot endpoints those cost more than
 * SQLite spends executing. It reports to `events` as Kysely's log would.
 */
function directExecutor(db: Kysely<DB>, dialect: ProductSqliteDialect, events: DatabaseEvents): DirectExecutor {
  const { onQuery, onQueryError } = events;
  const { driver } = dialect;
  const report = <R>(result: QueryResult<R>, compiled: CompiledQuery): QueryResult<R> => {
    onQuery?.(compiled.sql, compiled.parameters);
    return result;
  };
  // One transaction object for every transaction: they run one at a time on the one connection,
  // and this one reaches it without queueing, as only the holder of the connection uses it. Its
  // statements report to `events` as Kysely's log would.
  const connection: DatabaseConnection = {
    executeQuery<R>(compiled: CompiledQuery) {
      try {
        return Promise.resolve(report(driver.connection.executeNow<R>(compiled), compiled));
      } catch (error) {
        onQueryError?.(error);
        return Promise.reject(error as Error);
      }
    },
    streamQuery: (compiled) => driver.connection.streamQuery(compiled),
  };
  const transaction = new Transaction<DB>({
    config: { dialect },
    dialect,
    driver,
    executor: db.getExecutor().withConnectionProvider({ provideConnection: (consumer) => consumer(connection) }),
  });
  const executor: DirectExecutor = {
    transaction: (work) => driver.transaction(connection, () => work(transaction, executor)),
    run<R>(compiled: CompiledQuery, fromTransaction: boolean) {
      let result: QueryResult<R> | undefined;
      try {
        result = dialect.runNow<R>(compiled, fromTransaction);
      } catch (error) {
        onQueryError?.(error);
        throw error;
      }
      if (result !== undefined) onQuery?.(compiled.sql, compiled.parameters);
      return result;
    },
  };
  return executor;
}

// ---------------------------------------------------------------------------------------------
// The dialect

/**
 * SQLite: a file (or `:memory:`) opened with WAL, foreign keys and a short synchronous busy wait;
 * a write transaction waits for another process's lock asynchronously, up to the statement deadline.
 */
export const sqliteDialect: SqlDialect<SqliteConfig> = {
  name: 'sqlite',
  capabilities: { hasRowLocks: false, embedded: true },

  open(config: SqliteConfig, events: DatabaseEvents): Kysely<DB> {
    const deadlines = deadlinesOf(config);
    const raw = openSqlite(config.location, Math.min(SQLITE_BUSY_WAIT_MS, deadlines.statementTimeoutMs));
    const dialect = new ProductSqliteDialect(raw, deadlines.statementTimeoutMs);
    const db = new Kysely<DB>({ dialect, ...queryLog(events) });
    handles.set(db, raw);
    directs.set(db, directExecutor(db, dialect, events));
    return db;
  },

  directExecutor: (db) => directs.get(db),

  // One handle, serialised by the driver: nothing to pool, nothing to wait for that a gauge could show.
  connections(db) {
    if (!handles.has(db)) throw new Error('connections: this database was not opened by the SQLite dialect');
    return { total: 1, idle: 1, waiting: 0 };
  },

  migrations: {
    columnTypes: {
      id: sql`integer`,
      bigint: sql`integer`,
      quantity: sql`integer`,
      // Exact decimals as text: SQLite's REAL would round them.
      money: sql`text`,
      timestamp: sql`text`,
      date: sql`text`,
      boolean: sql`integer`,
      json: sql`text`,
      text: sql`text`,
    },
    idColumn: (column) => column.primaryKey().autoIncrement(),
    // The bookkeeping tables sit in the one database file; nothing else could be taken for them.
    migratorOptions: async () => ({}),
    // No other process edits a SQLite file's catalogue while a migration introspects it: a
    // failure is real.
    lostCatalogRace: () => false,
    ddl: {
      async makeLedgerImmutable(db) {
        await sql`create trigger stock_ledger_no_update before update on stock_ledger
      begin select raise(abort, 'stock_ledger rows are immutable'); end`.execute(db);
        await sql`create trigger stock_ledger_no_delete before delete on stock_ledger
      begin select raise(abort, 'stock_ledger rows are immutable'); end`.execute(db);
      },
      async createAreaSubstringIndexes(db) {
        // External-content tables: the text stays in areas / area_regions; the import keeps the
        // indexes in step in the same transaction as the rows (set-based, far cheaper than triggers).
        await sql`create virtual table areas_fts using fts5(subdistrict_search, content='areas', content_rowid='region_id', tokenize='trigram', columnsize=0)`.execute(db);
        await sql`create virtual table area_regions_fts using fts5(name_search, content='area_regions', content_rowid='id', tokenize='trigram', columnsize=0)`.execute(db);
        await sql`insert into areas_fts(areas_fts) values ('rebuild')`.execute(db);
        await sql`insert into area_regions_fts(area_regions_fts) values ('rebuild')`.execute(db);
      },
      async dropAreaSubstringIndexes(db) {
        await sql`drop table if exists areas_fts`.execute(db);
        await sql`drop table if exists area_regions_fts`.execute(db);
      },
    },
  },

  // SQLite has no row locks, and needs none here: every write transaction begins with BEGIN
  // IMMEDIATE (sqlite-driver.ts), which takes the write lock of the whole database before its first
  // statement and holds it to the end, so no other transaction can change what this one reads.
  lockRows: (query) => query,
  // Nothing to skip: while this transaction holds the write lock, no other holds any row.
  lockRowsSkipLocked: (query) => query,

  insertReturningAll: standardSql.insertReturningAll,
  insertReturning: standardSql.insertReturning,
  updateReturningAll: standardSql.updateReturningAll,
  insertIgnoringDuplicates: standardSql.insertIgnoringDuplicates,
  upsert: standardSql.upsert,

  containsLowerCase: standardSql.containsLowerCase,
  lowerCase: (text) => sql<string>`${sql.raw(UNICODE_LOWER)}(${text})`,
  areas,

  errors: {
    isUniqueViolation: (error) => code(error) === 'SQLITE_CONSTRAINT_UNIQUE' || code(error) === 'SQLITE_CONSTRAINT_PRIMARYKEY',
    isCheckViolation: (error) => code(error) === 'SQLITE_CONSTRAINT_CHECK',
    // A stale WAL snapshot: the transaction read before another committed; again will do. (Plain
    // SQLITE_BUSY comes after the lock wait has run out: that is the database being unavailable.)
    isTransientConflict: (error) => code(error) === 'SQLITE_BUSY_SNAPSHOT',
    isUnavailable: (error) => UNAVAILABLE.test(code(error)),
    // The busy wait ran out (a stale snapshot is a conflict, not a wait).
    isTimeout: (error) => code(error) === 'SQLITE_BUSY' || code(error) === 'SQLITE_LOCKED' || code(error) === 'SQLITE_BUSY_TIMEOUT',
  },

  testing: {
    // Embedded: always there.
    availability: async () => ({ available: true }),

    async createThrowaway(_env, { shared }) {
      if (!shared) return { config: { dialect: 'sqlite', location: ':memory:' }, url: null, drop: async () => undefined };
      const dir = mkdtempSync(join(tmpdir(), 'pits-test-'));
      const location = join(dir, 'test.sqlite');
      return { config: { dialect: 'sqlite', location }, url: location, drop: async () => rmSync(dir, { recursive: true, force: true }) };
    },

    async childDatabaseUrl(db) {
      const { rows } = await sql<{ file: string }>`select file from pragma_database_list where name = 'main'`.execute(db);
      if (!rows[0]?.file) throw new Error('the SQLite test database must be a file: openTestDatabase(dialect, { file: true })');
      return rows[0].file;
    },

    // The transaction took the write lock of the whole database at BEGIN IMMEDIATE: every other
    // writer, of this table or any, waits for it already.
    holdWriteLock: async () => undefined,
  },
};
