// Authorize, deauthorize, reauthorize (docs/identity-and-consent.md#consent-and-installations): authorize is idempotent; after deauthorize
// every tenant-scoped call is 403 and the tenant leaves the list; reauthorize reactivates the same
// installation with uninstall_at and uninstall_reason cleared.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import { type OnboardedPartner, type OnboardedTenant, createTenant, grantTenant, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { expectLedgerBalanced } from './harness/ledger-check.js';

const AUTHORIZE = '/api/partner/v1/tenants/authorize';
const DEAUTHORIZE = '/api/partner/v1/tenants/deauthorize';
const TENANTS = '/api/partner/v1/tenants';
const TENANT_SCOPED = ['/api/partner/v1/tenants/locations', '/api/partner/v1/tenants/available-logistics'];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const dialects = await e2eDialects();

describe.each(dialects)('[%s] tenant authorization lifecycle', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  let tenant: OnboardedTenant;

  const listedTenantIds = async () => (await gw.get(TENANTS, { key: partner.key, query: { per_page: 100 } })).body.data.installations.map((i: { tenant_id: string }) => i.tenant_id);

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    partner = await onboardPartner(stack.internal, gw, { label: 'Lifecycle', tenants: 0 });
    tenant = await createTenant(stack.internal, 'Cycle', { locations: 2, logistics: 1 });
    await grantTenant(stack.internal, tenant.id, partner.id);
  });
  afterAll(() => stack?.stop());
  showOutputOnFailure(() => stack?.services() ?? []);

  let installationId: string;
  let installedAt: string;

  it('authorize creates the installation (envelope B, data.installation)', async () => {
    const before = Date.now();
    const res = await gw.post(AUTHORIZE, { tenant_id: tenant.id, days_connected: 12, installation_type: 'marketplace' }, { key: partner.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 200, message: 'Ok', errors: null });
    const installation = res.body.data.installation;
    expect(installation).toMatchObject({
      partner_id: String(partner.id),
      tenant_id: tenant.id,
      app_id: partner.appId,
      app_key: partner.appKey,
      installation_type: 'marketplace',
      days_connected: 12,
      uninstall_at: null,
      uninstall_reason: null,
    });
    expect(installation.installed_at).toMatch(ISO_MS);
    expect(Date.parse(installation.installed_at)).toBeGreaterThanOrEqual(before - 2000);
    installationId = installation.id;
    installedAt = installation.installed_at;
    expect(await listedTenantIds()).toEqual([tenant.id]);
  });

  it('authorize again is idempotent: the same installation, listed once', async () => {
    for (let i = 0; i < 3; i += 1) {
      const res = await gw.post(AUTHORIZE, { tenant_id: tenant.id, days_connected: 12, installation_type: 'marketplace' }, { key: partner.key });
      expect(res.status, res.text).toBe(200);
      expect(res.body.data.installation).toMatchObject({ id: installationId, installed_at: installedAt, uninstall_at: null });
    }
    expect(await listedTenantIds()).toEqual([tenant.id]);
    for (const path of TENANT_SCOPED) expect((await gw.get(path, { key: partner.key, tenant: tenant.id })).status).toBe(200);
  });

  it('deauthorize ends it: uninstall_at and the reason are set, then every tenant call is 403 and the list drops it', async () => {
    const res = await gw.post(DEAUTHORIZE, { tenant_id: tenant.id, uninstall_reason: 'merchant closed the store' }, { key: partner.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ status: 200, message: 'Ok', errors: null });
    expect(res.body.data.installation).toMatchObject({ id: installationId, tenant_id: tenant.id, uninstall_reason: 'merchant closed the store' });
    expect(res.body.data.installation.uninstall_at).toMatch(ISO_MS);
    for (const path of TENANT_SCOPED) {
      for (let i = 0; i < 2; i += 1) expectError(await gw.get(path, { key: partner.key, tenant: tenant.id }), 'FORBIDDEN', 'X-Tenant-Id');
    }
    expect(await listedTenantIds()).toEqual([]);
  });

  it('reauthorize reactivates it: 200 again, uninstall_at and uninstall_reason cleared', async () => {
    const res = await gw.post(AUTHORIZE, { tenant_id: tenant.id, days_connected: 13, installation_type: 'custom' }, { key: partner.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.installation).toMatchObject({ id: installationId, tenant_id: tenant.id, uninstall_at: null, uninstall_reason: null, days_connected: 13, installation_type: 'custom' });
    for (const path of TENANT_SCOPED) {
      const again = await gw.get(path, { key: partner.key, tenant: tenant.id });
      expect(again.status, again.text).toBe(200);
    }
    const locations = await gw.get(TENANT_SCOPED[0]!, { key: partner.key, tenant: tenant.id });
    expect(locations.body.data.locations.map((l: { location_id: number }) => l.location_id)).toEqual(tenant.locationIds);
    const listed = await gw.get(TENANTS, { key: partner.key });
    expect(listed.body.data.installations).toEqual([expect.objectContaining({ id: installationId, uninstall_at: null, uninstall_reason: null })]);
  });

  it('deauthorize without a reason leaves uninstall_reason null; the cycle can repeat', async () => {
    const res = await gw.post(DEAUTHORIZE, { tenant_id: tenant.id }, { key: partner.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.installation).toMatchObject({ id: installationId, uninstall_reason: null });
    expect(res.body.data.installation.uninstall_at).toMatch(ISO_MS);
    expectError(await gw.get(TENANT_SCOPED[1]!, { key: partner.key, tenant: tenant.id }), 'FORBIDDEN', 'X-Tenant-Id');
    const back = await gw.post(AUTHORIZE, { tenant_id: tenant.id, days_connected: 14, installation_type: 'custom' }, { key: partner.key });
    expect(back.body.data.installation).toMatchObject({ id: installationId, uninstall_at: null, uninstall_reason: null, days_connected: 14 });
    expect((await gw.get(TENANT_SCOPED[1]!, { key: partner.key, tenant: tenant.id })).status).toBe(200);
  });

  it('SIGTERM stops the gateway and the internal API cleanly (exit code 0)', async () => {
    // The suite's ledger check runs here, while the processes are still up.
    await expectLedgerBalanced(stack);
    const exits = await stack.stop();
    expect(Object.keys(exits)).toHaveLength(2);
    for (const [name, exit] of Object.entries(exits)) expect(exit, name).toEqual({ code: 0, signal: null });
  });
});
