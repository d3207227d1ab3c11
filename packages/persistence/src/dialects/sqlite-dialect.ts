// SQLite (better-sqlite3) as a SqlDialect. One connection per process (sqlite-runner.ts), write
// transactions that take the database's write lock at BEGIN IMMEDIATE (migrations run in one, which
// serialises them across processes), FTS5 trigram tables for substring search (their queries live
// with the area repository, repositories/areas/).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler, sql } from 'kysely';
import { DEFAULT_DATABASE_DEADLINES, type DatabaseSettings, deadlinesOf } from './database-settings.js';
import type { DatabaseEvents, DatabaseUrlForm, SqlDialect } from './sql-dialect.js';
import { SqliteRunner } from './sqlite-runner.js';
import { bumpListCount, listCountKeyChanged, listCountTriggers, standardSql } from './standard-sql.js';

/** A SQLite database: a file, or memory. */
export interface SqliteConfig extends DatabaseSettings {
  dialect: 'sqlite';
  /** A file path, or ':memory:'. */
  location: string;
}

/**
 * The embedded default, when DATABASE_URL is not set: a SQLite file under ./data of the working
 * directory. The one default of every entry point (the apps, `npm start`, `pits-import`, `npm run
 * migrate`): with two, the data team imported into a file the demo did not serve.
 */
export const DEFAULT_SQLITE_LOCATION = './data/pits.sqlite';

/**
 * A `file:` URL's path, as SQLite's own URI filenames and most SQLite tools write it: `file:x.db`
 * and `file:./data/x.db` (relative), `file:/abs/x.db`, `file:///abs/x.db`, `file://localhost/abs/x.db`,
 * percent escapes decoded. Taken as a plain path, `file:/tmp/x.db` opened `./file:/tmp/x.db`, a
 * new empty database under the working directory. What a path cannot say is refused: another host,
 * or query parameters (SQLite's `?mode=ro` and the like, which this service does not pass on).
 */
function fileUrlPath(text: string): string {
  let rest = text.replace(/^file:/i, '');
  if (rest.includes('?') || rest.includes('#')) {
    throw new Error(`DATABASE_URL "${text}": a file: URL takes no query or fragment here; name the file alone`);
  }
  if (rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const host = rest.slice(2, slash === -1 ? rest.length : slash);
    if (host !== '' && host.toLowerCase() !== 'localhost') {
      throw new Error(`DATABASE_URL "${text}" names the host "${host}": a SQLite file must be on this machine`);
    }
    rest = slash === -1 ? '' : rest.slice(slash);
  }
  let path: string;
  try {
    path = decodeURIComponent(rest);
  } catch {
    throw new Error(`DATABASE_URL "${text}" has a malformed percent escape`);
  }
  if (path === '') throw new Error(`DATABASE_URL "${text}" names no file`);
  return path;
}

/**
 * `sqlite:` URLs (`sqlite:./data/x.db`, `sqlite:///abs/x.db`, `sqlite::memory:`), `file:` URLs
 * (`fileUrlPath`), a plain file path, or nothing at all (the default file). Another scheme (`x://`)
 * is another dialect's.
 */
const sqliteUrl: DatabaseUrlForm<SqliteConfig> = {
  forms: `sqlite:<path>, file:<path>, a file path or sqlite::memory: (default ${DEFAULT_SQLITE_LOCATION})`,
  parse(text, cwd) {
    if (text === '') return { dialect: 'sqlite', location: resolve(cwd, DEFAULT_SQLITE_LOCATION) };
    let location = text;
    if (/^sqlite:/i.test(text)) {
      location = text.replace(/^sqlite:(\/\/)?/i, '');
      if (location === '') throw new Error('DATABASE_URL "sqlite:" names no file');
    } else if (/^file:/i.test(text)) {
      location = fileUrlPath(text);
    } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
      return undefined;
    }
    if (location === ':memory:') return { dialect: 'sqlite', location };
    return { dialect: 'sqlite', location: isAbsolute(location) ? location : resolve(cwd, location) };
  },
  describe: (config) => `sqlite:${config.location}`,
  // The file's absolute path: parse resolved it already.
  identity: (config) => `sqlite:${config.location}`,
};

/** The SQL function `openSqlite` registers on every connection: lower case in every script. */
const UNICODE_LOWER = 'pits_lower';

/** SQLite's synchronous busy wait: short, as it blocks the process (statements outside a write transaction only). */
const SQLITE_BUSY_WAIT_MS = 20;

/**
 * How many pages the write-ahead log holds before the commit that passes them copies them into the
 * database file (a checkpoint: the pages' writes and two file syncs, inside that commit). SQLite's
 * 1000 (4 MB) ran one every 70 or so approvals, each rewriting pages the next ones dirtied again;
 * at 4000 (16 MB of log) a hot page is copied once for four times as many commits and the syncs are
 * a quarter as many (docs/operating-guarantees.md#embedded-database-checkpoints).
 */
export const WAL_CHECKPOINT_PAGES = 4000;

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
  raw.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
  // SQLite's own lower() folds ASCII only; PostgreSQL's folds every script. This one matches it.
  raw.function(UNICODE_LOWER, { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text) as string | null);
  return raw;
}

/**
 * Kysely's SQLite adapter assumes one connection, so it takes no lock for migrations and runs them
 * outside any transaction: two processes starting on a new file both found them pending and both
 * ran them. SQLite's DDL is transactional, and every transaction of this product begins with BEGIN
 * IMMEDIATE, which takes the write lock of the whole file (sqlite-runner.ts). So the Migrator runs
 * in one transaction here, and that transaction is its lock: another process waits at BEGIN until
 * this one commits, then reads what has been applied and finds nothing left to do; a failure
 * rolls back every migration of the run. (`acquireMigrationLock` stays a no-op: the Migrator calls
 * it before it begins the transaction.) See docs/operating-guarantees.md#start-up-and-readiness.
 */
class SqliteMigrationAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
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
// The dialect

/**
 * SQLite: a file (or `:memory:`) opened with WAL, foreign keys and a short synchronous busy wait;
 * a write transaction waits for another process's lock asynchronously, up to the statement deadline.
 */
export const sqliteDialect: SqlDialect<SqliteConfig> = {
  name: 'sqlite',
  capabilities: { hasRowLocks: false, embedded: true },
  url: sqliteUrl,

  open(config: SqliteConfig, events: DatabaseEvents) {
    const deadlines = deadlinesOf(config);
    const raw = openSqlite(config.location, Math.min(SQLITE_BUSY_WAIT_MS, deadlines.statementTimeoutMs));
    return new SqliteRunner(raw, deadlines.statementTimeoutMs, events);
  },

  queryDialect: {
    createAdapter: () => new SqliteMigrationAdapter(),
    createQueryCompiler: () => new SqliteQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new SqliteIntrospector(db),
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
    // Another process may change the file's catalogue while a migration introspects it (both
    // starting at once), but each read sees one committed state: a failure is real.
    lostCatalogRace: () => false,
    // The Migrator's BEGIN IMMEDIATE (or a statement before it) waited out the lock wait while
    // another process held the file's write lock, most likely migrating it.
    lockWaitRanOut: (error) => /^SQLITE_BUSY($|_)/.test(code(error)),
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
      async keepListCounts(db, list) {
        const name = listCountTriggers(list);
        const table = sql.id(list.table);
        const columns = sql.join(list.key.map((c) => sql.id(c)));
        await sql`create trigger ${sql.id(name.insert)} after insert on ${table}
      begin ${bumpListCount(list, 'new', 1)}; end`.execute(db);
        await sql`create trigger ${sql.id(name.update)} after update of ${columns} on ${table} when ${listCountKeyChanged(list)}
      begin ${bumpListCount(list, 'old', -1)}; ${bumpListCount(list, 'new', 1)}; end`.execute(db);
        await sql`create trigger ${sql.id(name.delete)} after delete on ${table}
      begin ${bumpListCount(list, 'old', -1)}; end`.execute(db);
      },
      async dropListCountTriggers(db, list) {
        for (const name of Object.values(listCountTriggers(list))) await sql`drop trigger if exists ${sql.id(name)}`.execute(db);
      },
    },
  },

  // SQLite has no row locks, and needs none here: every write transaction begins with BEGIN
  // IMMEDIATE (sqlite-runner.ts), which takes the write lock of the whole database before its first
  // statement and holds it to the end, so no other transaction can change what this one reads.
  lockRows: (query) => query,
  // Nothing to skip: while this transaction holds the write lock, no other holds any row.
  lockRowsSkipLocked: (query) => query,

  insertReturningAll: standardSql.insertReturningAll,
  insertReturning: standardSql.insertReturning,
  updateReturningAll: standardSql.updateReturningAll,
  insertIgnoringDuplicates: standardSql.insertIgnoringDuplicates,
  upsert: standardSql.upsert,
  // SQLite takes no insert inside a WITH; the ledger and the levels stay two statements.
  insertsInWith: false,

  containsLowerCase: standardSql.containsLowerCase,
  lowerCase: (text) => sql<string>`${sql.raw(UNICODE_LOWER)}(${text})`,
  clockNow: () => sql<string>`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,

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

    async planReadsIndexRange(tx, statement, index) {
      const { rows } = await tx.runner.run<{ detail: string }>(CompiledQuery.raw(`explain query plan ${statement.sql}`, [...statement.parameters]));
      const plan = rows.map((r) => r.detail).join('\n');
      // A SEARCH with a constraint on the index's columns, e.g. `USING INDEX x (expires_at<?)`; a SCAN reads it whole.
      return { range: new RegExp(`SEARCH \\w+ USING (COVERING )?INDEX ${index} \\(`).test(plan), plan };
    },

    // One writer holds the whole database: a transaction waits for BEGIN, never for a row.
    lockWaiters: async () => 0,
  },
};
