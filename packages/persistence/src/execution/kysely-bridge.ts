// Kysely over a runner, through Kysely's public Dialect/Driver/DatabaseConnection interfaces:
// the Kysely instance of an open database (tests build and execute with it) sends every statement
// to the database's one runner, so builder and prepared statements end in the same place and report
// to the same events; the Migrator's instance sends them to one session of that runner. A
// transaction scope's Kysely instance builds only: executing it fails loudly instead of running
// outside the transaction.
import {
  type CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect,
  type DialectAdapter,
  type Driver,
  Kysely,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { DatabaseRunner, OpenTransaction, RunResult, SessionRunner } from './statement-runner.js';

/** What a dialect gives Kysely besides the driver: its SQL compiler, adapter and introspector. */
export type QueryDialect = Omit<Dialect, 'createDriver'>;

const settle = <R>(run: () => RunResult<R>): Promise<QueryResult<R>> => {
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(error as Error);
  }
};

/** A Kysely connection: the runner's, or one transaction's while Kysely holds one open. */
class RunnerConnection implements DatabaseConnection {
  transaction: OpenTransaction | undefined;

  constructor(private readonly runner: SessionRunner) {}

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const on = this.transaction ?? this.runner;
    return settle(() => on.run<R>(compiled));
  }

  // Nothing in this product streams; a stream is the whole result, a row at a time.
  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    for (const row of (await this.executeQuery<R>(compiled)).rows) yield { rows: [row] };
  }
}

class RunnerDriver implements Driver {
  /** `close`: what destroying the Kysely instance closes (the database's runner, or nothing). */
  constructor(
    private readonly runner: SessionRunner,
    private readonly close: () => Promise<void>,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    return new RunnerConnection(this.runner);
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.isolationLevel !== undefined || settings.accessMode !== undefined) {
      throw new Error('transactions of this database take no isolation level or access mode');
    }
    (connection as RunnerConnection).transaction = await this.runner.begin();
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RunnerConnection;
    const open = c.transaction;
    c.transaction = undefined;
    await open?.commit();
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    const c = connection as RunnerConnection;
    const open = c.transaction;
    c.transaction = undefined;
    await open?.rollback();
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    // A connection released inside its transaction (Kysely never does this) must not leave it open.
    await this.rollbackTransaction(connection);
  }

  destroy(): Promise<void> {
    return this.close();
  }
}

/**
 * The Kysely instance of an open database: builds with `dialect`, runs every statement on `runner`.
 *
 * @example const db = kyselyOver<DB>(runner, dialect.queryDialect);
 */
export function kyselyOver<T>(runner: DatabaseRunner, dialect: QueryDialect): Kysely<T> {
  return kyselyWith<T>(new RunnerDriver(runner, () => runner.destroy()), dialect);
}

/**
 * A Kysely instance whose every statement and transaction runs on one session (one connection):
 * what the Migrator needs, since it takes its lock, runs its transaction and releases the lock as
 * three steps that must share a connection. Destroying it leaves the session to its owner.
 *
 * @example await database.runner.session((session) => new Migrator({ db: kyselyOverSession(session, dialect.queryDialect), provider }).migrateToLatest());
 */
export function kyselyOverSession<T>(session: SessionRunner, dialect: QueryDialect): Kysely<T> {
  return kyselyWith<T>(new RunnerDriver(session, async () => undefined), dialect);
}

function kyselyWith<T>(driver: RunnerDriver, dialect: QueryDialect): Kysely<T> {
  return new Kysely<T>({
    dialect: {
      createAdapter: (): DialectAdapter => dialect.createAdapter(),
      createQueryCompiler: (): QueryCompiler => dialect.createQueryCompiler(),
      createIntrospector: (db: Kysely<unknown>): DatabaseIntrospector => dialect.createIntrospector(db),
      createDriver: (): Driver => driver,
    },
  });
}

/** Why a transaction's Kysely instance does not execute. */
export const BUILD_ONLY_MESSAGE =
  'inside a transaction, tx.db only builds queries: run them with execute(tx, query), executeTakeFirst(tx, query) or executeWrite(tx, query) (execution/execute.ts), so they run in the transaction';

class BuildOnlyDriver implements Driver {
  async init(): Promise<void> {}
  acquireConnection(): Promise<DatabaseConnection> {
    return Promise.reject(new Error(BUILD_ONLY_MESSAGE));
  }
  beginTransaction(): Promise<void> {
    return Promise.reject(new Error(BUILD_ONLY_MESSAGE));
  }
  async commitTransaction(): Promise<void> {}
  async rollbackTransaction(): Promise<void> {}
  async releaseConnection(): Promise<void> {}
  async destroy(): Promise<void> {}
}

const buildOnly = new WeakMap<QueryDialect, Kysely<never>>();

/**
 * A Kysely instance that compiles `dialect`'s SQL and refuses to execute anything: a transaction
 * scope's `db`, so a builder's `.execute()` inside a transaction fails instead of running outside it.
 * One per dialect.
 */
export function buildOnlyKysely<T>(dialect: QueryDialect): Kysely<T> {
  let db = buildOnly.get(dialect);
  if (!db) {
    db = new Kysely<never>({
      dialect: {
        createAdapter: () => dialect.createAdapter(),
        createQueryCompiler: () => dialect.createQueryCompiler(),
        createIntrospector: (kysely) => dialect.createIntrospector(kysely),
        createDriver: () => new BuildOnlyDriver(),
      },
    });
    buildOnly.set(dialect, db);
  }
  return db as unknown as Kysely<T>;
}
