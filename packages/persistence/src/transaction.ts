// Transactions: each state change, its stock effect and its ledger rows commit together or not at
// all. A `Tx` is what functions that lock rows demand, so they cannot run outside a transaction.
import type { Kysely, Transaction } from 'kysely';
import { AppError } from '@pits/domain';
import { DatabaseUnavailableError } from './database-unavailable-error.js';
import type { DirectExecutor, SqlDialect } from './dialects/sql-dialect.js';
import type { DB } from './schema/index.js';

/** Whether the caller has given up: an AbortSignal, or any deadline that reads `aborted`. */
export interface CallerDeadline {
  readonly aborted: boolean;
}

/** Anything queries can run on: an open database or a transaction. */
export interface Scope {
  readonly db: Kysely<DB>;
  /** How this database differs from others: locks, upserts, search (see dialects/sql-dialect.ts). */
  readonly dialect: SqlDialect;
  /**
   * The caller's deadline (a request's): once it is aborted, a transaction run in this scope
   * rolls back instead of committing, so work is never committed after its caller was told 503.
   */
  readonly signal?: CallerDeadline | undefined;
  /** The database's way to run a statement at once (see `DirectExecutor`); prepared queries use it when present. */
  readonly direct?: DirectExecutor | undefined;
}

/** A running transaction. */
export interface Tx extends Scope {
  readonly db: Transaction<DB>;
}

const MAX_ATTEMPTS = 5;

function deadlinePassed(): DatabaseUnavailableError {
  return new DatabaseUnavailableError('the caller’s deadline passed before the transaction could commit');
}

/**
 * Runs `work` in one transaction; commits when it returns, rolls back when it throws. Given a
 * scope that is already a transaction, `work` joins it (so a use case can run inside a wider unit,
 * such as a request whose Idempotency-Key response commits with its work). A lock timeout,
 * deadlock or serialization failure of an outermost transaction is retried a few times with a
 * short backoff; an `AppError` (an expected refusal) is never retried. A scope with an aborted
 * `signal` never commits.
 *
 * @example
 * const record = await withTransaction(database, async (tx) => {
 *   const row = await lockAdjustment(tx, tenantId, number);
 *   ...
 * });
 */
export async function withTransaction<T>(scope: Scope, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (scope.db.isTransaction) return work(scope as Tx);
  const { signal } = scope;
  for (let attempt = 1; ; attempt += 1) {
    if (signal?.aborted) throw deadlinePassed();
    try {
      const inTransaction = async (trx: Transaction<DB>, direct: DirectExecutor | undefined = scope.direct) => {
        const result = await work({ db: trx, dialect: scope.dialect, signal, direct });
        if (signal?.aborted) throw deadlinePassed();
        return result;
      };
      return await (scope.direct?.transaction ? scope.direct.transaction(inTransaction) : scope.db.transaction().execute(inTransaction));
    } catch (error) {
      if (error instanceof AppError || attempt >= MAX_ATTEMPTS || !scope.dialect.errors.isTransientConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt + Math.random() * 10));
    }
  }
}
