// The one way to open a database: a factory from a DatabaseConfig, never a module-level connection.
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import {
  type DatabaseConnection,
  Kysely,
  PostgresDialect,
  SqliteDialect,
  SqliteDriver,
  type SqliteDatabase,
  type SqliteStatement,
  CompiledQuery,
  type Driver,
} from 'kysely';
import pg from 'pg';
import type { DatabaseConfig, Dialect } from './database-config.js';
import { postgresTypeParsers } from './dialect.js';
import { NamedStatementClient } from './named-statements.js';
import { registerSqliteHandle } from './raw-driver.js';
import type { DB } from './schema/index.js';

/**
 * An open database: the Kysely instance and the dialect it speaks.
 *
 * @example
 * const database = createDatabase(parseDatabaseUrl(process.env.DATABASE_URL));
 * await migrateToLatest(database);
 * await database.destroy();
 */
export interface Database {
  readonly db: Kysely<DB>;
  readonly dialect: Dialect;
  destroy(): Promise<void>;
}

/** Write transactions take SQLite's write lock at BEGIN, so a second process waits (busy_timeout) instead of failing on upgrade. */
class ImmediateSqliteDriver extends SqliteDriver {
  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

class ImmediateSqliteDialect extends SqliteDialect {
  readonly #database: SqliteDatabase;
  constructor(database: SqliteDatabase) {
    super({ database });
    this.#database = database;
  }
  override createDriver(): Driver {
    return new ImmediateSqliteDriver({ database: this.#database });
  }
}

/**
 * Kysely prepares every query anew; better-sqlite3 statements are reusable, so keep them. A hit
 * costs one map lookup; when full, the oldest statement goes (the hot ones come straight back).
 */
function withStatementCache(raw: BetterSqlite3.Database, size = 500): SqliteDatabase {
  const cache = new Map<string, BetterSqlite3.Statement>();
  return {
    close: () => raw.close(),
    prepare(text: string): SqliteStatement {
      let statement = cache.get(text);
      if (!statement) {
        statement = raw.prepare(text);
        if (cache.size >= size) {
          const oldest = cache.keys().next().value;
          if (oldest !== undefined) cache.delete(oldest);
        }
        cache.set(text, statement);
      }
      return statement as unknown as SqliteStatement;
    },
  };
}

/** Opens a better-sqlite3 handle with the pragmas every connection of this product uses. */
export function openSqlite(location: string): BetterSqlite3.Database {
  if (location !== ':memory:') mkdirSync(dirname(location), { recursive: true });
  const raw = new BetterSqlite3(location);
  if (location !== ':memory:') raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 10000');
  raw.pragma('synchronous = NORMAL');
  return raw;
}

export function createDatabase(config: DatabaseConfig): Database {
  if (config.dialect === 'sqlite') {
    const raw = openSqlite(config.location);
    const db = new Kysely<DB>({ dialect: new ImmediateSqliteDialect(withStatementCache(raw)) });
    registerSqliteHandle(db, raw);
    return { db, dialect: 'sqlite', destroy: () => db.destroy() };
  }
  const pool = new pg.Pool({
    Client: NamedStatementClient,
    connectionString: config.url,
    max: config.poolSize ?? 10,
    types: postgresTypeParsers(),
    ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', destroy: () => db.destroy() };
}

/** True when the database answers a trivial query (readiness probes). */
export async function isDatabaseReachable(database: Database): Promise<boolean> {
  try {
    await database.db.executeQuery(CompiledQuery.raw('select 1'));
    return true;
  } catch {
    return false;
  }
}
