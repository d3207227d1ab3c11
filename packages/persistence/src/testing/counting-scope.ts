// A scope over a database that counts the statements run through it: what a test of "this read is
// one statement" asserts on.
import type { CompiledQuery } from 'kysely';
import type { Database } from '../create-database.js';
import type { Scope } from '../execution/scope.js';
import type { StatementRunner } from '../execution/statement-runner.js';

/**
 * `scope` runs its statements on `database`; `statements` says how many it has run.
 *
 * @example const counted = countingScope(database); await findAdjustment(counted.scope, tenantId, n); expect(counted.statements).toBe(1);
 */
export function countingScope(database: Database): { readonly statements: number; readonly scope: Scope } {
  let statements = 0;
  const runner: StatementRunner = {
    run: <R>(compiled: CompiledQuery) => {
      statements += 1;
      return database.runner.run<R>(compiled);
    },
  };
  return {
    get statements() {
      return statements;
    },
    scope: { db: database.db, dialect: database.dialect, runner },
  };
}
