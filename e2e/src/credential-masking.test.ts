// Logistics credentials (docs/identity-and-consent.md#logistics-credentials) come back masked: all but the last 4 characters are `*`;
// the raw values, like the partners' API keys, never appear in any response or in the gateway's log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { GatewayResponse } from './harness/gateway-response.js';
import { type LogisticCredentials, type OnboardedPartner, type OnboardedTenant, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';

const LOGISTICS = '/api/partner/v1/tenants/available-logistics';
const FIELDS: Array<[keyof LogisticCredentials, string]> = [
  ['username', 'username'],
  ['password', 'password'],
  ['apiKey', 'api_key'],
  ['apiSecret', 'api_secret'],
];

/** The decisions' rule: all but the last 4 characters replaced by `*`. */
const masked = (raw: string) => '*'.repeat(Math.max(0, raw.length - 4)) + raw.slice(-4);

const dialects = await e2eDialects();

describe.each(dialects)('[%s] credential masking', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  let tenant: OnboardedTenant;
  /** Credentials of the preferences created below with short values. */
  const short: LogisticCredentials = { username: 'abcde', password: 'wxyz', apiKey: 'k9', apiSecret: '' };
  const seen: GatewayResponse[] = [];

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url, { onResponse: (res) => seen.push(res) });
    partner = await onboardPartner(stack.internal, gw, { label: 'Masked', tenants: 1, locations: 1, logistics: 3 });
    tenant = partner.tenants[0]!;
    await stack.internal.logisticPreferences.create.mutate({ tenantId: tenant.id, logisticProviderId: 900, logisticProviderName: 'Tiny Courier', ...short });
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  it('username, password, api_key and api_secret show only their last 4 characters', async () => {
    const res = await gw.get(LOGISTICS, { key: partner.key, tenant: tenant.id });
    expect(res.status, res.text).toBe(200);
    const logistics = res.body.data.logistics;
    expect(logistics).toHaveLength(4);
    tenant.credentials.forEach((raw, i) => {
      for (const [input, output] of FIELDS) {
        expect(raw[input].length).toBeGreaterThan(8);
        expect(logistics[i][output], `${output} of preference ${i + 1}`).toBe(masked(raw[input]));
      }
    });
  });

  it('short credentials are never returned in clear: 5 characters keep 4, 4 or fewer are all `*`', async () => {
    const res = await gw.get(LOGISTICS, { key: partner.key, tenant: tenant.id });
    const tiny = res.body.data.logistics.find((l: { logistic_provider_id: number }) => l.logistic_provider_id === 900);
    expect(tiny).toMatchObject({ username: '*bcde', password: '****', api_key: '**', api_secret: '' });
  });

  it('the masks hold on every page', async () => {
    for (let page = 1; page <= 4; page += 1) {
      const res = await gw.get(LOGISTICS, { key: partner.key, tenant: tenant.id, query: { page, per_page: 1 } });
      const [entry] = res.body.data.logistics;
      const raw = page <= 3 ? tenant.credentials[page - 1]! : short;
      for (const [input, output] of FIELDS) {
        if (raw[input].length > 4) expect(entry[output]).toBe(masked(raw[input]));
        else expect(entry[output]).toBe('*'.repeat(raw[input].length));
      }
    }
  });

  it('the internal API returns the credentials masked as well', async () => {
    const { logisticPreferences } = await stack.internal.logisticPreferences.list.query({ tenantId: tenant.id });
    const text = JSON.stringify(logisticPreferences);
    for (const raw of tenant.credentials) for (const [input] of FIELDS) expect(text).not.toContain(raw[input]);
  });

  it('no raw credential and no API key appears in any gateway response of this file, nor in the gateway log', async () => {
    expect(seen.length).toBeGreaterThan(5);
    const secrets = [partner.key, ...tenant.credentials.flatMap((c) => FIELDS.map(([input]) => c[input]))];
    for (const res of seen) {
      for (const secret of secrets) expect(res.text.includes(secret), `${res.method} ${res.path} leaks a secret`).toBe(false);
      for (const value of Object.values(res.headers)) for (const secret of secrets) expect(value.includes(secret), `${res.method} ${res.path} header leaks a secret`).toBe(false);
    }
    const log = stack.gateway.output().join('\n');
    expect(log.length).toBeGreaterThan(0);
    for (const secret of secrets) expect(log.includes(secret), 'the gateway log holds a raw secret').toBe(false);
  });
});
