import type { DocumentPrefix } from '@pits/domain';
import { preparedQuery } from '../prepared-query.js';
import type { Tx } from '../transaction.js';

const next = preparedQuery((scope, p: { tenantId: string; prefix: DocumentPrefix }) =>
  scope.db
    .insertInto('document_sequences')
    .values({ tenant_id: p.tenantId, prefix: p.prefix, last_value: 1 })
    .onConflict((oc) => oc.columns(['tenant_id', 'prefix']).doUpdateSet((eb) => ({ last_value: eb('document_sequences.last_value', '+', 1) })))
    .returning('last_value'),
);

/**
 * The next value of a tenant's document sequence. The upsert locks the sequence row until the
 * transaction ends, so concurrent creators get distinct values; a rolled-back transaction leaves
 * a gap, never a duplicate.
 */
export async function nextDocumentSequence(tx: Tx, tenantId: string, prefix: DocumentPrefix): Promise<number> {
  const [row] = await next.execute(tx, { tenantId, prefix });
  return row!.last_value;
}
