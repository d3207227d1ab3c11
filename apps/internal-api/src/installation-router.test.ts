import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authorizeTenant, installationState } from '@pits/persistence';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] installations (merchant consent)', (dialect) => {
  let api: TestApi;
  let partnerId: number;
  beforeAll(async () => {
    api = await openTestApi(dialect);
    partnerId = (await api.caller.partners.create({ name: 'Consent', email: 'c@consent.example', tier: 'small' })).id;
  });
  afterAll(() => api.t.cleanup());

  const authorize = (tenantId: string) => authorizeTenant(api.t.database, { partnerId, tenantId, daysConnected: 1, installationType: 'custom' }, TEST_NOW);

  it('grant lets the partner authorize; withdraw ends its installation at once; list shows both', async () => {
    const tenant = await api.caller.tenants.create({ name: 'Merchant' });
    await expect(authorize(tenant.id)).rejects.toMatchObject({ kind: 'FORBIDDEN' });
    const granted = await api.caller.installations.grant({ tenantId: tenant.id, partnerId });
    expect(granted).toEqual({ tenantId: tenant.id, partnerId, status: 'granted', grantedAt: TEST_NOW.toISOString(), withdrawnAt: null, withdrawReason: null, installation: null });
    await authorize(tenant.id);
    expect(await installationState(api.t.database, partnerId, tenant.id)).toBe('active');
    const listed = await api.caller.installations.list({ tenantId: tenant.id });
    expect(listed.grants).toMatchObject([{ partnerId, status: 'granted', installation: { status: 'active', uninstallAt: null } }]);
    expect(listed.pagination).toMatchObject({ total: 1, page: 1 });

    const withdrawn = await api.caller.installations.withdraw({ tenantId: tenant.id, partnerId, reason: 'switched provider' });
    expect(withdrawn).toMatchObject({ status: 'withdrawn', withdrawReason: 'switched provider', installation: { status: 'ended' } });
    expect(await installationState(api.t.database, partnerId, tenant.id)).toBe('inactive');
    await expect(authorize(tenant.id)).rejects.toMatchObject({ kind: 'FORBIDDEN' });
    expect((await api.caller.installations.list({ partnerId })).grants.map((g) => g.status)).toContain('withdrawn');
  });

  it('refuses unknown parties, a withdrawal without a grant, and a call without the service token', async () => {
    const tenant = await api.caller.tenants.create({ name: 'Strict' });
    expect(await refusal(api.caller.installations.grant({ tenantId: randomUUID(), partnerId }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'tenantId' });
    expect(await refusal(api.caller.installations.grant({ tenantId: tenant.id, partnerId: 999_999 }))).toMatchObject({ code: 'NOT_FOUND', field: 'partnerId' });
    expect(await refusal(api.caller.installations.withdraw({ tenantId: tenant.id, partnerId }))).toMatchObject({ code: 'NOT_FOUND', field: 'partnerId' });
    expect(await refusal(api.caller.installations.grant({ tenantId: 'not-a-uuid', partnerId }))).toMatchObject({ code: 'BAD_REQUEST', field: 'tenantId' });
    expect(await refusal(api.anonymous.installations.grant({ tenantId: tenant.id, partnerId }))).toMatchObject({ code: 'UNAUTHORIZED' });
    expect((await api.caller.installations.list({ tenantId: tenant.id })).grants).toEqual([]);
  });
});
