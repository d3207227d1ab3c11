// Logistic preferences of a tenant: which carriers it ships with, and the account credentials,
// encrypted at rest and only ever shown masked.
import type { Selectable, Updateable } from 'kysely';
import { AppError, type PageRequest, domainError, pageOffset } from '@pits/domain';
import { type CredentialCipher, maskSecret } from '../credential-cipher.js';
import { boolValue } from './boolean-values.js';
import type { LogisticPreferenceTable } from '../schema/index.js';
import type { Scope } from '../transaction.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow } from '../execution/execute.js';

export type LogisticPreferenceRow = Selectable<LogisticPreferenceTable>;

export interface LogisticCredentials {
  username: string;
  password: string;
  apiKey: string;
  apiSecret: string;
}

export interface NewLogisticPreference extends LogisticCredentials {
  logisticProviderId: number;
  logisticProviderName: string;
  availableServiceTypes: Record<string, boolean>;
  isDefault?: boolean;
  isActive?: boolean;
  accountId?: string | null;
  accountName?: string | null;
}

/** The preference as partners and internal teams see it: credentials masked. */
export interface LogisticPreferenceView {
  id: number;
  tenantId: string;
  logisticProviderId: number;
  logisticProviderName: string;
  availableServiceTypes: Record<string, boolean>;
  isDefault: boolean;
  isActive: boolean;
  username: string;
  password: string;
  apiKey: string;
  apiSecret: string;
  accountId: string | null;
  accountName: string | null;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
}

export function toLogisticPreferenceView(row: LogisticPreferenceRow, cipher: CredentialCipher): LogisticPreferenceView {
  const masked = (stored: string) => maskSecret(cipher.decrypt(stored));
  return {
    id: row.id,
    tenantId: row.tenant_id,
    logisticProviderId: row.logistic_provider_id,
    logisticProviderName: row.logistic_provider_name,
    availableServiceTypes: JSON.parse(row.available_service_types) as Record<string, boolean>,
    isDefault: row.is_default === 1,
    isActive: row.is_active === 1,
    username: masked(row.username_enc),
    password: masked(row.password_enc),
    apiKey: masked(row.api_key_enc),
    apiSecret: masked(row.api_secret_enc),
    accountId: row.account_id,
    accountName: row.account_name,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export async function createLogisticPreference(
  scope: Scope,
  cipher: CredentialCipher,
  tenantId: string,
  input: NewLogisticPreference,
  actor: string,
  now: Date,
): Promise<LogisticPreferenceView> {
  const at = now.toISOString();
  const row = await executeTakeFirstOrThrow(scope, scope.dialect
    .insertReturningAll(
      scope.db
        .insertInto('logistic_preferences')
        .values({
          tenant_id: tenantId,
          logistic_provider_id: input.logisticProviderId,
          logistic_provider_name: input.logisticProviderName,
          available_service_types: JSON.stringify(input.availableServiceTypes),
          is_default: boolValue(input.isDefault ?? false),
          is_active: boolValue(input.isActive ?? true),
          username_enc: cipher.encrypt(input.username),
          password_enc: cipher.encrypt(input.password),
          api_key_enc: cipher.encrypt(input.apiKey),
          api_secret_enc: cipher.encrypt(input.apiSecret),
          account_id: input.accountId ?? null,
          account_name: input.accountName ?? null,
          created_by: actor,
          updated_by: actor,
          created_at: at,
          updated_at: at,
        }),
    ));
  return toLogisticPreferenceView(row, cipher);
}

export async function updateLogisticPreference(
  scope: Scope,
  cipher: CredentialCipher,
  tenantId: string,
  id: number,
  changes: Partial<NewLogisticPreference>,
  actor: string,
  now: Date,
): Promise<LogisticPreferenceView> {
  const set: Updateable<LogisticPreferenceTable> = {};
  if (changes.logisticProviderId !== undefined) set.logistic_provider_id = changes.logisticProviderId;
  if (changes.logisticProviderName !== undefined) set.logistic_provider_name = changes.logisticProviderName;
  if (changes.availableServiceTypes !== undefined) set.available_service_types = JSON.stringify(changes.availableServiceTypes);
  if (changes.isDefault !== undefined) set.is_default = boolValue(changes.isDefault);
  if (changes.isActive !== undefined) set.is_active = boolValue(changes.isActive);
  if (changes.username !== undefined) set.username_enc = cipher.encrypt(changes.username);
  if (changes.password !== undefined) set.password_enc = cipher.encrypt(changes.password);
  if (changes.apiKey !== undefined) set.api_key_enc = cipher.encrypt(changes.apiKey);
  if (changes.apiSecret !== undefined) set.api_secret_enc = cipher.encrypt(changes.apiSecret);
  if (changes.accountId !== undefined) set.account_id = changes.accountId;
  if (changes.accountName !== undefined) set.account_name = changes.accountName;
  const row = await executeTakeFirst(scope, scope.dialect
    .updateReturningAll(
      scope.db
        .updateTable('logistic_preferences')
        .set({ ...set, updated_by: actor, updated_at: now.toISOString() })
        .where('tenant_id', '=', tenantId)
        .where('id', '=', id),
    ));
  if (!row) throw new AppError(domainError('NOT_FOUND', `logistic preference ${id} does not exist for tenant ${tenantId}`, { field: 'id' }));
  return toLogisticPreferenceView(row, cipher);
}

/** A page of the tenant's logistic preferences by id ascending, masked. */
export async function listLogisticPreferences(
  scope: Scope,
  cipher: CredentialCipher,
  tenantId: string,
  page: PageRequest,
): Promise<{ rows: LogisticPreferenceView[]; total: number }> {
  const base = scope.db.selectFrom('logistic_preferences').where('tenant_id', '=', tenantId);
  const [rows, count] = await Promise.all([
    execute(scope, base.selectAll().orderBy('id').limit(page.perPage).offset(pageOffset(page))),
    executeTakeFirstOrThrow(scope, base.select((eb) => eb.fn.countAll<number>().as('n'))),
  ]);
  return { rows: rows.map((r) => toLogisticPreferenceView(r, cipher)), total: Number(count.n) };
}
