// The one way to open a database: a factory from a DatabaseConfig, never a module-level connection.
// How each database is opened (driver, pool, deadlines) is its dialect's business (./dialects);
// every statement then runs on the dialect's runner (./execution/statement-runner.ts).
import { CompiledQuery, type Kysely } from 'kysely';
import type { DatabaseConfig } from './database-config.js';
import { dialectOf } from './dialects/dialect-registry.js';
import type { SqlDialect } from './dialects/sql-dialect.js';
import { kyselyOver } from './execution/kysely-bridge.js';
import type { CallerDeadline, Scope } from './execution/scope.js';
import type { DatabaseConnections, DatabaseEvents, DatabaseRunner } from './execution/statement-runner.js';
import type { DB } from './schema/index.js';

export type { DatabaseConnections, DatabaseEvents } from './execution/statement-runner.js';

/**
 * An open database: a scope (queries built with `db`, run on `runner`) and the dialect it speaks.
 * `db` is a full Kysely instance over the same runner (migrations, tests); repositories run their
 * queries with the functions of execution/execute.ts.
 *
 * @example
 * const database = createDatabase(parseDatabaseUrl(process.env.DATABASE_URL));
 * await migrateToLatest(database);
 * await database.destroy();
 */
export interface Database extends Scope {
  readonly db: Kysely<DB>;
  readonly dialect: SqlDialect;
  readonly runner: DatabaseRunner;
  /** Which database this is, for messages: its file, or its server and database (never a password). */
  readonly description: string;
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
  const runner = dialect.open(config, events);
  const db = kyselyOver<DB>(runner, dialect.queryDialect);
  return {
    db,
    dialect,
    runner,
    description: dialect.url.describe(config),
    connections: () => runner.connections(),
    // Kysely destroys its driver only if a statement went through it; the runner is closed either way.
    destroy: async () => {
      await db.destroy();
      await runner.destroy();
    },
  };
}

/**
 * The scope a request's work runs in: the database, with the caller's deadline (a transaction
 * past it never commits).
 *
 * @example const scope = scopeOf(database, ctx.state.deadline);
 */
export function scopeOf(database: Database, signal?: CallerDeadline): Scope {
  return { db: database.db, dialect: database.dialect, runner: database.runner, signal };
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
  const probe = Promise.resolve()
    .then(() => database.runner.run(CompiledQuery.raw('select 1')))
    .then(
      () => true,
      () => false,
    );
  try {
    return await Promise.race([probe, late]);
  } finally {
    clearTimeout(timer);
  }
}
