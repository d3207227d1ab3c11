// Tenant isolation (docs/identity-and-consent.md#isolation): partner B can never read or act for partner A's tenants.
// Tenant-scoped calls with A's tenant are 403 for B, B's list never shows A's installations, and
// B deauthorizing A's tenant is 404 and changes nothing for A.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { JsonBody } from './harness/gateway-response.js';
import { type OnboardedPartner, authorizeThroughGateway, createTenant, grantTenant, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';

const TENANTS = '/api/partner/v1/tenants';
const TENANT_SCOPED = ['/api/partner/v1/tenants/locations', '/api/partner/v1/tenants/available-logistics'];

const dialects = await e2eDialects();

describe.each(dialects)('[%s] tenant isolation between partners', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let a: OnboardedPartner;
  let b: OnboardedPartner;

  /** Every installation the partner's list shows, walking all pages one record at a time. */
  async function everyListed(key: string): Promise<JsonBody[]> {
    const all: JsonBody[] = [];
    for (let page = 1; page <= 20; page += 1) {
      const res = await gw.get(TENANTS, { key, query: { page, per_page: 1 } });
      expect(res.status, res.text).toBe(200);
      all.push(...res.body.data.installations);
      if (!res.body.data.pagination.has_more_pages) return all;
    }
    throw new Error('more pages than expected');
  }

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    a = await onboardPartner(stack.internal, gw, { label: 'Alpha', tenants: 2, locations: 2, logistics: 1 });
    b = await onboardPartner(stack.internal, gw, { label: 'Bravo', tenants: 1, locations: 1, logistics: 1 });
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  it("B gets 403 on locations and available-logistics with A's tenant ids, and A still gets 200", async () => {
    for (const tenant of a.tenants) {
      for (const path of TENANT_SCOPED) {
        expectError(await gw.get(path, { key: b.key, tenant: tenant.id }), 'FORBIDDEN', 'X-Tenant-Id');
        expectError(await gw.get(path, { key: b.key, tenant: tenant.id.toUpperCase() }), 'FORBIDDEN', 'X-Tenant-Id');
        expect((await gw.get(path, { key: a.key, tenant: tenant.id })).status).toBe(200);
      }
    }
  });

  it("each partner's tenants list shows its own installations only", async () => {
    const listedByB = await everyListed(b.key);
    expect(listedByB.map((i) => i.tenant_id)).toEqual(b.tenants.map((t) => t.id));
    for (const installation of listedByB) expect(installation).toMatchObject({ partner_id: String(b.id), app_id: b.appId, app_key: b.appKey });
    const listedByA = await everyListed(a.key);
    expect(listedByA.map((i) => i.tenant_id).sort()).toEqual(a.tenants.map((t) => t.id).sort());
    for (const installation of listedByA) expect(installation.partner_id).toBe(String(a.id));
  });

  it("B's tenant data never includes A's locations", async () => {
    const res = await gw.get(TENANT_SCOPED[0]!, { key: b.key, tenant: b.tenants[0]!.id });
    expect(res.body.data.locations.map((l: { location_id: number }) => l.location_id)).toEqual(b.tenants[0]!.locationIds);
    expect(res.text).not.toContain('Alpha');
  });

  it("B deauthorizing A's tenant is 404 and A's installation is untouched", async () => {
    const target = a.tenants[0]!.id;
    const res = await gw.post('/api/partner/v1/tenants/deauthorize', { tenant_id: target, uninstall_reason: 'hostile' }, { key: b.key });
    expectError(res, 'NOT_FOUND', 'tenant_id');
    expect(res.text, "the refusal reveals nothing of A's installation").not.toContain(a.appKey);
    const listed = await everyListed(a.key);
    expect(listed.find((i) => i.tenant_id === target)).toMatchObject({ uninstall_at: null, uninstall_reason: null });
    for (const path of TENANT_SCOPED) expect((await gw.get(path, { key: a.key, tenant: target })).status).toBe(200);
  });

  it('two partners installed on the same tenant have independent installations', async () => {
    const shared = a.tenants[1]!.id;
    await grantTenant(stack.internal, shared, b.id);
    const byB = await authorizeThroughGateway(gw, b.key, shared, { installation_type: 'marketplace', days_connected: 9 });
    expect(byB.body.data.installation).toMatchObject({ tenant_id: shared, partner_id: String(b.id), installation_type: 'marketplace', days_connected: 9 });
    const deauth = await gw.post('/api/partner/v1/tenants/deauthorize', { tenant_id: shared, uninstall_reason: 'B leaves' }, { key: b.key });
    expect(deauth.status, deauth.text).toBe(200);
    for (const path of TENANT_SCOPED) {
      expectError(await gw.get(path, { key: b.key, tenant: shared }), 'FORBIDDEN', 'X-Tenant-Id');
      expect((await gw.get(path, { key: a.key, tenant: shared })).status).toBe(200);
    }
    const mine = (await everyListed(a.key)).find((i) => i.tenant_id === shared);
    expect(mine).toMatchObject({ partner_id: String(a.id), installation_type: 'custom', uninstall_at: null, uninstall_reason: null });
    expect(mine.id).not.toBe(byB.body.data.installation.id);
  });

  it('Idempotency-Key values are scoped per partner: the same key never replays another partner’s response', async () => {
    const key = `shared-key-${Date.now()}`;
    const forA = await createTenant(stack.internal, 'IdemA');
    const forB = await createTenant(stack.internal, 'IdemB');
    await grantTenant(stack.internal, forA.id, a.id);
    await grantTenant(stack.internal, forB.id, b.id);
    const first = await gw.post('/api/partner/v1/tenants/authorize', { tenant_id: forA.id, days_connected: 1, installation_type: 'custom' }, { key: a.key, headers: { 'idempotency-key': key } });
    expect(first.status, first.text).toBe(200);
    const second = await gw.post('/api/partner/v1/tenants/authorize', { tenant_id: forB.id, days_connected: 2, installation_type: 'custom' }, { key: b.key, headers: { 'idempotency-key': key } });
    expect(second.status, second.text).toBe(200);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
    expect(second.body.data.installation).toMatchObject({ tenant_id: forB.id, partner_id: String(b.id) });
  });
});
