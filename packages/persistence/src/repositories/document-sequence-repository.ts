import type { DocumentPrefix } from '@pits/domain';
import { type ParamRef, preparedQuery } from '../parameterised-query.js';
import type { Tx } from '../transaction.js';
import { execute } from '../execution/execute.js';

const next = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; prefix: DocumentPrefix }>) =>
  scope.dialect.insertReturning(
    scope.dialect.upsert(scope.db.insertInto('document_sequences').values({ tenant_id: param('tenantId'), prefix: param('prefix'), last_value: 1 }), ['tenant_id', 'prefix'], (eb) => ({
      last_value: eb('document_sequences.last_value', '+', 1),
    })),
    ['last_value'],
  ),
});

/**
 * The next value of a tenant's document sequence. The upsert locks the sequence row until the
 * transaction ends, so concurrent creators get distinct values; a rolled-back transaction leaves
 * a gap, never a duplicate.
 */
export async function nextDocumentSequence(tx: Tx, tenantId: string, prefix: DocumentPrefix): Promise<number> {
  const [row] = await execute(tx, next.with({ tenantId, prefix }));
  return row!.last_value;
}

/**
 * The next value of a tenant's document sequence, committed at once outside `tx` (on a database
 * with one writer, in it): the sequence row is locked for that one statement only, so documents of
 * one tenant created at the same moment do not queue behind each other's transactions. A value
 * whose transaction then rolls back is never used: the numbers have gaps (docs/holds.md#reservations).
 */
export async function claimDocumentSequence(tx: Tx, tenantId: string, prefix: DocumentPrefix): Promise<number> {
  const [row] = await execute({ db: tx.db, dialect: tx.dialect, runner: tx.autonomous, signal: tx.signal }, next.with({ tenantId, prefix }));
  return row!.last_value;
}

// For the benchmarks' bare routes (bench/bench-statements.ts).
export { next as nextDocumentSequenceQuery };
