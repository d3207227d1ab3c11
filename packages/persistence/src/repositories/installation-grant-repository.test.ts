import { randomUUID } from 'node:crypto';
import { AppError } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../migrate.js';
import { type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { withTransaction } from '../transaction.js';
import { ACCESS_WITHDRAWN_REASON, grantAccess, listGrants, withdrawAccess } from './installation-grant-repository.js';
import { authorizeTenant, deauthorizeTenant, installationState } from './installation-repository.js';
import { createPartner } from './partner-repository.js';
import { createTenant } from './tenant-repository.js';
import { executeWrite } from '../execution/execute.js';

const dialects = await testDialects();
const T0 = new Date('2026-11-22T08:00:00.000Z');
const at = (ms: number) => new Date(T0.getTime() + ms);

async function refusal(call: Promise<unknown>): Promise<{ kind: string; field: string }> {
  try {
    await call;
  } catch (error) {
    if (error instanceof AppError) return { kind: error.kind, field: error.error.details.field };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(dialects)('[%s] merchant consent', (dialect) => {
  let t: TestDatabase;
  let partnerId: number;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    partnerId = (await createPartner(t.database, { name: 'Consent Partner', email: 'c@x.example', tier: 'small' }, T0)).id;
  });
  afterAll(() => t.cleanup());

  const authorize = (tenantId: string, when = T0) => authorizeTenant(t.database, { partnerId, tenantId, daysConnected: 1, installationType: 'custom' }, when);
  const installations = async (tenantId: string) => (await t.database.db.selectFrom('installations').select('id').where('tenant_id', '=', tenantId).execute()).length;

  it('authorize without a grant is FORBIDDEN and creates nothing', async () => {
    const tenant = await createTenant(t.database, { name: 'Never granted' }, T0);
    expect(await refusal(authorize(tenant.id))).toEqual({ kind: 'FORBIDDEN', field: 'tenant_id' });
    expect(await installations(tenant.id)).toBe(0);
    // Another partner's grant is not this partner's.
    const other = await createPartner(t.database, { name: 'Other', email: 'o@x.example', tier: 'small' }, T0);
    await grantAccess(t.database, { tenantId: tenant.id, partnerId: other.id }, T0);
    expect(await refusal(authorize(tenant.id))).toEqual({ kind: 'FORBIDDEN', field: 'tenant_id' });
    expect(await installations(tenant.id)).toBe(0);
  });

  it('grant → authorize; deauthorize keeps the grant; withdraw ends the installation at once and refuses authorize; a new grant lets it back', async () => {
    const tenant = await createTenant(t.database, { name: 'Lifecycle' }, T0);
    const granted = await grantAccess(t.database, { tenantId: tenant.id, partnerId }, T0);
    expect(granted).toMatchObject({ status: 'granted', grantedAt: T0.toISOString(), withdrawnAt: null, installation: null });
    expect(await grantAccess(t.database, { tenantId: tenant.id, partnerId }, at(1))).toEqual(granted);

    await authorize(tenant.id, at(2));
    expect(await installationState(t.database, partnerId, tenant.id)).toBe('active');
    await deauthorizeTenant(t.database, { partnerId, tenantId: tenant.id, reason: 'pause' }, at(3));
    expect(await installationState(t.database, partnerId, tenant.id)).toBe('inactive');
    await authorize(tenant.id, at(4));
    expect(await installationState(t.database, partnerId, tenant.id)).toBe('active');

    const withdrawn = await withdrawAccess(t.database, { tenantId: tenant.id, partnerId }, at(5));
    expect(withdrawn).toMatchObject({ status: 'withdrawn', withdrawnAt: at(5).toISOString(), installation: { status: 'ended', uninstallAt: at(5).toISOString() } });
    expect(await installationState(t.database, partnerId, tenant.id)).toBe('inactive');
    const row = await t.database.db.selectFrom('installations').select('uninstall_reason').where('tenant_id', '=', tenant.id).executeTakeFirstOrThrow();
    expect(row.uninstall_reason).toBe(ACCESS_WITHDRAWN_REASON);
    expect(await refusal(authorize(tenant.id, at(6)))).toEqual({ kind: 'FORBIDDEN', field: 'tenant_id' });
    expect(await installationState(t.database, partnerId, tenant.id)).toBe('inactive');
    // Withdrawing again keeps the first withdrawal.
    expect((await withdrawAccess(t.database, { tenantId: tenant.id, partnerId, reason: 'again' }, at(7))).withdrawnAt).toBe(at(5).toISOString());

    await grantAccess(t.database, { tenantId: tenant.id, partnerId }, at(8));
    await authorize(tenant.id, at(9));
    expect(await installationState(t.database, partnerId, tenant.id)).toBe('active');
  });

  it('refuses unknown parties and withdrawing what was never granted', async () => {
    const tenant = await createTenant(t.database, { name: 'Strict' }, T0);
    expect(await refusal(grantAccess(t.database, { tenantId: randomUUID(), partnerId }, T0))).toEqual({ kind: 'NOT_FOUND', field: 'tenantId' });
    expect(await refusal(grantAccess(t.database, { tenantId: tenant.id, partnerId: 987_654 }, T0))).toEqual({ kind: 'NOT_FOUND', field: 'partnerId' });
    expect(await refusal(withdrawAccess(t.database, { tenantId: tenant.id, partnerId }, T0))).toEqual({ kind: 'NOT_FOUND', field: 'partnerId' });
  });

  it('a withdrawal racing authorizations never leaves an active installation behind a withdrawn grant', async () => {
    const tenant = await createTenant(t.database, { name: 'Race' }, T0);
    await grantAccess(t.database, { tenantId: tenant.id, partnerId }, T0);
    const calls = [
      ...Array.from({ length: 10 }, (_, i) => authorize(tenant.id, at(10 + i)).catch((e: unknown) => e)),
      withdrawAccess(t.database, { tenantId: tenant.id, partnerId }, at(15)),
    ];
    await Promise.all(calls);
    expect(await installationState(t.database, partnerId, tenant.id)).not.toBe('active');
  });

  it('lists grants by tenant and by partner, with their installation', async () => {
    const world = await seedTenantWorld(t.database, { label: 'Listed' });
    await grantAccess(t.database, { tenantId: world.tenant.id, partnerId }, T0);
    await grantAccess(t.database, { tenantId: world.tenant.id, partnerId: world.partner.id }, T0);
    await authorizeTenant(t.database, { partnerId: world.partner.id, tenantId: world.tenant.id, daysConnected: 1, installationType: 'custom' }, T0);
    const byTenant = await listGrants(t.database, { tenantId: world.tenant.id }, { limit: 10, offset: 0 });
    expect(byTenant.total).toBe(2);
    expect(byTenant.rows.map((g) => [g.partnerId, g.installation?.status ?? null]).sort()).toEqual([[partnerId, null], [world.partner.id, 'active']].sort());
    const byPartner = await listGrants(t.database, { partnerId: world.partner.id }, { limit: 10, offset: 0 });
    expect(byPartner.rows.map((g) => g.tenantId)).toEqual([world.tenant.id]);
    const both = await listGrants(t.database, { partnerId: world.partner.id, tenantId: world.tenant.id }, { limit: 1, offset: 1 });
    expect(both).toEqual({ rows: [], total: 1 });
  });
});

describe.each(dialects)('[%s] migration 005: installations that exist keep working', (dialect) => {
  it('records a grant for every installation made before consent existed', async () => {
    const t = await openTestDatabase(dialect);
    try {
      expect((await migrateTo(t.database, '003-crash-safe-idempotency')).error).toBeUndefined();
      const partner = await createPartner(t.database, { name: 'Before', email: 'b@x.example', tier: 'small' }, T0);
      const tenant = await createTenant(t.database, { name: 'Installed before' }, T0);
      await withTransaction(t.database, (tx) =>
        executeWrite(tx, tx.db
          .insertInto('installations')
          .values({ id: randomUUID(), partner_id: partner.id, tenant_id: tenant.id, installation_type: 'custom', days_connected: 3, installed_at: T0.toISOString(), uninstall_at: null, uninstall_reason: null, created_at: T0.toISOString(), updated_at: T0.toISOString() })),
      );
      expect((await migrateToLatest(t.database)).error).toBeUndefined();
      const grants = await listGrants(t.database, { tenantId: tenant.id }, { limit: 10, offset: 0 });
      expect(grants.rows).toMatchObject([{ partnerId: partner.id, status: 'granted', installation: { status: 'active' } }]);
      // And it keeps working: re-authorizing is allowed.
      await authorizeTenant(t.database, { partnerId: partner.id, tenantId: tenant.id, daysConnected: 5, installationType: 'custom' }, at(1));
      expect(await installationState(t.database, partner.id, tenant.id)).toBe('active');
    } finally {
      await t.cleanup();
    }
  });
});
