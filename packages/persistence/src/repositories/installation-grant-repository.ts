// Merchant consent (docs/identity-and-consent.md#consent-and-installations): a grant names a tenant and a partner and stands until the
// merchant withdraws it. Authorize needs a standing grant; withdrawing one also ends the partner's
// installation for that tenant at once. Grants are written by the internal API (the merchant
// dashboard's backend), never by partners.
import { AppError, domainError } from '@pits/domain';
import type { Selectable } from 'kysely';
import type { InstallationGrantTable } from '../schema/index.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow, executeWrite } from '../execution/execute.js';

/** A grant and where the partner's installation for the tenant stands. */
export interface InstallationGrantRecord {
  tenantId: string;
  partnerId: number;
  /** `granted` while it stands, `withdrawn` after the merchant withdrew it. */
  status: 'granted' | 'withdrawn';
  grantedAt: string;
  withdrawnAt: string | null;
  withdrawReason: string | null;
  installation: { id: string; status: 'active' | 'ended'; installedAt: string; uninstallAt: string | null } | null;
}

/** The reason an installation ends with when the merchant withdraws access without saying why. */
export const ACCESS_WITHDRAWN_REASON = 'access withdrawn by the merchant';

function grantQuery(scope: Scope) {
  return scope.db
    .selectFrom('installation_grants as g')
    .leftJoin('installations as i', (join) => join.onRef('i.tenant_id', '=', 'g.tenant_id').onRef('i.partner_id', '=', 'g.partner_id'))
    .selectAll('g')
    .select(['i.id as installation_id', 'i.installed_at', 'i.uninstall_at']);
}

type GrantRow = Selectable<InstallationGrantTable> & { installation_id: string | null; installed_at: string | null; uninstall_at: string | null };

function toRecord(row: GrantRow): InstallationGrantRecord {
  return {
    tenantId: row.tenant_id,
    partnerId: row.partner_id,
    status: row.withdrawn_at === null ? 'granted' : 'withdrawn',
    grantedAt: row.granted_at,
    withdrawnAt: row.withdrawn_at,
    withdrawReason: row.withdraw_reason,
    installation:
      row.installation_id === null
        ? null
        : { id: row.installation_id, status: row.uninstall_at === null ? 'active' : 'ended', installedAt: row.installed_at!, uninstallAt: row.uninstall_at },
  };
}

async function readGrant(scope: Scope, tenantId: string, partnerId: number): Promise<InstallationGrantRecord | undefined> {
  const row = await executeTakeFirst(scope, grantQuery(scope).where('g.tenant_id', '=', tenantId).where('g.partner_id', '=', partnerId));
  return row && toRecord(row);
}

/** The grant row of (tenant, partner), locked until the transaction ends, so authorize and withdraw serialise. */
export async function lockGrant(tx: Tx, tenantId: string, partnerId: number): Promise<Selectable<InstallationGrantTable> | undefined> {
  return executeTakeFirst(tx, tx.dialect.lockRows(tx.db.selectFrom('installation_grants').selectAll().where('tenant_id', '=', tenantId).where('partner_id', '=', partnerId)));
}

async function requireParties(tx: Tx, tenantId: string, partnerId: number): Promise<void> {
  const [tenant, partner] = await Promise.all([
    executeTakeFirst(tx, tx.db.selectFrom('tenants').select('id').where('id', '=', tenantId)),
    executeTakeFirst(tx, tx.db.selectFrom('partners').select('id').where('id', '=', partnerId)),
  ]);
  if (!tenant) throw new AppError(domainError('NOT_FOUND', `tenant ${tenantId} does not exist`, { field: 'tenantId' }));
  if (!partner) throw new AppError(domainError('NOT_FOUND', `partner ${partnerId} does not exist`, { field: 'partnerId' }));
}

/**
 * The merchant lets the partner connect. Idempotent; granting again after a withdrawal makes the
 * grant stand again (the partner may then authorize; nothing is connected by the grant itself).
 */
export async function grantAccess(scope: Scope, input: { tenantId: string; partnerId: number }, now: Date): Promise<InstallationGrantRecord> {
  const at = now.toISOString();
  return withTransaction(scope, async (tx) => {
    await requireParties(tx, input.tenantId, input.partnerId);
    const existing = await lockGrant(tx, input.tenantId, input.partnerId);
    if (!existing) {
      await executeWrite(tx, tx.dialect
        .insertIgnoringDuplicates(
          tx.db
            .insertInto('installation_grants')
            .values({ tenant_id: input.tenantId, partner_id: input.partnerId, granted_at: at, withdrawn_at: null, withdraw_reason: null, created_at: at, updated_at: at }),
          ['tenant_id', 'partner_id'],
        ));
    } else if (existing.withdrawn_at !== null) {
      await executeWrite(tx, tx.db
        .updateTable('installation_grants')
        .set({ granted_at: at, withdrawn_at: null, withdraw_reason: null, updated_at: at })
        .where('tenant_id', '=', input.tenantId)
        .where('partner_id', '=', input.partnerId));
    }
    return (await readGrant(tx, input.tenantId, input.partnerId))!;
  });
}

/**
 * The merchant withdraws the partner's access: the grant stops standing and the installation, if
 * active, ends now (every tenant-scoped call of the partner for this tenant is refused from the
 * next request on). No grant for the pair: NOT_FOUND. Withdrawing twice keeps the first withdrawal.
 */
export async function withdrawAccess(scope: Scope, input: { tenantId: string; partnerId: number; reason?: string | undefined }, now: Date): Promise<InstallationGrantRecord> {
  const at = now.toISOString();
  return withTransaction(scope, async (tx) => {
    const existing = await lockGrant(tx, input.tenantId, input.partnerId);
    if (!existing) {
      throw new AppError(domainError('NOT_FOUND', `tenant ${input.tenantId} has no grant for partner ${input.partnerId}`, { field: 'partnerId' }));
    }
    if (existing.withdrawn_at === null) {
      const reason = input.reason ?? null;
      await executeWrite(tx, tx.db
        .updateTable('installation_grants')
        .set({ withdrawn_at: at, withdraw_reason: reason, updated_at: at })
        .where('tenant_id', '=', input.tenantId)
        .where('partner_id', '=', input.partnerId));
      await executeWrite(tx, tx.db
        .updateTable('installations')
        .set({ uninstall_at: at, uninstall_reason: reason ?? ACCESS_WITHDRAWN_REASON, updated_at: at })
        .where('tenant_id', '=', input.tenantId)
        .where('partner_id', '=', input.partnerId)
        .where('uninstall_at', 'is', null));
    }
    return (await readGrant(tx, input.tenantId, input.partnerId))!;
  });
}

/** A page of grants of a tenant, of a partner, or both (or every grant), tenant then partner order. */
export async function listGrants(
  scope: Scope,
  filter: { tenantId?: string | undefined; partnerId?: number | undefined },
  page: { limit: number; offset: number },
): Promise<{ rows: InstallationGrantRecord[]; total: number }> {
  let query = grantQuery(scope);
  let count = scope.db.selectFrom('installation_grants as g').select((eb) => eb.fn.countAll<number>().as('n'));
  if (filter.tenantId !== undefined) {
    query = query.where('g.tenant_id', '=', filter.tenantId);
    count = count.where('g.tenant_id', '=', filter.tenantId);
  }
  if (filter.partnerId !== undefined) {
    query = query.where('g.partner_id', '=', filter.partnerId);
    count = count.where('g.partner_id', '=', filter.partnerId);
  }
  const [rows, total] = await Promise.all([
    execute(scope, query.orderBy('g.tenant_id').orderBy('g.partner_id').limit(page.limit).offset(page.offset)),
    executeTakeFirstOrThrow(scope, count),
  ]);
  return { rows: rows.map(toRecord), total: Number(total.n) };
}
