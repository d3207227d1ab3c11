import type { DocumentPrefix } from '@pits/domain';
import type { Tx } from '../transaction.js';

/**
 * The next value of a tenant's document sequence. The upsert locks the sequence row until the
 * transaction ends, so concurrent creators get distinct values; a rolled-back transaction leaves
 * a gap, never a duplicate.
 */
export async function nextDocumentSequence(tx: Tx, tenantId: string, prefix: DocumentPrefix): Promise<number> {
  const row = await tx.db
    .insertInto('document_sequences')
    .values({ tenant_id: tenantId, prefix, last_value: 1 })
    .onConflict((oc) =>
      oc.columns(['tenant_id', 'prefix']).doUpdateSet((eb) => ({ last_value: eb('document_sequences.last_value', '+', 1) })),
    )
    .returning('last_value')
    .executeTakeFirstOrThrow();
  return row.last_value;
}
