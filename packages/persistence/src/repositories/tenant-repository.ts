// Tenants: merchant accounts of the platform, created by internal teams.
import { randomUUID } from 'node:crypto';
import type { Selectable } from 'kysely';
import { AppError, domainError } from '@pits/domain';
import type { TenantTable } from '../schema/index.js';
import type { Scope } from '../transaction.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow } from '../execution/execute.js';

export interface TenantRecord {
  id: string;
  name: string;
  tenantType: string;
  createdAt: string;
  updatedAt: string;
}

function toTenantRecord(row: Selectable<TenantTable>): TenantRecord {
  return { id: row.id, name: row.name, tenantType: row.tenant_type, createdAt: row.created_at, updatedAt: row.updated_at };
}

export async function createTenant(scope: Scope, input: { name: string; id?: string; tenantType?: string }, now: Date): Promise<TenantRecord> {
  const at = now.toISOString();
  const row = await executeTakeFirstOrThrow(scope, scope.dialect
    .insertReturningAll(
      scope.db
        .insertInto('tenants')
        .values({ id: input.id ?? randomUUID(), name: input.name, tenant_type: input.tenantType ?? 'live', created_at: at, updated_at: at }),
    ));
  return toTenantRecord(row);
}

export async function findTenant(scope: Scope, id: string): Promise<TenantRecord | undefined> {
  const row = await executeTakeFirst(scope, scope.db.selectFrom('tenants').selectAll().where('id', '=', id));
  return row && toTenantRecord(row);
}

export async function getTenant(scope: Scope, id: string): Promise<TenantRecord> {
  const tenant = await findTenant(scope, id);
  if (!tenant) throw new AppError(domainError('NOT_FOUND', `tenant ${id} does not exist`, { field: 'id' }));
  return tenant;
}

export async function listTenants(scope: Scope, page: { limit: number; offset: number }): Promise<{ rows: TenantRecord[]; total: number }> {
  const [rows, count] = await Promise.all([
    execute(scope, scope.db.selectFrom('tenants').selectAll().orderBy('created_at').orderBy('id').limit(page.limit).offset(page.offset)),
    executeTakeFirstOrThrow(scope, scope.db.selectFrom('tenants').select((eb) => eb.fn.countAll<number>().as('n'))),
  ]);
  return { rows: rows.map(toTenantRecord), total: Number(count.n) };
}
