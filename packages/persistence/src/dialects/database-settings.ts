// What every database takes, whichever dialect opens it: the deadlines a caller may be kept
// waiting, a name for the connections, a pool size. Each dialect's configuration adds its own
// fields to these (see dialects/sql-dialect.ts); database-config.ts reads them from DATABASE_URL.

/**
 * How long the database may keep a caller waiting. Past a deadline the call fails with an error
 * that `isDatabaseUnavailable` recognises, so the apps answer 503 instead of hanging.
 */
export interface DatabaseDeadlines {
  /** PostgreSQL: opening a connection, and waiting for a free one in the pool. */
  connectTimeoutMs: number;
  /**
   * One statement: PostgreSQL's `statement_timeout` (lock waits included; the client also gives
   * up on a connection that stays silent this long plus a second), SQLite's busy timeout.
   */
  statementTimeoutMs: number;
}

/** Safe defaults: a database that does not answer within these is treated as unavailable. */
export const DEFAULT_DATABASE_DEADLINES: DatabaseDeadlines = { connectTimeoutMs: 2000, statementTimeoutMs: 5000 };

/** The settings every dialect's configuration has besides its own. */
export interface DatabaseSettings {
  /** Missing fields take DEFAULT_DATABASE_DEADLINES. */
  deadlines?: Partial<DatabaseDeadlines>;
  /** PostgreSQL: shown in pg_stat_activity, so an operator (or a test) can tell the processes apart. */
  applicationName?: string;
  /** Connections kept open at most (PostgreSQL's pool; SQLite always uses one per process). */
  poolSize?: number;
}

/**
 * The deadlines a configuration resolves to.
 *
 * @example deadlinesOf({ deadlines: { statementTimeoutMs: 800 } }) // { connectTimeoutMs: 2000, statementTimeoutMs: 800 }
 */
export function deadlinesOf(settings: DatabaseSettings): DatabaseDeadlines {
  return { ...DEFAULT_DATABASE_DEADLINES, ...settings.deadlines };
}
