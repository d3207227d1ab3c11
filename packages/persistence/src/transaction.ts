// Transactions: each state change, its stock effect and its ledger rows commit together or not at
// all. A `Tx` is what functions that lock rows demand, so they cannot run outside a transaction.
import type { Kysely, Transaction } from 'kysely';
import { AppError } from '@pits/domain';
import type { Dialect } from './database-config.js';
import { isTransientConflict } from './dialect.js';
import type { DB } from './schema/index.js';

/** Anything queries can run on: an open database or a transaction. */
export interface Scope {
  readonly db: Kysely<DB>;
  readonly dialect: Dialect;
}

/** A running transaction. */
export interface Tx extends Scope {
  readonly db: Transaction<DB>;
}

const MAX_ATTEMPTS = 5;

/**
 * Runs `work` in one transaction; commits when it returns, rolls back when it throws. A lock
 * timeout, deadlock or serialization failure is retried a few times with a short backoff; an
 * `AppError` (an expected refusal) is never retried.
 *
 * @example
 * const record = await withTransaction(database, async (tx) => {
 *   const row = await lockAdjustment(tx, tenantId, number);
 *   ...
 * });
 */
export async function withTransaction<T>(database: Scope, work: (tx: Tx) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await database.db.transaction().execute((trx) => work({ db: trx, dialect: database.dialect }));
    } catch (error) {
      if (error instanceof AppError || attempt >= MAX_ATTEMPTS || !isTransientConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt + Math.random() * 10));
    }
  }
}
