// Tenants: merchant accounts of the platform, created by internal teams.
import { randomUUID } from 'node:crypto';
import type { Scope } from '../transaction.js';

export interface TenantRecord {
  id: string;
  name: string;
  tenantType: string;
  createdAt: string;
  updatedAt: string;
}

export async function createTenant(scope: Scope, input: { name: string; id?: string; tenantType?: string }, now: Date): Promise<TenantRecord> {
  const at = now.toISOString();
  const row = await scope.db
    .insertInto('tenants')
    .values({ id: input.id ?? randomUUID(), name: input.name, tenant_type: input.tenantType ?? 'live', created_at: at, updated_at: at })
    .returningAll()
    .executeTakeFirstOrThrow();
  return { id: row.id, name: row.name, tenantType: row.tenant_type, createdAt: row.created_at, updatedAt: row.updated_at };
}
