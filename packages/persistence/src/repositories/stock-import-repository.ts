// What the opening-stock import reads besides the catalogue: a tenant's locations by code, and the
// opening balances an earlier run of the import already recorded (ledger rows of cause `opening`
// whose id is the row's reference, see `openingImportReference`).
import { type Dec, ZERO, fromScaled } from '@pits/domain';
import { execute } from '../execution/execute.js';
import type { Scope } from '../transaction.js';

/**
 * The tenant's live locations among `codes` (exact), their ids by code. Codes of other tenants,
 * of deleted locations or unknown ones are absent.
 *
 * @example (await findTenantLocationsByCode(database, tenantId, ['WH-JKT'])).get('WH-JKT') // 12
 */
export async function findTenantLocationsByCode(scope: Scope, tenantId: string, codes: readonly string[]): Promise<Map<string, number>> {
  const unique = [...new Set(codes)];
  const found = new Map<string, number>();
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await execute(
      scope,
      scope.db.selectFrom('locations').select(['id', 'code']).where('tenant_id', '=', tenantId).where('code', 'in', unique.slice(i, i + 500)).where('deleted_at', 'is', null),
    );
    for (const row of rows) found.set(row.code, Number(row.id));
  }
  return found;
}

/**
 * The good units each of `references` brought in as opening stock of the tenant, by reference;
 * references never recorded are absent. Read through the ledger's (cause_type, cause_id) index.
 *
 * @example (await findOpeningsByReference(tx, tenantId, [reference])).get(reference)?.toFixed() // '12.5'
 */
export async function findOpeningsByReference(scope: Scope, tenantId: string, references: readonly string[]): Promise<Map<string, Dec>> {
  const unique = [...new Set(references)];
  const found = new Map<string, Dec>();
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await execute(
      scope,
      scope.db
        .selectFrom('stock_ledger')
        .select(['cause_id', 'bucket', 'delta'])
        .where('cause_type', '=', 'opening')
        .where('cause_id', 'in', unique.slice(i, i + 500))
        .where('tenant_id', '=', tenantId),
    );
    for (const row of rows) {
      const good = row.bucket === 'good' ? fromScaled(row.delta) : ZERO;
      found.set(row.cause_id, (found.get(row.cause_id) ?? ZERO).plus(good));
    }
  }
  return found;
}
