// The pagination object of the tenant lists (spec: inbound's fields plus has_more_pages;
// docs/envelopes-and-pagination.md#pagination: Laravel's paginator), exact on every page, past
// the end included, and the documented order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { JsonBody } from './harness/gateway-response.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';

const dialects = await e2eDialects();

const page = (current_page: number, per_page: number, total: number, from: number | null, to: number | null) => {
  const last_page = Math.max(1, Math.ceil(total / per_page));
  return { current_page, per_page, total, last_page, from, to, has_more_pages: current_page < last_page };
};

describe.each(dialects)('[%s] pagination of the tenant lists', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  let empty: OnboardedPartner;

  /** The three lists, each with 3 records, and the ids in their documented order. */
  let lists: Array<{ path: string; field: string; id: string; tenant?: string; expected: Array<string | number> }>;

  beforeAll(async () => {
    stack = await startStack(dialect);
    gw = gatewayClient(stack.gateway.url);
    partner = await onboardPartner(stack.internal, gw, { label: 'Pager', tenants: 3, locations: 3, logistics: 3 });
    empty = await onboardPartner(stack.internal, gw, { label: 'Empty', tenants: 0 });
    const first = partner.tenants[0]!;
    const logisticIds = (await stack.internal.logisticPreferences.list.query({ tenantId: first.id })).logisticPreferences.map((l) => l.id);
    lists = [
      // installations newest first
      { path: '/api/partner/v1/tenants', field: 'installations', id: 'tenant_id', expected: partner.tenants.map((t) => t.id).reverse() },
      // locations and logistics by id ascending
      { path: '/api/partner/v1/tenants/locations', field: 'locations', id: 'location_id', tenant: first.id, expected: first.locationIds },
      { path: '/api/partner/v1/tenants/available-logistics', field: 'logistics', id: 'logistic_preference_id', tenant: first.id, expected: logisticIds },
    ];
  });
  afterAll(() => stopAfterLedgerCheck(stack));
  showOutputOnFailure(() => stack?.services() ?? []);

  const fetchPage = async (list: (typeof lists)[number], query: Record<string, number>) => {
    const res = await gw.get(list.path, { key: partner.key, query, ...(list.tenant ? { tenant: list.tenant } : {}) });
    expect(res.status, res.text).toBe(200);
    return { pagination: res.body.data.pagination as JsonBody, ids: (res.body.data[list.field] as JsonBody[]).map((r) => r[list.id]) };
  };

  it('defaults: page 1 of 10', async () => {
    for (const list of lists) {
      const { pagination, ids } = await fetchPage(list, {});
      expect(pagination, list.path).toEqual(page(1, 10, 3, 1, 3));
      expect(ids, list.path).toEqual(list.expected);
    }
  });

  it('per_page 2: page 1, page 2, and pages past the end (empty, from/to null)', async () => {
    for (const list of lists) {
      const one = await fetchPage(list, { page: 1, per_page: 2 });
      expect(one.pagination, list.path).toEqual({ current_page: 1, per_page: 2, total: 3, last_page: 2, from: 1, to: 2, has_more_pages: true });
      const two = await fetchPage(list, { page: 2, per_page: 2 });
      expect(two.pagination, list.path).toEqual({ current_page: 2, per_page: 2, total: 3, last_page: 2, from: 3, to: 3, has_more_pages: false });
      expect([...one.ids, ...two.ids], `${list.path}: pages in order, nothing twice`).toEqual(list.expected);
      for (const past of [3, 50]) {
        const beyond = await fetchPage(list, { page: past, per_page: 2 });
        expect(beyond.pagination, list.path).toEqual({ current_page: past, per_page: 2, total: 3, last_page: 2, from: null, to: null, has_more_pages: false });
        expect(beyond.ids).toEqual([]);
      }
    }
  });

  it('per_page 1 walks every record once; per_page 3 and 100 fit on one page', async () => {
    for (const list of lists) {
      const walked: Array<string | number> = [];
      for (let n = 1; n <= 3; n += 1) {
        const { pagination, ids } = await fetchPage(list, { page: n, per_page: 1 });
        expect(pagination, list.path).toEqual(page(n, 1, 3, n, n));
        walked.push(...ids);
      }
      expect(walked, list.path).toEqual(list.expected);
      expect((await fetchPage(list, { per_page: 3 })).pagination).toEqual({ current_page: 1, per_page: 3, total: 3, last_page: 1, from: 1, to: 3, has_more_pages: false });
      expect((await fetchPage(list, { per_page: 100 })).pagination).toEqual(page(1, 100, 3, 1, 3));
    }
  });

  it('an empty list: total 0, last_page 1, from/to null', async () => {
    const res = await gw.get('/api/partner/v1/tenants', { key: empty.key });
    expect(res.body.data).toEqual({ installations: [], pagination: { current_page: 1, per_page: 10, total: 0, last_page: 1, from: null, to: null, has_more_pages: false } });
    const second = await gw.get('/api/partner/v1/tenants', { key: empty.key, query: { page: 2 } });
    expect(second.body.data.pagination).toEqual({ current_page: 2, per_page: 10, total: 0, last_page: 1, from: null, to: null, has_more_pages: false });
  });
});
