// Transactions: each state change, its stock effect and its ledger rows commit together or not at
// all. A `Tx` is what functions that lock rows demand, so they cannot run outside a transaction.
// This is the one transaction path: it asks the scope's runner for a transaction.
import { AppError, type DomainError } from '@pits/domain';
import { DatabaseUnavailableError } from './database-unavailable-error.js';
import { buildOnlyKysely } from './execution/kysely-bridge.js';
import { type Scope, type Tx, IN_TRANSACTION, isTransaction } from './execution/scope.js';
import type { DatabaseRunner, SessionRunner, StatementRunner } from './execution/statement-runner.js';
import type { DB } from './schema/index.js';

export type { CallerDeadline, Scope, Tx } from './execution/scope.js';

const MAX_ATTEMPTS = 5;

/**
 * A refusal that does not undo what its transaction did before it: `withTransaction` commits, then
 * throws it. For a use case that finds the world changed and must record that first: a call on an
 * order hold past its expiry expires the hold (giving its stock back) and is refused
 * (docs/holds.md#states-and-expiry). Running the call again gives the same refusal. A transaction
 * is what it changes, so it lives here and not in the domain, which knows no transactions.
 */
export class CommittedRefusal extends AppError {
  constructor(error: DomainError) {
    super(error);
    this.name = 'CommittedRefusal';
  }
}

function deadlinePassed(): DatabaseUnavailableError {
  return new DatabaseUnavailableError('the caller’s deadline passed before the transaction could commit');
}

const startsTransactions = (runner: StatementRunner): runner is SessionRunner => typeof (runner as Partial<SessionRunner>).transaction === 'function';
const startsSessions = (runner: StatementRunner): runner is DatabaseRunner => typeof (runner as Partial<DatabaseRunner>).session === 'function';

/**
 * Runs `work` in one transaction; commits when it returns, rolls back when it throws, except for a
 * `CommittedRefusal`, which commits what `work` did and is then thrown. Given a
 * scope that is already a transaction, `work` joins it (so a use case can run inside a wider unit,
 * such as a request whose Idempotency-Key response commits with its work). A lock timeout,
 * deadlock or serialization failure of an outermost transaction is retried a few times with a
 * short backoff; an `AppError` (an expected refusal) is never retried. A scope with an aborted
 * `signal` never commits. Inside `work`, build with `tx.db` and run with `execute(tx, query)`.
 *
 * @example
 * const record = await withTransaction(database, async (tx) => {
 *   const row = await lockAdjustment(tx, tenantId, number);
 *   ...
 * });
 */
export async function withTransaction<T>(scope: Scope, work: (tx: Tx) => Promise<T>): Promise<T> {
  if (isTransaction(scope)) return work(scope);
  const { signal, dialect, runner } = scope;
  if (!startsTransactions(runner)) throw new Error('withTransaction: this scope’s runner cannot start a transaction');
  const db = buildOnlyKysely<DB>(dialect.queryDialect);
  for (let attempt = 1; ; attempt += 1) {
    if (signal?.aborted) throw deadlinePassed();
    try {
      const outcome = await runner.transaction(async (connection): Promise<{ result: T } | { refusal: CommittedRefusal }> => {
        let result: T;
        try {
          result = await work({ db, dialect, signal, runner: connection, autonomous: runner.autonomous ?? connection, [IN_TRANSACTION]: true });
        } catch (error) {
          if (!(error instanceof CommittedRefusal)) throw error;
          if (signal?.aborted) throw deadlinePassed();
          return { refusal: error };
        }
        if (signal?.aborted) throw deadlinePassed();
        return { result };
      });
      if ('refusal' in outcome) throw outcome.refusal;
      return outcome.result;
    } catch (error) {
      if (error instanceof AppError || attempt >= MAX_ATTEMPTS || !dialect.errors.isTransientConflict(error)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 5 * 2 ** attempt + Math.random() * 10));
    }
  }
}

/**
 * Runs `work`'s reads on one snapshot of the database (the runner's `snapshot`: one read-only
 * transaction that sees the database as of its first statement): what commits meanwhile is not
 * seen, so a check across tables never sees half of a change. A scope that is a transaction
 * already is used as it is.
 *
 * @example const found = await withSnapshot(database, (snapshot) => readInvariants(snapshot));
 */
export async function withSnapshot<T>(scope: Scope, work: (snapshot: Scope) => Promise<T>): Promise<T> {
  if (isTransaction(scope)) return work(scope);
  const { dialect, runner, signal } = scope;
  if (!startsTransactions(runner)) throw new Error('withSnapshot: this scope’s runner cannot start a transaction');
  const db = buildOnlyKysely<DB>(dialect.queryDialect);
  return runner.snapshot((connection) => work({ db, dialect, signal, runner: connection }));
}

/**
 * Runs `work`'s statements on one connection of the scope's database (`DatabaseRunner.session`): a
 * read of several statements takes one pooled connection, not one per statement. A transaction
 * begun inside runs on it too. A scope that is a transaction, or a session already, is used as it is.
 *
 * @example const adjustment = await withSession(scope, (session) => findAdjustment(session, tenantId, number));
 */
export async function withSession<T>(scope: Scope, work: (session: Scope) => Promise<T>): Promise<T> {
  const { dialect, runner, signal } = scope;
  if (isTransaction(scope) || !startsSessions(runner)) return work(scope);
  return runner.session((session) => work({ db: scope.db, dialect, signal, runner: session }));
}
