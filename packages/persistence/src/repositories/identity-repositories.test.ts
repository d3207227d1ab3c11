// Identity and tenant-setup repositories on every dialect: API keys, installations, locations and
// logistic preferences.
import { randomUUID } from 'node:crypto';
import { AppError, type ErrorKind } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../credential-cipher.js';
import { type TestDatabase, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { createApiKey, findKeyOwner, hashApiKey, listApiKeys, resolveApiKey, revokeApiKey, rotateApiKey } from './api-key-repository.js';
import { authorizeTenant, deauthorizeTenant, installationState, listConnectedInstallations } from './installation-repository.js';
import { grantAccess } from './installation-grant-repository.js';
import { createLocation, listLocations, updateLocation } from './location-repository.js';
import { createLogisticPreference, listLogisticPreferences, updateLogisticPreference } from './logistic-preference-repository.js';
import { createTenant } from './tenant-repository.js';

const dialects = await testDialects();
const T0 = new Date('2026-11-22T08:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

async function refusal(promise: Promise<unknown>): Promise<{ kind: ErrorKind; field: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { kind: error.kind, field: error.error.details.field };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(dialects)('[%s] identity repositories', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let other: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database, { products: 0, label: 'Ident' });
    other = await seedTenantWorld(t.database, { products: 0, label: 'Other' });
  });
  afterAll(() => t.cleanup());

  describe('API keys', () => {
    it('creates a key stored only as its hash, and finds its owner by the secret', async () => {
      const { key, secret } = await createApiKey(t.database, w.partner.id, { environment: 'live', label: 'prod' }, T0);
      expect(secret).toMatch(/^pk_live_[A-Za-z0-9_-]{43}$/);
      expect(key).toMatchObject({ partnerId: w.partner.id, prefix: 'pk_live_', last4: secret.slice(-4), label: 'prod', createdAt: T0.toISOString(), revokedAt: null });
      const row = await t.database.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
      expect(row.key_hash).toBe(hashApiKey(secret));
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(await findKeyOwner(t.database, secret)).toEqual({ keyId: key.id, partnerId: w.partner.id, name: w.partner.name, email: w.partner.email, tier: 'small' });
      expect(await findKeyOwner(t.database, `${secret}x`)).toBeNull();
    });

    it('resolves a key with its installation for a tenant in one lookup, and not once it is revoked', async () => {
      const { key, secret } = await createApiKey(t.database, w.partner.id, { environment: 'test' }, T0);
      const owner = { keyId: key.id, partnerId: w.partner.id, name: w.partner.name, email: w.partner.email, tier: 'small' };
      expect(await resolveApiKey(t.database, secret, null)).toEqual({ ...owner, installation: null });
      expect(await resolveApiKey(t.database, secret, w.tenant.id)).toEqual({ ...owner, installation: 'unknown' });
      await grantAccess(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id }, T0);
      await authorizeTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, T0);
      expect((await resolveApiKey(t.database, secret, w.tenant.id))?.installation).toBe('active');
      // Another partner's installation of the same tenant is not this key's.
      expect((await resolveApiKey(t.database, (await createApiKey(t.database, other.partner.id, { environment: 'test' }, T0)).secret, w.tenant.id))?.installation).toBe('unknown');
      await deauthorizeTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, reason: null }, at(1));
      expect((await resolveApiKey(t.database, secret, w.tenant.id))?.installation).toBe('inactive');
      await revokeApiKey(t.database, w.partner.id, key.id, at(2));
      expect(await resolveApiKey(t.database, secret, null)).toBeNull();
      expect(await resolveApiKey(t.database, secret, w.tenant.id)).toBeNull();
    });

    it('revoke fails the key at once and keeps the first revocation time', async () => {
      const { key, secret } = await createApiKey(t.database, w.partner.id, { environment: 'test' }, T0);
      const revoked = await revokeApiKey(t.database, w.partner.id, key.id, at(1));
      expect(revoked.revokedAt).toBe(at(1).toISOString());
      expect(await findKeyOwner(t.database, secret)).toBeNull();
      expect((await revokeApiKey(t.database, w.partner.id, key.id, at(5))).revokedAt).toBe(at(1).toISOString());
      expect(await refusal(revokeApiKey(t.database, other.partner.id, key.id, at(2)))).toEqual({ kind: 'NOT_FOUND', field: 'keyId' });
    });

    it('rotate creates a key of the same environment and label and revokes the old one, together', async () => {
      const old = await createApiKey(t.database, w.partner.id, { environment: 'test', label: 'ci' }, T0);
      const rotated = await rotateApiKey(t.database, w.partner.id, old.key.id, at(2));
      expect(rotated.key).toMatchObject({ prefix: 'pk_test_', label: 'ci', revokedAt: null });
      expect(rotated.revoked).toMatchObject({ id: old.key.id, revokedAt: at(2).toISOString() });
      expect(await findKeyOwner(t.database, old.secret)).toBeNull();
      expect((await findKeyOwner(t.database, rotated.secret))?.keyId).toBe(rotated.key.id);
      expect(await refusal(rotateApiKey(t.database, w.partner.id, old.key.id, at(3)))).toEqual({ kind: 'INVALID_STATE', field: 'keyId' });
      const listed = await listApiKeys(t.database, w.partner.id);
      expect(listed.map((k) => k.id)).toEqual([...listed.map((k) => k.id)].sort((a, b) => a - b));
      expect(listed.some((k) => k.id === rotated.key.id)).toBe(true);
    });
  });

  describe('installations', () => {
    it('authorize creates an active installation with the partner app id/key and the tenant type', async () => {
      const tenant = await createTenant(t.database, { name: 'Installable' }, T0);
      await grantAccess(t.database, { tenantId: tenant.id, partnerId: w.partner.id }, T0);
      expect(await installationState(t.database, w.partner.id, tenant.id)).toBe('unknown');
      const inst = await authorizeTenant(t.database, { partnerId: w.partner.id, tenantId: tenant.id, daysConnected: 3, installationType: 'custom' }, T0);
      expect(inst).toEqual({
        id: expect.any(String) as string,
        partnerId: w.partner.id,
        tenantId: tenant.id,
        installationType: 'custom',
        daysConnected: 3,
        installedAt: T0.toISOString(),
        uninstallAt: null,
        uninstallReason: null,
        appId: w.partner.appId,
        appKey: w.partner.appKey,
        tenantType: 'live',
        createdAt: T0.toISOString(),
        updatedAt: T0.toISOString(),
      });
      expect(await installationState(t.database, w.partner.id, tenant.id)).toBe('active');
    });

    it('re-authorizing is idempotent: one installation, same id', async () => {
      const tenant = await createTenant(t.database, { name: 'Twice' }, T0);
      await grantAccess(t.database, { tenantId: tenant.id, partnerId: w.partner.id }, T0);
      const input = { partnerId: w.partner.id, tenantId: tenant.id, daysConnected: 1, installationType: 'marketplace' as const };
      const first = await authorizeTenant(t.database, input, T0);
      const again = await authorizeTenant(t.database, input, at(1));
      expect(again).toEqual(first);
      const changed = await authorizeTenant(t.database, { ...input, daysConnected: 9 }, at(2));
      expect(changed).toMatchObject({ id: first.id, daysConnected: 9, installedAt: T0.toISOString(), updatedAt: at(2).toISOString() });
      const count = await t.database.db.selectFrom('installations').select((eb) => eb.fn.countAll<number>().as('n')).where('tenant_id', '=', tenant.id).executeTakeFirstOrThrow();
      expect(Number(count.n)).toBe(1);
    });

    it('deauthorize ends it; authorize reactivates it, clearing uninstall_at and the reason', async () => {
      const tenant = await createTenant(t.database, { name: 'Churn' }, T0);
      await grantAccess(t.database, { tenantId: tenant.id, partnerId: w.partner.id }, T0);
      const base = { partnerId: w.partner.id, tenantId: tenant.id };
      const created = await authorizeTenant(t.database, { ...base, daysConnected: 0, installationType: 'custom' }, T0);
      const ended = await deauthorizeTenant(t.database, { ...base, reason: 'moving on' }, at(10));
      expect(ended).toMatchObject({ id: created.id, uninstallAt: at(10).toISOString(), uninstallReason: 'moving on' });
      expect(await installationState(t.database, w.partner.id, tenant.id)).toBe('inactive');
      expect((await deauthorizeTenant(t.database, { ...base, reason: 'again' }, at(11))).uninstallReason).toBe('moving on');
      const back = await authorizeTenant(t.database, { ...base, daysConnected: 2, installationType: 'custom' }, at(20));
      expect(back).toMatchObject({ id: created.id, uninstallAt: null, uninstallReason: null, installedAt: at(20).toISOString(), daysConnected: 2 });
      expect(await installationState(t.database, w.partner.id, tenant.id)).toBe('active');
    });

    it('lists connected installations only, newest first', async () => {
      const partner = other.partner.id;
      const [a, b, c] = [await createTenant(t.database, { name: 'A' }, T0), await createTenant(t.database, { name: 'B' }, T0), await createTenant(t.database, { name: 'C' }, T0)];
      for (const tenant of [a, b, c]) await grantAccess(t.database, { tenantId: tenant.id, partnerId: partner }, T0);
      await authorizeTenant(t.database, { partnerId: partner, tenantId: a.id, daysConnected: 0, installationType: 'custom' }, at(1));
      await authorizeTenant(t.database, { partnerId: partner, tenantId: b.id, daysConnected: 0, installationType: 'custom' }, at(2));
      await authorizeTenant(t.database, { partnerId: partner, tenantId: c.id, daysConnected: 0, installationType: 'custom' }, at(3));
      await deauthorizeTenant(t.database, { partnerId: partner, tenantId: b.id, reason: null }, at(4));
      const { rows, total } = await listConnectedInstallations(t.database, partner, { page: 1, perPage: 10 });
      expect(total).toBe(2);
      expect(rows.map((r) => r.tenantId)).toEqual([c.id, a.id]);
      const page2 = await listConnectedInstallations(t.database, partner, { page: 2, perPage: 1 });
      expect(page2.rows.map((r) => r.tenantId)).toEqual([a.id]);
    });

    it('an unknown tenant is a VALIDATION_ERROR on tenant_id; deauthorizing what was never installed is NOT_FOUND', async () => {
      expect(await refusal(authorizeTenant(t.database, { partnerId: w.partner.id, tenantId: randomUUID(), daysConnected: 0, installationType: 'custom' }, T0))).toEqual({
        kind: 'VALIDATION_ERROR',
        field: 'tenant_id',
      });
      expect(await refusal(deauthorizeTenant(t.database, { partnerId: w.partner.id, tenantId: randomUUID(), reason: null }, T0))).toEqual({ kind: 'NOT_FOUND', field: 'tenant_id' });
      const notMine = await createTenant(t.database, { name: 'Not installed' }, T0);
      expect(await refusal(deauthorizeTenant(t.database, { partnerId: w.partner.id, tenantId: notMine.id, reason: null }, T0))).toEqual({ kind: 'NOT_FOUND', field: 'tenant_id' });
    });
  });

  describe('locations', () => {
    it('update changes the given fields only, within the tenant', async () => {
      const loc = await createLocation(t.database, w.tenant.id, { code: 'UPD-1', name: 'Before', city: 'Bogor' }, 'seed', T0);
      const updated = await updateLocation(t.database, w.tenant.id, loc.id, { name: 'After', isDefault: true, originCode: null }, 'ops', at(5));
      expect(updated).toEqual({ ...loc, name: 'After', isDefault: true, updatedBy: 'ops', updatedAt: at(5).toISOString() });
      expect(await refusal(updateLocation(t.database, other.tenant.id, loc.id, { name: 'Hijack' }, 'x', at(6)))).toEqual({ kind: 'NOT_FOUND', field: 'id' });
    });

    it("lists the tenant's live locations by id, paged, with the total", async () => {
      const all = await listLocations(t.database, w.tenant.id, { page: 1, perPage: 100 });
      expect(all.total).toBe(all.rows.length);
      expect(all.rows.every((r) => r.tenantId === w.tenant.id)).toBe(true);
      const ids = all.rows.map((r) => r.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      const second = await listLocations(t.database, w.tenant.id, { page: 2, perPage: 1 });
      expect(second).toEqual({ rows: [all.rows[1]], total: all.total });
    });
  });

  describe('logistic preferences', () => {
    const cipher = createCredentialCipher('cd'.repeat(32));
    // Each credential holds a character no id, timestamp or ciphertext of the row can (a UUID is hex,
    // a ciphertext base64url): a 3-letter secret such as 'abc' turned up inside a random tenant id.
    const credentials = { username: 'user!alpha', password: 'pass!bravo-42', apiKey: 'key!charlie', apiSecret: 'q!z' };

    it('encrypts credentials at rest and shows them masked, all but the last 4 characters', async () => {
      const view = await createLogisticPreference(
        t.database,
        cipher,
        w.tenant.id,
        { logisticProviderId: 3, logisticProviderName: 'JNE', availableServiceTypes: { regular: true }, ...credentials },
        'ops',
        T0,
      );
      expect(view).toMatchObject({ username: '******lpha', password: '*********o-42', apiKey: '*******rlie', apiSecret: '***', isActive: true, isDefault: false, availableServiceTypes: { regular: true } });
      const row = await t.database.db.selectFrom('logistic_preferences').selectAll().where('id', '=', view.id).executeTakeFirstOrThrow();
      for (const plain of Object.values(credentials)) expect(JSON.stringify(row)).not.toContain(plain);
      expect(cipher.decrypt(row.password_enc)).toBe(credentials.password);
    });

    it('update re-encrypts changed credentials; list is masked, paged and per tenant', async () => {
      const view = await createLogisticPreference(t.database, cipher, w.tenant.id, { logisticProviderId: 4, logisticProviderName: 'SiCepat', availableServiceTypes: {}, ...credentials }, 'ops', T0);
      const updated = await updateLogisticPreference(t.database, cipher, w.tenant.id, view.id, { apiSecret: 'new-secret-7777', isDefault: true }, 'ops2', at(1));
      expect(updated).toEqual({ ...view, apiSecret: `${'*'.repeat('new-secret-7777'.length - 4)}7777`, isDefault: true, updatedBy: 'ops2', updatedAt: at(1).toISOString() });
      expect(await refusal(updateLogisticPreference(t.database, cipher, other.tenant.id, view.id, { username: 'x' }, 'x', at(2)))).toEqual({ kind: 'NOT_FOUND', field: 'id' });
      const listed = await listLogisticPreferences(t.database, cipher, w.tenant.id, { page: 1, perPage: 10 });
      expect(listed.total).toBe(listed.rows.length);
      expect(listed.rows.find((r) => r.id === view.id)).toEqual(updated);
      expect(JSON.stringify(listed)).not.toContain('new-secret-7777');
      expect((await listLogisticPreferences(t.database, cipher, other.tenant.id, { page: 1, perPage: 10 })).total).toBe(0);
    });
  });
});
