// The one way to open a database: a factory from a DatabaseConfig, never a module-level connection.
// How each database is opened (driver, pool, deadlines) is its dialect's business (./dialects).
import { CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseConfig } from './database-config.js';
import { dialectOf } from './dialects/dialect-registry.js';
import type { DatabaseConnections, DatabaseEvents, DirectExecutor, SqlDialect } from './dialects/sql-dialect.js';
import type { DB } from './schema/index.js';

export type { DatabaseConnections, DatabaseEvents } from './dialects/sql-dialect.js';

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
  readonly dialect: SqlDialect;
  /** Runs statements at once when the database can take them now (an embedded database); see `DirectExecutor`. */
  readonly direct?: DirectExecutor;
  /** How its connections are used right now (metrics). */
  connections(): DatabaseConnections;
  destroy(): Promise<void>;
}

/**
 * Opens the database a config names, with its deadlines (DEFAULT_DATABASE_DEADLINES unless set):
 * every statement and lock wait is bounded, and a lost connection is replaced on the next use and
 * never ends the process.
 *
 * @example const database = createDatabase(config, { logger });
 */
export function createDatabase(config: DatabaseConfig, events: DatabaseEvents = {}): Database {
  const dialect = dialectOf(config);
  const db = dialect.open(config, events);
  const direct = dialect.directExecutor?.(db);
  return { db, dialect, ...(direct ? { direct } : {}), connections: () => dialect.connections(db), destroy: () => db.destroy() };
}

/**
 * True when the database answers a trivial query within `timeoutMs` (readiness probes): a probe
 * never waits longer than that, whatever the database does.
 */
export async function isDatabaseReachable(database: Database, timeoutMs = 1000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = database.db.executeQuery(CompiledQuery.raw('select 1')).then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}
