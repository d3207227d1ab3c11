// Merchant consent (docs/identity-and-consent.md#consent-and-installations) against real processes: a partner may connect to a tenant only
// while the tenant's grant stands. No grant: authorize is 403 and creates nothing. The partner's
// own deauthorize leaves the grant standing, so it may authorize again; the merchant's withdrawal
// (internal API `installations.withdraw`) ends the installation at once, on every gateway process,
// and refuses authorize until the merchant grants again. Two gateways share the database: the
// very next call after each change, on either of them and without a pause, sees it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildService } from '../harness/child-service.js';
import { e2eDialects } from '../harness/e2e-database.js';
import { expectError } from '../harness/error-envelope.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { type GatewayClient, gatewayClient } from '../harness/gateway-client.js';
import type { GatewayResponse, JsonBody } from '../harness/gateway-response.js';
import { stopAfterLedgerCheck } from '../harness/ledger-check.js';
import { type OnboardedPartner, type OnboardedTenant, authorizeThroughGateway, createTenant, grantTenant, onboardPartner } from '../harness/partner-onboarding.js';
import { type ServiceStack, startStack } from '../harness/service-stack.js';

const AUTHORIZE = '/api/partner/v1/tenants/authorize';
const DEAUTHORIZE = '/api/partner/v1/tenants/deauthorize';
const TENANTS = '/api/partner/v1/tenants';
const TENANT_SCOPED = ['/api/partner/v1/tenants/locations', '/api/partner/v1/tenants/available-logistics', '/api/partner/v1/stock'];
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const WITHDRAW_REASON = 'the merchant moved to another warehouse app';

const dialects = await e2eDialects();

describe.each(dialects)('[%s] security: consent lifecycle', (dialect) => {
  let stack: ServiceStack;
  let second: ChildService;
  /** Both gateway processes: every check runs on each. */
  let gateways: GatewayClient[];
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  /** Another partner, granted and installed on the same tenant all along. */
  let bystander: OnboardedPartner;
  let tenant: OnboardedTenant;
  let installationId: string;

  const authorize = (via: GatewayClient, headers?: Record<string, string>) =>
    via.post(AUTHORIZE, { tenant_id: tenant.id, days_connected: 5, installation_type: 'marketplace' }, { key: partner.key, ...(headers ? { headers } : {}) });
  const listedTenantIds = async (via: GatewayClient, key = partner.key): Promise<string[]> => {
    const res = await via.get(TENANTS, { key, query: { per_page: 100 } });
    expect(res.status, res.text).toBe(200);
    return res.body.data.installations.map((i: JsonBody) => i.tenant_id);
  };
  /** The partner's grant for the tenant as the merchant's side (internal API) sees it. */
  const grant = async () => {
    const { grants } = await stack.internal.installations.list.query({ tenantId: tenant.id, partnerId: partner.id });
    expect(grants.length).toBeLessThanOrEqual(1);
    return grants[0];
  };
  const expectServed = async (key = partner.key) => {
    for (const via of gateways) {
      for (const path of TENANT_SCOPED) {
        const res = await via.get(path, { key, tenant: tenant.id });
        expect(res.status, `${via.url}${path}: ${res.text.slice(0, 200)}`).toBe(200);
      }
    }
  };
  /** Each gateway's very next tenant-scoped call (no pause before it), then every other tenant-scoped path. */
  const expectRefused = async () => {
    for (const via of gateways) {
      for (const path of TENANT_SCOPED) expectError(await via.get(path, { key: partner.key, tenant: tenant.id }), 'FORBIDDEN', 'X-Tenant-Id');
    }
  };
  const expectAuthorized = (res: GatewayResponse) => {
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.installation).toMatchObject({ tenant_id: tenant.id, partner_id: String(partner.id), uninstall_at: null, uninstall_reason: null });
    return res.body.data.installation as JsonBody;
  };

  beforeAll(async () => {
    stack = await startStack(dialect);
    second = await stack.startGateway({ name: 'gateway-2' });
    gateways = [gatewayClient(stack.gateway.url), gatewayClient(second.url)];
    gw = gateways[0]!;
    partner = await onboardPartner(stack.internal, gw, { label: 'Consent', tenants: 0 });
    bystander = await onboardPartner(stack.internal, gw, { label: 'Bystander', tenants: 0 });
    tenant = await createTenant(stack.internal, 'Merchant', { locations: 1, logistics: 1 });
    await grantTenant(stack.internal, tenant.id, bystander.id);
    await authorizeThroughGateway(gw, bystander.key, tenant.id);
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  it('without a grant: authorize is 403 FORBIDDEN on tenant_id on every gateway, and nothing is created', async () => {
    for (const via of gateways) {
      const res = await authorize(via);
      expectError(res, 'FORBIDDEN', 'tenant_id');
      expect(res.body.error.message).toBe('the tenant has not granted this partner access');
    }
    expect(await grant(), 'no grant, no installation').toBeUndefined();
    expect(await listedTenantIds(gw)).toEqual([]);
    await expectRefused();
  });

  it('after the grant: authorize is 200, the installation is active, and tenant calls are served on every gateway', async () => {
    const granted = await stack.internal.installations.grant.mutate({ tenantId: tenant.id, partnerId: partner.id });
    expect(granted).toMatchObject({ tenantId: tenant.id, partnerId: partner.id, status: 'granted', withdrawnAt: null, withdrawReason: null, installation: null });
    const installation = expectAuthorized(await authorize(gw));
    installationId = installation.id;
    expect(await grant()).toMatchObject({ status: 'granted', installation: { id: installationId, status: 'active', uninstallAt: null } });
    for (const via of gateways) expect(await listedTenantIds(via)).toEqual([tenant.id]);
    await expectServed();
  });

  it("the partner's deauthorize: the next tenant call is 403 on every gateway; the grant stands, so authorize again is 200", async () => {
    const res = await gw.post(DEAUTHORIZE, { tenant_id: tenant.id, uninstall_reason: 'partner paused the sync' }, { key: partner.key });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data.installation).toMatchObject({ id: installationId, uninstall_reason: 'partner paused the sync' });
    await expectRefused();
    expect(await grant()).toMatchObject({ status: 'granted', withdrawnAt: null, installation: { id: installationId, status: 'ended' } });
    expect(await listedTenantIds(gw)).toEqual([]);

    expect(expectAuthorized(await authorize(gateways[1]!)).id, 'the same installation, reactivated').toBe(installationId);
    await expectServed();
    expect(await listedTenantIds(gw)).toEqual([tenant.id]);
  });

  it("the merchant's withdrawal: the very next tenant call on each gateway is 403, authorize is refused, the list drops the tenant", async () => {
    // An authorize with an Idempotency-Key while the grant stands, to replay after the withdrawal.
    const replayKey = `consent-${Date.now()}`;
    const first = await authorize(gw, { 'idempotency-key': replayKey });
    expectAuthorized(first);
    await expectServed();

    const withdrawn = await stack.internal.installations.withdraw.mutate({ tenantId: tenant.id, partnerId: partner.id, reason: WITHDRAW_REASON });
    // No pause: the first request after the withdrawal answers, on either process.
    await expectRefused();
    expect(withdrawn).toMatchObject({ status: 'withdrawn', withdrawReason: WITHDRAW_REASON, installation: { id: installationId, status: 'ended' } });
    expect(withdrawn.withdrawnAt).toMatch(ISO_MS);
    expect(withdrawn.installation?.uninstallAt).toMatch(ISO_MS);

    for (const via of gateways) {
      const res = await authorize(via);
      expectError(res, 'FORBIDDEN', 'tenant_id');
      expect(await listedTenantIds(via), 'the tenants list no longer shows it').toEqual([]);
    }
    // A replay of the earlier authorize does no work: whatever it answers, nothing is reconnected.
    const replayed = await authorize(gw, { 'idempotency-key': replayKey });
    if (replayed.status === 200) {
      expect(replayed.headers['idempotent-replayed'], 'a 200 here can only be the stored answer').toBe('true');
      const { request_id: _a, ...firstBody } = first.body;
      const { request_id: _b, ...replayedBody } = replayed.body;
      expect(replayedBody).toEqual(firstBody);
    } else {
      expectError(replayed, 'FORBIDDEN', 'tenant_id');
    }
    await expectRefused();
    const { grants } = await stack.internal.installations.list.query({ tenantId: tenant.id });
    expect(grants.find((g) => g.partnerId === partner.id), 'installations.list shows the withdrawal and its reason').toMatchObject({
      status: 'withdrawn',
      withdrawReason: WITHDRAW_REASON,
      installation: { id: installationId, status: 'ended' },
    });
    expect(grants.find((g) => g.partnerId === bystander.id), "another partner's grant and installation are untouched").toMatchObject({ status: 'granted', installation: { status: 'active', uninstallAt: null } });
    await expectServed(bystander.key);
    expect(await listedTenantIds(gw, bystander.key)).toEqual([tenant.id]);
  });

  it('the partner cannot undo a withdrawal: deauthorize and authorize change nothing until the merchant grants again', async () => {
    // The installation ended with the withdrawal; ending it again keeps that end and the merchant's reason.
    const deauth = await gw.post(DEAUTHORIZE, { tenant_id: tenant.id, uninstall_reason: 'partner tries to overwrite' }, { key: partner.key });
    expect(deauth.status, deauth.text).toBe(200);
    expect(deauth.body.data.installation).toMatchObject({ id: installationId, uninstall_reason: WITHDRAW_REASON });
    expectError(await authorize(gateways[1]!), 'FORBIDDEN', 'tenant_id');
    expect(await grant()).toMatchObject({ status: 'withdrawn', withdrawReason: WITHDRAW_REASON, installation: { status: 'ended' } });
    await expectRefused();
  });

  it('a new grant: authorize is 200 again, the same installation reactivated and served on every gateway', async () => {
    const regranted = await stack.internal.installations.grant.mutate({ tenantId: tenant.id, partnerId: partner.id });
    expect(regranted).toMatchObject({ status: 'granted', withdrawnAt: null, withdrawReason: null, installation: { id: installationId, status: 'ended' } });
    // The grant alone connects nothing.
    await expectRefused();
    const installation = expectAuthorized(await authorize(gateways[1]!));
    expect(installation.id).toBe(installationId);
    await expectServed();
    for (const via of gateways) expect(await listedTenantIds(via)).toEqual([tenant.id]);
    expect(await grant()).toMatchObject({ status: 'granted', installation: { id: installationId, status: 'active', uninstallAt: null } });
  });

  it("a withdrawal without a reason ends the installation with the reason 'access withdrawn by the merchant', which the partner reads", async () => {
    const withdrawn = await stack.internal.installations.withdraw.mutate({ tenantId: tenant.id, partnerId: partner.id });
    await expectRefused();
    expect(withdrawn).toMatchObject({ status: 'withdrawn', withdrawReason: null, installation: { id: installationId, status: 'ended' } });
    expectError(await authorize(gw), 'FORBIDDEN', 'tenant_id');
    const deauth = await gateways[1]!.post(DEAUTHORIZE, { tenant_id: tenant.id }, { key: partner.key });
    expect(deauth.status, deauth.text).toBe(200);
    expect(deauth.body.data.installation).toMatchObject({ id: installationId, uninstall_reason: 'access withdrawn by the merchant' });
    expect(deauth.body.data.installation.uninstall_at).toBe(withdrawn.installation?.uninstallAt);
  });
});
