// Both Authorization forms of docs/identity-and-consent.md#api-keys: `<key>` and `Bearer <key>`, the scheme in any case,
// surrounding and repeated spaces ignored, on every kind of tenant endpoint.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import { type OnboardedPartner, createTenant, grantTenant, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';

const dialects = await e2eDialects();

describe.each(dialects)('[%s] Authorization header forms', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let alpha: OnboardedPartner;

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    alpha = await onboardPartner(stack.internal, gw, { label: 'Alpha', tenants: 1 });
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  // fetch strips leading and trailing whitespace from header values (so does any HTTP parser:
  // it is not part of the field value); the spaces and tabs inside are sent as written.
  const accepted = (key: string) => [
    key,
    `Bearer ${key}`,
    `bearer ${key}`,
    `BEARER ${key}`,
    `bEaReR ${key}`,
    `  Bearer ${key}  `,
    `Bearer    ${key}`,
    `Bearer\t${key}`,
    `  ${key}  `,
  ];

  it('every accepted form authenticates on the list, tenant-scoped and write endpoints', async () => {
    const tenant = alpha.tenants[0]!.id;
    for (const authorization of accepted(alpha.key)) {
      const list = await gw.get('/api/partner/v1/tenants', { authorization });
      expect(list.status, `${JSON.stringify(authorization)}: ${list.text}`).toBe(200);
      expect(list.body.data.installations.map((i: { tenant_id: string }) => i.tenant_id)).toEqual([tenant]);
      for (const path of ['/api/partner/v1/tenants/locations', '/api/partner/v1/tenants/available-logistics']) {
        const res = await gw.get(path, { authorization, tenant });
        expect(res.status, `${JSON.stringify(authorization)} ${path}: ${res.text}`).toBe(200);
      }
      const write = await gw.post('/api/partner/v1/tenants/authorize', { tenant_id: tenant, days_connected: 3, installation_type: 'custom' }, { authorization });
      expect(write.status, `${JSON.stringify(authorization)}: ${write.text}`).toBe(200);
    }
  });

  it('the two forms are the same partner: a tenant authorized with one is listed with the other', async () => {
    const extra = await createTenant(stack.internal, 'Both');
    await grantTenant(stack.internal, extra.id, alpha.id);
    const res = await gw.post('/api/partner/v1/tenants/authorize', { tenant_id: extra.id, days_connected: 1, installation_type: 'marketplace' }, { authorization: alpha.key });
    expect(res.status, res.text).toBe(200);
    const listed = await gw.get('/api/partner/v1/tenants', { authorization: `Bearer ${alpha.key}` });
    expect(listed.body.data.installations.map((i: { tenant_id: string }) => i.tenant_id)).toContain(extra.id);
    const deauth = await gw.post('/api/partner/v1/tenants/deauthorize', { tenant_id: extra.id }, { authorization: `bearer ${alpha.key}` });
    expect(deauth.status, deauth.text).toBe(200);
    const after = await gw.get('/api/partner/v1/tenants', { authorization: alpha.key });
    expect(after.body.data.installations.map((i: { tenant_id: string }) => i.tenant_id)).not.toContain(extra.id);
  });

  it('near misses are 401 on Authorization', async () => {
    const key = alpha.key;
    const refused = ['', 'Bearer', 'Bearer ', `Bearer${key}`, `Bearer: ${key}`, `Bearer ${key} ${key}`, `Token ${key}`, `Basic ${key}`, `Bearer Bearer ${key}`, `"${key}"`, `${key},`, key.toUpperCase()];
    for (const authorization of refused) {
      const res = await gw.get('/api/partner/v1/tenants', { authorization });
      expectError(res, 'UNAUTHORIZED', 'Authorization');
    }
  });
});
