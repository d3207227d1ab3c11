// What queries run on: a scope carries the Kysely instance that BUILDS them, the dialect, and the
// runner that RUNS them (an open database's, or one transaction's). Repositories build with
// `scope.db` and run with the functions of execute.ts, the same way in and out of transactions.
import type { CompiledQuery, Kysely } from 'kysely';
import type { SqlDialect } from '../dialects/sql-dialect.js';
import type { DB } from '../schema/index.js';
import type { StatementRunner } from './statement-runner.js';

/** Whether the caller has given up: an AbortSignal, or any deadline that reads `aborted`. */
export interface CallerDeadline {
  readonly aborted: boolean;
}

/** Anything queries can run on: an open database or a transaction. */
export interface Scope {
  /** Builds queries (never runs them: see execute.ts). Inside a transaction it refuses to execute. */
  readonly db: Kysely<DB>;
  /** How this database differs from others: locks, upserts, search (see dialects/sql-dialect.ts). */
  readonly dialect: SqlDialect;
  /** Runs the compiled statements of this scope. */
  readonly runner: StatementRunner;
  /**
   * The caller's deadline (a request's): once it is aborted, a transaction run in this scope
   * rolls back instead of committing, so work is never committed after its caller was told 503.
   */
  readonly signal?: CallerDeadline | undefined;
}

/** Marks a scope whose runner is one transaction's connection. */
export const IN_TRANSACTION: unique symbol = Symbol('pits.inTransaction');

/** A running transaction: what functions that lock rows demand. */
export interface Tx extends Scope {
  readonly [IN_TRANSACTION]: true;
  /**
   * Runs a statement that commits on its own at once, outside this transaction (see
   * `DatabaseRunner.autonomous`); where the database has one writer, this transaction's own runner.
   */
  readonly autonomous: StatementRunner;
}

/** True when `scope` is a transaction's. */
export function isTransaction(scope: Scope): scope is Tx {
  return (scope as Partial<Tx>)[IN_TRANSACTION] === true;
}

/** A query whose compiled form depends on the scope it runs in (a prepared query bound to its parameters). */
export interface ScopedQuery<R> {
  compileIn(scope: Scope): CompiledQuery<R>;
}
