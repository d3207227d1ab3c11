// API keys: random secrets shown once, stored as a SHA-256 hash, rotated and revoked by internal teams.
import { hash, randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { AppError, domainError } from '@pits/domain';
import type { ApiKeyTable, PartnerTier } from '../schema/index.js';
import { type ParamRef, preparedQuery } from '../parameterised-query.js';
import { type Scope, withTransaction } from '../transaction.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow } from '../execution/execute.js';

export type ApiKeyEnvironment = 'live' | 'test';

/** What is safe to show of a key after creation. */
export interface ApiKeyRecord {
  id: number;
  partnerId: number;
  prefix: string;
  last4: string;
  label: string;
  createdAt: string;
  revokedAt: string | null;
}

/** The partner a valid key authenticates. */
export interface KeyOwner {
  keyId: number;
  partnerId: number;
  name: string;
  email: string;
  tier: PartnerTier;
}

/**
 * SHA-256 hex of a secret. Keys carry 256 random bits, so a fast hash is enough (no brute force to
 * slow). Every partner request hashes its key: the one-shot `hash` costs a third of a Hash object's
 * create, update and digest.
 */
export function hashApiKey(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** A new secret: `pk_live_` or `pk_test_` and 32 random bytes in base64url (43 characters). */
export function generateApiKeySecret(environment: ApiKeyEnvironment): string {
  return `pk_${environment}_${randomBytes(32).toString('base64url')}`;
}

function toRecord(row: Selectable<ApiKeyTable>): ApiKeyRecord {
  return { id: row.id, partnerId: row.partner_id, prefix: row.prefix, last4: row.last4, label: row.label, createdAt: row.created_at, revokedAt: row.revoked_at };
}

/**
 * Creates a key and returns its secret, which is never stored and cannot be shown again.
 *
 * @example
 * const { secret } = await createApiKey(db, partnerId, { environment: 'test' }, new Date());
 */
export async function createApiKey(
  scope: Scope,
  partnerId: number,
  input: { environment: ApiKeyEnvironment; label?: string },
  now: Date,
): Promise<{ key: ApiKeyRecord; secret: string }> {
  const secret = generateApiKeySecret(input.environment);
  const row = await executeTakeFirstOrThrow(scope, scope.dialect
    .insertReturningAll(
      scope.db
        .insertInto('api_keys')
        .values({
          partner_id: partnerId,
          prefix: `pk_${input.environment}_`,
          key_hash: hashApiKey(secret),
          last4: secret.slice(-4),
          label: input.label ?? '',
          created_at: now.toISOString(),
          revoked_at: null,
        }),
    ));
  return { key: toRecord(row), secret };
}

export async function listApiKeys(scope: Scope, partnerId: number): Promise<ApiKeyRecord[]> {
  const rows = await execute(scope, scope.db.selectFrom('api_keys').selectAll().where('partner_id', '=', partnerId).orderBy('id'));
  return rows.map(toRecord);
}

async function liveKey(scope: Scope, partnerId: number, keyId: number) {
  const row = await executeTakeFirst(scope, scope.db.selectFrom('api_keys').selectAll().where('id', '=', keyId).where('partner_id', '=', partnerId));
  if (!row) throw new AppError(domainError('NOT_FOUND', `API key ${keyId} does not exist for partner ${partnerId}`, { field: 'keyId' }));
  return row;
}

/** Revokes a key at once; revoking twice keeps the first revocation time. */
export async function revokeApiKey(scope: Scope, partnerId: number, keyId: number, now: Date): Promise<ApiKeyRecord> {
  const row = await liveKey(scope, partnerId, keyId);
  if (row.revoked_at) return toRecord(row);
  const updated = await executeTakeFirstOrThrow(scope, scope.dialect
    .updateReturningAll(
      scope.db
        .updateTable('api_keys')
        .set({ revoked_at: now.toISOString() })
        .where('id', '=', keyId),
    ));
  return toRecord(updated);
}

/** Rotation: a new key of the same environment and label, and the old one revoked, together. */
export async function rotateApiKey(scope: Scope, partnerId: number, keyId: number, now: Date): Promise<{ key: ApiKeyRecord; secret: string; revoked: ApiKeyRecord }> {
  return withTransaction(scope, async (tx) => {
    const old = await liveKey(tx, partnerId, keyId);
    if (old.revoked_at) throw new AppError(domainError('INVALID_STATE', `API key ${keyId} is revoked already`, { field: 'keyId' }));
    const environment: ApiKeyEnvironment = old.prefix === 'pk_live_' ? 'live' : 'test';
    const created = await createApiKey(tx, partnerId, { environment, label: old.label }, now);
    const revoked = await revokeApiKey(tx, partnerId, keyId, now);
    return { ...created, revoked };
  });
}

/** The partner of an unrevoked key with this secret, or null. */
const keyOwner = preparedQuery({
  build: (scope, param: ParamRef<{ keyHash: string }>) =>
  scope.db
    .selectFrom('api_keys')
    .innerJoin('partners', 'partners.id', 'api_keys.partner_id')
    .select(['api_keys.id as key_id', 'partners.id as partner_id', 'partners.name', 'partners.email', 'partners.tier'])
    .where('api_keys.key_hash', '=', param('keyHash'))
    .where('api_keys.revoked_at', 'is', null),
});

export async function findKeyOwner(scope: Scope, secret: string): Promise<KeyOwner | null> {
  const row = await executeTakeFirst(scope, keyOwner.with({ keyHash: hashApiKey(secret) }));
  return row ? { keyId: row.key_id, partnerId: row.partner_id, name: row.name, email: row.email, tier: row.tier } : null;
}

/** Where a partner's installation for a tenant stands: `unknown` when there is none. */
export type InstallationState = 'active' | 'inactive' | 'unknown';

/** The key owner and, when a tenant was named, the owner's installation for it. */
export interface ResolvedApiKey extends KeyOwner {
  installation: InstallationState | null;
}

/** The key owner and its installation for one tenant, in one statement (the gateway runs it on every request). */
const keyOwnerForTenant = preparedQuery({
  build: (scope, param: ParamRef<{ keyHash: string; tenantId: string }>) =>
  scope.db
    .selectFrom('api_keys')
    .innerJoin('partners', 'partners.id', 'api_keys.partner_id')
    .leftJoin('installations', (join) => join.onRef('installations.partner_id', '=', 'api_keys.partner_id').on('installations.tenant_id', '=', param('tenantId')))
    .select(['api_keys.id as key_id', 'partners.id as partner_id', 'partners.name', 'partners.email', 'partners.tier', 'installations.id as installation_id', 'installations.uninstall_at'])
    .where('api_keys.key_hash', '=', param('keyHash'))
    .where('api_keys.revoked_at', 'is', null),
});

/**
 * What a request's API key stands for right now: its partner, and with `tenantId` the partner's
 * installation for that tenant, read in one statement. Nothing is cached, so a key revoked (or a
 * tier changed, or an installation ended) is seen by the very next request in every process.
 *
 * @example
 * const resolved = await resolveApiKey(db, secret, tenantIdOrNull); // null: unknown or revoked
 */
export async function resolveApiKey(scope: Scope, secret: string, tenantId: string | null): Promise<ResolvedApiKey | null> {
  const keyHash = hashApiKey(secret);
  if (tenantId === null) {
    const owner = await executeTakeFirst(scope, keyOwner.with({ keyHash }));
    return owner ? { keyId: owner.key_id, partnerId: owner.partner_id, name: owner.name, email: owner.email, tier: owner.tier, installation: null } : null;
  }
  const row = await executeTakeFirst(scope, keyOwnerForTenant.with({ keyHash, tenantId }));
  if (!row) return null;
  const installation: InstallationState = row.installation_id === null ? 'unknown' : row.uninstall_at === null ? 'active' : 'inactive';
  return { keyId: row.key_id, partnerId: row.partner_id, name: row.name, email: row.email, tier: row.tier, installation };
}

// For the benchmarks' bare routes (bench/bench-statements.ts).
export { keyOwnerForTenant as keyOwnerForTenantQuery };
