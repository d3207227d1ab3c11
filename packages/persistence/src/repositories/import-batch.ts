// One import batch in one transaction; a dry run does the same work and counting, then rolls back.
import type { Database } from '../create-database.js';
import { type Tx, withTransaction } from '../transaction.js';

class Rollback<T> extends Error {
  constructor(readonly result: T) {
    super('dry run: rolled back');
  }
}

/**
 * Runs `work` in one transaction and returns its result; with `dryRun` the transaction is rolled
 * back after `work` has counted what it would change.
 *
 * @example
 * const counts = await importBatch(database, options.dryRun, (tx) => writeAndCount(tx, rows));
 */
export async function importBatch<T>(database: Database, dryRun: boolean | undefined, work: (tx: Tx) => Promise<T>): Promise<T> {
  try {
    return await withTransaction(database, async (tx) => {
      const result = await work(tx);
      if (dryRun) throw new Rollback(result);
      return result;
    });
  } catch (error) {
    if (error instanceof Rollback) return error.result as T;
    throw error;
  }
}
