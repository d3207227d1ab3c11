// Partners: API client companies, with a tier and a public app id/key.
import type { Selectable } from 'kysely';
import { randomBytes, randomUUID } from 'node:crypto';
import { type Actor, AppError, domainError } from '@pits/domain';
import type { Scope } from '../transaction.js';
import type { PartnerTable, PartnerTier } from '../schema/index.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow } from '../execution/execute.js';

export interface PartnerRecord {
  id: number;
  name: string;
  email: string;
  tier: PartnerTier;
  appId: string;
  appKey: string;
  createdAt: string;
  updatedAt: string;
}

type PartnerRow = Selectable<PartnerTable>;

export function toPartnerRecord(row: PartnerRow): PartnerRecord {
  return {
    id: row.id,
    name: row.name,
    email: row.email,
    tier: row.tier,
    appId: row.app_id,
    appKey: row.app_key,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** The partner as the actor of what it does. */
export function partnerActor(partner: Pick<PartnerRecord, 'id' | 'name' | 'email'>): Actor {
  return { id: partner.id, name: partner.name, email: partner.email };
}

export async function createPartner(
  scope: Scope,
  input: { name: string; email: string; tier: PartnerTier },
  now: Date,
): Promise<PartnerRecord> {
  const at = now.toISOString();
  const row = await executeTakeFirstOrThrow(scope, scope.dialect
    .insertReturningAll(
      scope.db
        .insertInto('partners')
        .values({
          name: input.name,
          email: input.email,
          tier: input.tier,
          app_id: randomUUID(),
          app_key: `app_${randomBytes(16).toString('hex')}`,
          created_at: at,
          updated_at: at,
        }),
    ));
  return toPartnerRecord(row);
}

/** True once any partner has been created. */
export async function anyPartnerExists(scope: Scope): Promise<boolean> {
  return (await executeTakeFirst(scope, scope.db.selectFrom('partners').select('id').limit(1))) !== undefined;
}

export async function findPartner(scope: Scope, id: number): Promise<PartnerRecord | undefined> {
  const row = await executeTakeFirst(scope, scope.db.selectFrom('partners').selectAll().where('id', '=', id));
  return row && toPartnerRecord(row);
}

export async function getPartner(scope: Scope, id: number): Promise<PartnerRecord> {
  const partner = await findPartner(scope, id);
  if (!partner) throw new AppError(domainError('NOT_FOUND', `partner ${id} does not exist`, { field: 'id' }));
  return partner;
}

export async function listPartners(scope: Scope): Promise<PartnerRecord[]> {
  const rows = await execute(scope, scope.db.selectFrom('partners').selectAll().orderBy('id'));
  return rows.map(toPartnerRecord);
}

export async function setPartnerTier(scope: Scope, id: number, tier: PartnerTable['tier'], now: Date): Promise<PartnerRecord> {
  const row = await executeTakeFirst(scope, scope.dialect.updateReturningAll(scope.db.updateTable('partners').set({ tier, updated_at: now.toISOString() }).where('id', '=', id)));
  if (!row) throw new AppError(domainError('NOT_FOUND', `partner ${id} does not exist`, { field: 'id' }));
  return toPartnerRecord(row);
}
