// How a database runs statements: one runner per open database, implemented once per dialect
// (dialects/*-runner.ts) over its driver's public API. Every
// statement of the process ends here, whether a repository sent it (execute.ts), a prepared
// query, or Kysely itself (migrations, tests; see kysely-bridge.ts).
import type { CompiledQuery, QueryResult } from 'kysely';

/** A statement's result: synchronous when the database answered at once (an embedded database). */
export type RunResult<R> = QueryResult<R> | Promise<QueryResult<R>>;

/** Runs one compiled statement; what a scope (a database or one transaction) carries. */
export interface StatementRunner {
  /**
   * Runs `compiled` and reports it to the database's events (once). May throw synchronously with
   * the driver's own error when it answered at once.
   */
  run<R>(compiled: CompiledQuery): RunResult<R>;
}

/** One open transaction: its statements run on its own connection until it commits or rolls back. */
export interface OpenTransaction extends StatementRunner {
  /** Commits; when COMMIT fails, the transaction is rolled back (or its connection destroyed) and the error thrown. */
  commit(): Promise<void>;
  /** Rolls back; never throws: a connection that cannot roll back is destroyed instead. Safe to call twice. */
  rollback(): Promise<void>;
}

/** A runner that can also start transactions: an open database's, or one session of it. */
export interface SessionRunner extends StatementRunner {
  /** `work` in one transaction: commit when it returns, rollback when it throws. */
  transaction<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T>;
  /**
   * `work` in one read-only transaction that sees one snapshot of the database from its first
   * statement to its last, whatever commits meanwhile (an invariant check that must not see half a
   * change). Always rolled back: it writes nothing.
   */
  snapshot<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T>;
  /**
   * Runs single statements that commit on their own at once, outside any transaction of this
   * database, on connections kept for them alone, so a transaction never waits for a connection
   * the pool lends to others (a per-tenant counter whose row lock must not last a transaction).
   * Undefined where the database has one writer: a transaction there holds the whole database
   * anyway, and runs such a statement itself.
   */
  readonly autonomous: StatementRunner | undefined;
  /**
   * A transaction whose end the caller decides (Kysely's transactions: the Migrator's, on one
   * session, see migrate.ts). Prefer `transaction`.
   */
  begin(): Promise<OpenTransaction>;
}

/** An open database's statement runner. */
export interface DatabaseRunner extends SessionRunner {
  /**
   * `work`'s statements on one connection, taken once for all of them (a request's reads: one pool
   * checkout instead of one per statement). A transaction or snapshot begun in the session runs on
   * that connection too, so a session never waits for a second connection a full pool cannot
   * lend; a statement sent while one is open waits for it to end. Where the database has one
   * connection anyway, `work` gets the database's own runner.
   */
  session<T>(work: (session: SessionRunner) => Promise<T>): Promise<T>;
  /** How its connections are used right now (metrics); cheap. */
  connections(): DatabaseConnections;
  /** Closes every connection. Idempotent. */
  destroy(): Promise<void>;
}

/** Where a database reports statements and connections it lost (they are replaced; nothing else needs doing). */
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

/**
 * `work` in the transaction `begin` opens: commit when it returns, rollback when it throws (or
 * when the commit fails). The one shape of a transaction every runner shares.
 *
 * @example transaction: (work) => inTransaction(() => this.begin(), work)
 */
export async function inTransaction<T>(begin: () => Promise<OpenTransaction>, work: (tx: StatementRunner) => Promise<T>): Promise<T> {
  const tx = await begin();
  let result: T;
  try {
    result = await work(tx);
  } catch (error) {
    await tx.rollback();
    throw error;
  }
  await tx.commit();
  return result;
}

/** The error of a statement sent to a transaction that has ended already. */
export function transactionEnded(): Error {
  return new Error('this transaction has ended: its statements must run inside withTransaction’s work');
}

/**
 * `work` in the read-only transaction `begin` opens, rolled back whatever happens (it wrote nothing).
 *
 * @example snapshot: (work) => inReadOnlySnapshot(() => this.#beginSnapshot(), work)
 */
export async function inReadOnlySnapshot<T>(begin: () => Promise<OpenTransaction>, work: (tx: StatementRunner) => Promise<T>): Promise<T> {
  const tx = await begin();
  try {
    return await work(tx);
  } finally {
    await tx.rollback();
  }
}
