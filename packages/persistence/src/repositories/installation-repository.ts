// Installations: a partner's right to act for a tenant. Authorize creates or reactivates one;
// deauthorize ends it, and from then on every tenant-scoped call for it is refused.
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { AppError, type PageRequest, domainError, pageOffset } from '@pits/domain';
import type { InstallationTable, InstallationType } from '../schema/index.js';
import { type ParamRef, preparedQuery } from '../parameterised-query.js';
import { type Scope, withTransaction } from '../transaction.js';
import { lockGrant } from './installation-grant-repository.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow, executeWrite } from '../execution/execute.js';

export type InstallationRow = Selectable<InstallationTable>;

/** An installation with what the contract shows beside it: the partner's public app id and key, the tenant's type. */
export interface InstallationRecord {
  id: string;
  partnerId: number;
  tenantId: string;
  tenantType: string;
  appId: string;
  appKey: string;
  installationType: InstallationType;
  daysConnected: number;
  installedAt: string;
  /** When it ended; null while it is active. */
  uninstallAt: string | null;
  uninstallReason: string | null;
  createdAt: string;
  updatedAt: string;
}

type JoinedRow = InstallationRow & { app_id: string; app_key: string; tenant_type: string };

export function toInstallationRecord(row: JoinedRow): InstallationRecord {
  return {
    id: row.id,
    partnerId: row.partner_id,
    tenantId: row.tenant_id,
    tenantType: row.tenant_type,
    appId: row.app_id,
    appKey: row.app_key,
    installationType: row.installation_type,
    daysConnected: row.days_connected,
    installedAt: row.installed_at,
    uninstallAt: row.uninstall_at,
    uninstallReason: row.uninstall_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function view(scope: Scope) {
  return scope.db
    .selectFrom('installations')
    .innerJoin('partners', 'partners.id', 'installations.partner_id')
    .innerJoin('tenants', 'tenants.id', 'installations.tenant_id')
    .selectAll('installations')
    .select(['partners.app_id', 'partners.app_key', 'tenants.tenant_type']);
}

async function findView(scope: Scope, partnerId: number, tenantId: string): Promise<InstallationRecord | undefined> {
  const row = await executeTakeFirst(scope, view(scope).where('installations.partner_id', '=', partnerId).where('installations.tenant_id', '=', tenantId));
  return row && toInstallationRecord(row);
}

/**
 * Creates the installation, or reactivates an ended one (clearing uninstall_at and its reason), or
 * updates an active one's days_connected and type. Idempotent: the same call twice leaves one
 * active installation. An unknown tenant is a VALIDATION_ERROR on `tenant_id`; a tenant that has
 * not granted this partner access (or withdrew it) is FORBIDDEN, and nothing is written.
 */
export async function authorizeTenant(
  scope: Scope,
  input: { partnerId: number; tenantId: string; daysConnected: number; installationType: InstallationType },
  now: Date,
): Promise<InstallationRecord> {
  const at = now.toISOString();
  const attempt = () =>
    withTransaction(scope, async (tx) => {
      const tenant = await executeTakeFirst(tx, tx.db.selectFrom('tenants').select('id').where('id', '=', input.tenantId));
      if (!tenant) {
        const issue = `tenant ${input.tenantId} does not exist`;
        throw new AppError(domainError('VALIDATION_ERROR', issue, { field: 'tenant_id', issue }));
      }
      // Locked, so a withdrawal cannot slip in between this check and the installation written below.
      const grant = await lockGrant(tx, input.tenantId, input.partnerId);
      if (!grant || grant.withdrawn_at !== null) {
        throw new AppError(domainError('FORBIDDEN', 'the tenant has not granted this partner access', { field: 'tenant_id' }));
      }
      const existing = await executeTakeFirst(tx, tx.db
        .selectFrom('installations')
        .selectAll()
        .where('partner_id', '=', input.partnerId)
        .where('tenant_id', '=', input.tenantId));
      if (!existing) {
        await executeWrite(tx, tx.db
          .insertInto('installations')
          .values({
            id: randomUUID(),
            partner_id: input.partnerId,
            tenant_id: input.tenantId,
            installation_type: input.installationType,
            days_connected: input.daysConnected,
            installed_at: at,
            uninstall_at: null,
            uninstall_reason: null,
            created_at: at,
            updated_at: at,
          }));
      } else {
        const changed =
          existing.uninstall_at !== null ||
          existing.days_connected !== input.daysConnected ||
          existing.installation_type !== input.installationType;
        if (changed) {
          await executeWrite(tx, tx.db
            .updateTable('installations')
            .set({
              installation_type: input.installationType,
              days_connected: input.daysConnected,
              ...(existing.uninstall_at !== null ? { installed_at: at } : {}),
              uninstall_at: null,
              uninstall_reason: null,
              updated_at: at,
            })
            .where('id', '=', existing.id));
        }
      }
      return (await findView(tx, input.partnerId, input.tenantId))!;
    });
  try {
    return await attempt();
  } catch (error) {
    // Two first-time authorizations raced to insert: the loser reads what the winner wrote.
    if (scope.dialect.errors.isUniqueViolation(error)) return attempt();
    throw error;
  }
}

/** Ends an installation. Unknown, or never installed for this partner: NOT_FOUND. Ending an ended one keeps the first end. */
export async function deauthorizeTenant(
  scope: Scope,
  input: { partnerId: number; tenantId: string; reason: string | null },
  now: Date,
): Promise<InstallationRecord> {
  return withTransaction(scope, async (tx) => {
    const existing = await findView(tx, input.partnerId, input.tenantId);
    if (!existing) {
      throw new AppError(domainError('NOT_FOUND', `tenant ${input.tenantId} is not installed for this partner`, { field: 'tenant_id' }));
    }
    if (existing.uninstallAt !== null) return existing;
    const at = now.toISOString();
    await executeWrite(tx, tx.db
      .updateTable('installations')
      .set({ uninstall_at: at, uninstall_reason: input.reason, updated_at: at })
      .where('id', '=', existing.id));
    return (await findView(tx, input.partnerId, input.tenantId))!;
  });
}

const installationOf = preparedQuery({
  build: (scope, param: ParamRef<{ partnerId: number; tenantId: string }>) =>
  scope.db.selectFrom('installations').select('uninstall_at').where('partner_id', '=', param('partnerId')).where('tenant_id', '=', param('tenantId')),
});

/** Whether the partner may act for the tenant now. */
export async function installationState(scope: Scope, partnerId: number, tenantId: string): Promise<'active' | 'inactive' | 'unknown'> {
  const row = await executeTakeFirst(scope, installationOf.with({ partnerId, tenantId }));
  if (!row) return 'unknown';
  return row.uninstall_at === null ? 'active' : 'inactive';
}

/** The partner's connected (active) installations, newest first. */
export async function listConnectedInstallations(scope: Scope, partnerId: number, page: PageRequest): Promise<{ rows: InstallationRecord[]; total: number }> {
  const [rows, count] = await Promise.all([
    execute(scope, view(scope)
      .where('installations.partner_id', '=', partnerId)
      .where('installations.uninstall_at', 'is', null)
      .orderBy('installations.created_at', 'desc')
      .orderBy('installations.id', 'desc')
      .limit(page.perPage)
      .offset(pageOffset(page))),
    executeTakeFirstOrThrow(scope, scope.db
      .selectFrom('installations')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('partner_id', '=', partnerId)
      .where('uninstall_at', 'is', null)),
  ]);
  return { rows: rows.map(toInstallationRecord), total: Number(count.n) };
}
