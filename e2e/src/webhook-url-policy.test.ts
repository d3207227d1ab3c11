// Webhooks cannot be aimed inside the network (docs/webhooks.md#endpoint-urls): with the production
// setting (WEBHOOK_ALLOW_PRIVATE_URLS unset), the real gateway and internal API refuse every
// spelling of a loopback, private, link-local or metadata host, http://, user information and
// names that do not resolve, with VALIDATION_ERROR on `url`, and store nothing. No worker runs
// here, every URL is an IP literal or a name that cannot resolve publicly (no real DNS of
// public names), and nothing is ever sent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type InternalClient, TRPCClientError } from '@pits/internal-api/client';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';

const WEBHOOKS = '/api/partner/v1/webhooks';
const EVENT = 'inbound.status_changed';

const dialects = await e2eDialects();

/** The refusal of an internal API call, as its client reads it. */
async function internalRefusal(call: Promise<unknown>): Promise<{ code: unknown; httpStatus: unknown; kind: unknown; field: unknown; message: string }> {
  try {
    await call;
  } catch (error) {
    if (!(error instanceof TRPCClientError)) throw error;
    const data = error.data as Record<string, unknown>;
    return { code: data.code, httpStatus: data.httpStatus, kind: data.kind, field: data.field, message: error.message };
  }
  throw new Error('expected the internal API to refuse');
}

describe.each(dialects)('[%s] webhook URL policy', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let internal: InternalClient;
  let partner: OnboardedPartner;

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    internal = stack.internal;
    partner = await onboardPartner(internal, gw, { label: 'HookPolicy', tenants: 0 });
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  /** Every spelling the security review tried, and the issue a partner reads for it. */
  const spellings = (): Array<[string, string]> => {
    const internalPort = new URL(stack.internalApi.url).port;
    return [
      ['http://127.0.0.1/hook', 'must use https'],
      ['https://127.0.0.1/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://localhost/hook', 'must point to a public host (localhost is a local name)'],
      ['https://[::1]/hook', 'must point to a public address (::1 is loopback)'],
      ['https://0.0.0.0/hook', 'must point to a public address (0.0.0.0 is unspecified)'],
      ['https://2130706433/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://127.1/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://0x7f000001/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://0177.0.0.1/hook', 'must point to a public address (127.0.0.1 is loopback)'],
      ['https://169.254.169.254/latest/meta-data', 'must point to a public address (169.254.169.254 is a cloud metadata address)'],
      ['https://[::ffff:127.0.0.1]/hook', 'must point to a public address (::ffff:7f00:1 maps to 127.0.0.1, which is loopback)'],
      ['https://[::ffff:7f00:1]/hook', 'must point to a public address (::ffff:7f00:1 maps to 127.0.0.1, which is loopback)'],
      ['https://10.0.0.1/hook', 'must point to a public address (10.0.0.1 is private)'],
      ['https://192.168.1.1/hook', 'must point to a public address (192.168.1.1 is private)'],
      ['https://172.16.0.1/hook', 'must point to a public address (172.16.0.1 is private)'],
      ['https://[fe80::1]/hook', 'must point to a public address (fe80::1 is link-local)'],
      ['https://[fc00::1]/hook', 'must point to a public address (fc00::1 is unique-local)'],
      ['https://user:pass@example.com/hook', 'must not contain user information'],
      ['https://localhost./hook', 'must point to a public host (localhost is a local name)'],
      ['https://foo.localhost/hook', 'must point to a public host (foo.localhost is a local name)'],
      [`https://127.0.0.1:${internalPort}/trpc/partners.list`, 'must point to a public address (127.0.0.1 is loopback)'],
      [`http://127.0.0.1:${internalPort}/trpc/partners.list`, 'must use https'],
      // Passes every static rule, then DNS: .invalid never resolves (RFC 6761).
      ['https://unresolvable.invalid/hook', 'host name does not resolve'],
    ];
  };

  it('the gateway refuses each spelling with 422 VALIDATION_ERROR on url, and registers nothing', async () => {
    for (const [url, issue] of spellings()) {
      const res = await gw.post(WEBHOOKS, { url, event_types: [EVENT], description: 'probe' }, { key: partner.key });
      expectError(res, 'VALIDATION_ERROR', 'url');
      expect(res.body.error.details.issue, url).toBe(issue);
      expect(res.text, `${url}: user information is never echoed`).not.toContain('user:pass');
    }
    const listed = await gw.get(WEBHOOKS, { key: partner.key });
    expect(listed.status, listed.text).toBe(200);
    expect(listed.body.data.webhooks).toEqual([]);
  });

  it('the internal API refuses each spelling with BAD_REQUEST, kind VALIDATION_ERROR on url, and registers nothing', async () => {
    for (const [url, issue] of spellings()) {
      expect(await internalRefusal(internal.webhooks.create.mutate({ partnerId: partner.id, url, eventTypes: [EVENT] })), url).toEqual({
        code: 'BAD_REQUEST',
        httpStatus: 400,
        kind: 'VALIDATION_ERROR',
        field: 'url',
        message: `url ${issue}`,
      });
    }
    expect(await internal.webhooks.list.query({ partnerId: partner.id })).toEqual([]);
    expect((await gw.get(WEBHOOKS, { key: partner.key })).body.data.webhooks).toEqual([]);
  });
});
