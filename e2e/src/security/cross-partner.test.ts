// Every cross-partner path is refused (docs/identity-and-consent.md#isolation, docs/errors.md): partner A's tenant holds real data made
// through the API (adjustments, transfers between two locations, an inbound shipment, products and
// stock, a webhook endpoint with a delivered event); partner B holds its own tenant. The routes
// come from the gateway's own /openapi.json, and each must be classified here (a new route fails
// the first test until someone says how it is guarded). B with A's tenant is 403 on every
// tenant-scoped route; B with A's ids is 404 exactly like an unknown id; A's ids as B's filters or
// body references find nothing; A's Idempotency-Key replays nothing of A's to B; B can neither
// authorize nor deauthorize A's tenant; and afterwards every record of A reads back the same and
// the ledger balances.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from '../harness/e2e-database.js';
import { expectError } from '../harness/error-envelope.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { type GatewayClient, type GatewayRequest, gatewayClient } from '../harness/gateway-client.js';
import type { GatewayResponse, JsonBody } from '../harness/gateway-response.js';
import { createShipment } from '../harness/inbound-fixtures.js';
import { type CatalogueProduct, createProducts, recordOpening } from '../harness/inventory-fixtures.js';
import { expectLedgerBalanced, stopAfterLedgerCheck } from '../harness/ledger-check.js';
import { liveContract } from '../harness/openapi-contract.js';
import { type OnboardedPartner, createTenant, onboardPartner } from '../harness/partner-onboarding.js';
import { pollUntil } from '../harness/poll-until.js';
import { type ServiceStack, startStack } from '../harness/service-stack.js';
import { type WebhookReceiver, startWebhookReceiver } from '../harness/webhook-receiver.js';
import { startWorkerProcess } from '../harness/webhook-worker-process.js';

/**
 * The receiver of A's endpoint listens on 127.0.0.1: the gateway and the short-lived worker that
 * delivers A's one event are told to allow private addresses, as in webhooks.test.ts. Only
 * loopback URLs are registered in this file.
 */
const ALLOW_PRIVATE = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
const EVENT = 'inbound.status_changed';
const TRANSFER_DATE = '2026-03-10';

/** What partner A made through the API, by the id the routes take. */
interface AlphaWorld {
  partner: OnboardedPartner;
  tenant: string;
  locations: [number, number];
  products: [CatalogueProduct, CatalogueProduct];
  adjustments: { approved: string; pending: string };
  transfers: { completed: string; pending: string; approved: string; inTransit: string };
  shipment: { id: string; itemId: string };
  /** An active order hold of A's. */
  reservation: string;
  webhook: string;
  delivery: string;
  /** The request that created `adjustments.approved`, sent with an Idempotency-Key. */
  keyed: { key: string; body: unknown };
}

/**
 * How a route is guarded against another partner:
 * - `tenant`: tenant-scoped; `id` (when the path has one) says which of A's records it acts on.
 * - `partner`: the partner's own resources; with `id`, A's id must be unknown to B; without, the named test covers it.
 * - `reference`: platform reference data shared by every partner (no tenant or partner data).
 * - `public`: no authentication (probes and documentation).
 */
type RouteGuard =
  | { scope: 'tenant'; id?: IdKind; body?: (a: AlphaWorld) => unknown }
  | { scope: 'partner'; id: IdKind; body?: (a: AlphaWorld) => unknown }
  | { scope: 'partner'; coveredBy: string }
  | { scope: 'reference' | 'public'; why: string };

/** A's id that a route acts on, and an id of the same form that nothing has. */
interface IdKind {
  of: (a: AlphaWorld) => string;
  unknown: (a: AlphaWorld) => string;
}

/** Same date and form as A's number, a sequence number no tenant reached. */
const unknownNumber = (number: string) => number.replace(/\d{6}$/, '999999');
const UNKNOWN_INTEGER = '987654321';

const ADJUSTMENT = {
  approved: { of: (a: AlphaWorld) => a.adjustments.approved, unknown: (a: AlphaWorld) => unknownNumber(a.adjustments.approved) },
  pending: { of: (a: AlphaWorld) => a.adjustments.pending, unknown: (a: AlphaWorld) => unknownNumber(a.adjustments.pending) },
};
const TRANSFER = {
  completed: { of: (a: AlphaWorld) => a.transfers.completed, unknown: (a: AlphaWorld) => unknownNumber(a.transfers.completed) },
  pending: { of: (a: AlphaWorld) => a.transfers.pending, unknown: (a: AlphaWorld) => unknownNumber(a.transfers.pending) },
  approved: { of: (a: AlphaWorld) => a.transfers.approved, unknown: (a: AlphaWorld) => unknownNumber(a.transfers.approved) },
  inTransit: { of: (a: AlphaWorld) => a.transfers.inTransit, unknown: (a: AlphaWorld) => unknownNumber(a.transfers.inTransit) },
};
const SHIPMENT: IdKind = { of: (a) => a.shipment.id, unknown: () => UNKNOWN_INTEGER };
const RESERVATION: IdKind = { of: (a) => a.reservation, unknown: (a) => unknownNumber(a.reservation) };
const WEBHOOK: IdKind = { of: (a) => a.webhook, unknown: () => UNKNOWN_INTEGER };
const DELIVERY: IdKind = { of: (a) => a.delivery, unknown: () => UNKNOWN_INTEGER };
const PRODUCT: IdKind = { of: (a) => String(a.products[0].id), unknown: () => UNKNOWN_INTEGER };

/** What the bodies below need of A's world. */
type AlphaCatalogue = Pick<AlphaWorld, 'locations' | 'products'>;

const adjustmentBody = (a: AlphaCatalogue) => ({
  location_id: a.locations[0],
  type: 'increase',
  stock_source: 'good',
  reason: 'B tries to write for A',
  items: [{ product_id: String(a.products[0].id), quantity: 1, unit_cost: 1 }],
});
const transferBody = (a: AlphaCatalogue) => ({
  from_location_id: a.locations[0],
  to_location_id: a.locations[1],
  transfer_date: TRANSFER_DATE,
  items: [{ product_id: String(a.products[0].id), quantity: 1 }],
});
const countBody = (a: AlphaCatalogue) => ({
  location_id: a.locations[0],
  stock_source: 'good',
  items: [{ product_id: String(a.products[0].id), counted: 1, expected: null }],
});
const reservationBody = (a: AlphaCatalogue) => ({
  location_id: a.locations[0],
  reference: 'B tries to hold for A',
  items: [{ product_id: String(a.products[0].id), quantity: 1 }],
});
const receiptBody = (a: Pick<AlphaWorld, 'shipment'>) => ({ items: [{ item_id: a.shipment.itemId, received_quantity: 1 }] });
const reject = () => ({ reason: 'B tries to reject for A' });
const empty = () => ({});

/** Every operation of /openapi.json, as `METHOD /path`. A route missing here fails the first test. */
const ROUTES: Record<string, RouteGuard> = {
  'POST /api/partner/v1/tenants/authorize': { scope: 'partner', coveredBy: "B's authorize of A's tenant" },
  'POST /api/partner/v1/tenants/deauthorize': { scope: 'partner', coveredBy: "B's deauthorize of A's tenant" },
  'GET /api/partner/v1/tenants': { scope: 'partner', coveredBy: "B's lists" },
  'GET /api/partner/v1/tenants/locations': { scope: 'tenant' },
  'GET /api/partner/v1/tenants/available-logistics': { scope: 'tenant' },
  'POST /api/partner/v1/adjustments': { scope: 'tenant', body: adjustmentBody },
  'GET /api/engine/v1/adjustments': { scope: 'tenant' },
  'GET /api/engine/v1/adjustments/{id}': { scope: 'tenant', id: ADJUSTMENT.approved },
  'PATCH /api/partner/v1/adjustments/{id}/approve': { scope: 'tenant', id: ADJUSTMENT.pending, body: empty },
  'POST /api/partner/v1/adjustments/{id}/approve': { scope: 'tenant', id: ADJUSTMENT.pending, body: empty },
  'PATCH /api/partner/v1/adjustments/{id}/reject': { scope: 'tenant', id: ADJUSTMENT.pending, body: reject },
  'POST /api/partner/v1/adjustments/{id}/reject': { scope: 'tenant', id: ADJUSTMENT.pending, body: reject },
  'POST /api/partner/v1/transfers': { scope: 'tenant', body: transferBody },
  'GET /api/engine/v1/transfers': { scope: 'tenant' },
  'GET /api/engine/v1/transfers/{id}': { scope: 'tenant', id: TRANSFER.completed },
  'PATCH /api/partner/v1/transfers/{id}/approve': { scope: 'tenant', id: TRANSFER.pending, body: empty },
  'POST /api/partner/v1/transfers/{id}/approve': { scope: 'tenant', id: TRANSFER.pending, body: empty },
  'PATCH /api/partner/v1/transfers/{id}/reject': { scope: 'tenant', id: TRANSFER.pending, body: reject },
  'POST /api/partner/v1/transfers/{id}/reject': { scope: 'tenant', id: TRANSFER.pending, body: reject },
  'PATCH /api/partner/v1/transfers/{id}/ship': { scope: 'tenant', id: TRANSFER.approved, body: empty },
  'POST /api/partner/v1/transfers/{id}/ship': { scope: 'tenant', id: TRANSFER.approved, body: empty },
  'PATCH /api/partner/v1/transfers/{id}/receive': { scope: 'tenant', id: TRANSFER.inTransit, body: empty },
  'POST /api/partner/v1/transfers/{id}/receive': { scope: 'tenant', id: TRANSFER.inTransit, body: empty },
  'GET /api/partner/v1/stock': { scope: 'tenant' },
  'POST /api/partner/v1/stock/counts': { scope: 'tenant', body: countBody },
  'GET /api/partner/v1/products': { scope: 'tenant' },
  'GET /api/partner/v1/products/{id}': { scope: 'tenant', id: PRODUCT },
  'GET /api/partner/v1/stock/movements': { scope: 'tenant' },
  'GET /api/partner/v1/stock/lots': { scope: 'tenant' },
  'GET /api/partner/v1/inbound': { scope: 'tenant' },
  'GET /api/partner/v1/inbound/{id}': { scope: 'tenant', id: SHIPMENT },
  'POST /api/partner/v1/inbound/{id}/receive': { scope: 'tenant', id: SHIPMENT, body: receiptBody },
  'POST /api/partner/v1/reservations': { scope: 'tenant', body: reservationBody },
  'GET /api/partner/v1/reservations': { scope: 'tenant' },
  'GET /api/partner/v1/reservations/{id}': { scope: 'tenant', id: RESERVATION },
  'POST /api/partner/v1/reservations/{id}/extend': { scope: 'tenant', id: RESERVATION, body: () => ({ expires_in: 600 }) },
  'POST /api/partner/v1/reservations/{id}/release': { scope: 'tenant', id: RESERVATION, body: empty },
  'POST /api/partner/v1/reservations/{id}/consume': { scope: 'tenant', id: RESERVATION, body: empty },
  'POST /api/partner/v1/webhooks': { scope: 'partner', coveredBy: "B's lists (an endpoint B registers is B's alone)" },
  'GET /api/partner/v1/webhooks': { scope: 'partner', coveredBy: "B's lists" },
  'DELETE /api/partner/v1/webhooks/{id}': { scope: 'partner', id: WEBHOOK },
  // B pausing A's endpoint: 404, and A's list reads back the same (still active) afterwards.
  'PATCH /api/partner/v1/webhooks/{id}': { scope: 'partner', id: WEBHOOK, body: () => ({ active: false }) },
  'POST /api/partner/v1/webhooks/{id}/test': { scope: 'partner', id: WEBHOOK, body: empty },
  'GET /api/partner/v1/webhooks/deliveries': { scope: 'partner', coveredBy: "B's lists, and A's endpoint as B's filter" },
  'POST /api/partner/v1/webhooks/deliveries/{id}/redeliver': { scope: 'partner', id: DELIVERY, body: empty },
  'GET /api/partner/v1/areas': { scope: 'reference', why: 'the platform-wide area catalogue, the same for every partner' },
  'GET /api/partner/v1/areas/detail': { scope: 'reference', why: 'the platform-wide area catalogue, the same for every partner' },
  'GET /healthz': { scope: 'public', why: 'liveness probe' },
  'GET /readyz': { scope: 'public', why: 'readiness probe' },
  'GET /openapi.json': { scope: 'public', why: 'the API document' },
  'GET /docs/scalar.js': { scope: 'public', why: 'the renderer of the reference page' },
  'GET /docs': { scope: 'public', why: 'the API reference page' },
};

interface Operation {
  method: string;
  template: string;
  /** Undefined for an operation missing from ROUTES (the first test fails on it; the others pass it by). */
  guard: RouteGuard | undefined;
}

/** The id a route acts on, when its path has one. */
const idKindOf = (guard: RouteGuard): IdKind | undefined => ('id' in guard ? guard.id : undefined);

const fill = (template: string, id: string) => template.replace('{id}', encodeURIComponent(id));
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `value` with `id` written as `<id>` wherever it stands alone inside a string. */
function withoutId(value: unknown, id: RegExp): unknown {
  if (typeof value === 'string') return value.replace(id, '<id>');
  if (Array.isArray(value)) return value.map((v) => withoutId(v, id));
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutId(v, id)]));
  return value;
}

/**
 * What a partner can read in a response: the status, and the body without its `request_id`
 * (fresh on every response), with `id` (the id the request named) written as `<id>` in its texts.
 */
function readable(res: GatewayResponse, id?: string): unknown {
  const { request_id: _fresh, ...rest } = (res.body ?? {}) as Record<string, unknown>;
  const body = id === undefined ? rest : withoutId(rest, new RegExp(`(?<![\\w-])${escapeRegExp(id)}(?![\\w-])`, 'g'));
  return { status: res.status, body };
}

const dialects = await e2eDialects();

describe.each(dialects)('[%s] security: every cross-partner path is refused', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let receiver: WebhookReceiver | undefined;
  let a: AlphaWorld;
  let b: OnboardedPartner;
  let bTenant: string;
  /** B's two locations. */
  let bLocations: [number, number];
  let bProduct: CatalogueProduct;
  let bShipment: { id: string; itemId: string };
  let operations: Operation[];
  /** Everything A can read, taken once A's world is built; compared again at the end. */
  let before: Record<string, unknown>;

  const call = (op: Operation, request: GatewayRequest & { id?: string; body?: unknown }) => {
    const path = request.id === undefined ? op.template : fill(op.template, request.id);
    const { id: _id, body, ...rest } = request;
    return gw.request(op.method, path, { ...rest, template: op.template, ...(body !== undefined ? { json: body } : {}) });
  };
  const asA = (template: string, query?: Record<string, string | number>) => gw.get(template, { key: a.partner.key, tenant: a.tenant, ...(query ? { query } : {}) });
  const ok = (res: GatewayResponse): JsonBody => {
    expect(res.status, res.text).toBeLessThan(300);
    return res.body;
  };

  /** Every record of A as A reads it through the gateway (status and body apart from request_id). */
  async function everythingOfA(): Promise<Record<string, unknown>> {
    const reads: Record<string, GatewayResponse> = {
      tenants: await gw.get('/api/partner/v1/tenants', { key: a.partner.key, query: { per_page: 100 } }),
      locations: await asA('/api/partner/v1/tenants/locations', { per_page: 100 }),
      logistics: await asA('/api/partner/v1/tenants/available-logistics', { per_page: 100 }),
      adjustments: await asA('/api/engine/v1/adjustments', { per_page: 100 }),
      transfers: await asA('/api/engine/v1/transfers', { per_page: 100 }),
      inbound: await asA('/api/partner/v1/inbound', { per_page: 100 }),
      reservations: await asA('/api/partner/v1/reservations', { per_page: 100 }),
      stock: await asA('/api/partner/v1/stock', { per_page: 100 }),
      products: await asA('/api/partner/v1/products', { per_page: 100 }),
      movements: await asA('/api/partner/v1/stock/movements', { limit: 100 }),
      lots: await asA('/api/partner/v1/stock/lots', { per_page: 100 }),
      webhooks: await gw.get('/api/partner/v1/webhooks', { key: a.partner.key }),
      deliveries: await gw.get('/api/partner/v1/webhooks/deliveries', { key: a.partner.key, query: { limit: 100 } }),
    };
    for (const id of Object.values(a.adjustments)) reads[`adjustment ${id}`] = await gw.get(fill('/api/engine/v1/adjustments/{id}', id), { key: a.partner.key, tenant: a.tenant, template: '/api/engine/v1/adjustments/{id}' });
    for (const id of Object.values(a.transfers)) reads[`transfer ${id}`] = await gw.get(fill('/api/engine/v1/transfers/{id}', id), { key: a.partner.key, tenant: a.tenant, template: '/api/engine/v1/transfers/{id}' });
    reads[`reservation ${a.reservation}`] = await gw.get(fill('/api/partner/v1/reservations/{id}', a.reservation), { key: a.partner.key, tenant: a.tenant, template: '/api/partner/v1/reservations/{id}' });
    reads[`inbound ${a.shipment.id}`] = await gw.get(fill('/api/partner/v1/inbound/{id}', a.shipment.id), { key: a.partner.key, tenant: a.tenant, template: '/api/partner/v1/inbound/{id}' });
    const seen: Record<string, unknown> = {};
    for (const [name, res] of Object.entries(reads)) {
      expect(res.status, `${name}: ${res.text.slice(0, 300)}`).toBe(200);
      seen[name] = readable(res);
    }
    seen.grants = await stack.internal.installations.list.query({ tenantId: a.tenant });
    return seen;
  }

  /** Things of A that must never appear in anything B reads. */
  const secretsOfA = () => [a.tenant, a.partner.appKey, a.partner.name, ...a.products.map((p) => p.sku)];

  async function buildAlpha(): Promise<AlphaWorld> {
    const partner = await onboardPartner(stack.internal, gw, { label: 'Alpha', tier: 'large', tenants: 1, locations: 2 });
    const tenant = partner.tenants[0]!;
    const session = { key: partner.key, tenant: tenant.id };
    const locations: [number, number] = [tenant.locationIds[0]!, tenant.locationIds[1]!];
    const [p1, p2] = (await createProducts(stack.internal, tenant.id, 2, `ALPHA-${randomUUID().slice(0, 8)}`)) as [CatalogueProduct, CatalogueProduct];
    for (const p of [p1, p2]) await recordOpening(stack.internal, tenant.id, locations[0], p.id, { good: '100' }, `OPEN-${p.id}`);
    const catalogue: AlphaCatalogue = { locations, products: [p1, p2] };

    const adjustment = (quantity: number) => ({ ...adjustmentBody(catalogue), reason: 'counted again', items: [{ product_id: String(p1.id), quantity, unit_cost: 2 }] });
    const adjust = async (quantity: number, headers: Record<string, string> = {}) =>
      ok(await gw.post('/api/partner/v1/adjustments', adjustment(quantity), { ...session, headers })).data.adjustment.id as string;
    const act = async (kind: 'adjustments' | 'transfers', id: string, action: string) =>
      ok(await gw.request('PATCH', `/api/partner/v1/${kind}/${id}/${action}`, { ...session, json: {}, template: `/api/partner/v1/${kind}/{id}/${action}` }));
    const keyed = { key: `alpha-${randomUUID()}`, body: adjustment(5) };
    const approvedAdjustment = await adjust(5, { 'idempotency-key': keyed.key });
    await act('adjustments', approvedAdjustment, 'approve');
    const pendingAdjustment = await adjust(7);

    const transfer = async (quantity: number) =>
      ok(await gw.post('/api/partner/v1/transfers', { ...transferBody(catalogue), items: [{ product_id: String(p2.id), quantity }] }, session)).data.transfer.id as string;
    const completed = await transfer(4);
    for (const action of ['approve', 'ship', 'receive']) await act('transfers', completed, action);
    const pendingTransfer = await transfer(1);
    const approvedTransfer = await transfer(2);
    await act('transfers', approvedTransfer, 'approve');
    const inTransit = await transfer(3);
    for (const action of ['approve', 'ship']) await act('transfers', inTransit, action);

    const reservation = ok(await gw.post('/api/partner/v1/reservations', { location_id: locations[0], reference: 'ALPHA-ORDER-1', items: [{ product_id: String(p1.id), quantity: 2 }] }, session)).data
      .reservation.id as string;

    // The webhook first, so the shipment's first receipt is an event for it.
    receiver = await startWebhookReceiver('alpha');
    const registered = await gw.post('/api/partner/v1/webhooks', { url: receiver.url, event_types: [EVENT], description: 'alpha' }, { key: partner.key });
    expect(registered.status, registered.text).toBe(201);
    const webhook = registered.body.data.webhook.id as string;
    const shipment = await createShipment(stack.internal, tenant.id, locations[0], [[p1.id, 10]]);
    const itemId = String(shipment.lines[0]!.id);
    const received = await gw.post(`/api/partner/v1/inbound/${shipment.id}/receive`, receiptBody({ shipment: { id: String(shipment.id), itemId } }), {
      ...session,
      template: '/api/partner/v1/inbound/{id}/receive',
    });
    expect(received.status, received.text).toBe(200);
    // A worker delivers A's event, so B's redeliver below targets a finished delivery (one a redeliver would act on).
    const worker = await startWorkerProcess({ databaseUrl: stack.database.url, credentialsKey: stack.credentialsKey, name: 'alpha-worker', env: ALLOW_PRIVATE });
    let delivery: string;
    try {
      delivery = await pollUntil('A’s delivery succeeded', 20_000, async () => {
        const rows = ok(await gw.get('/api/partner/v1/webhooks/deliveries', { key: partner.key })).data.deliveries as JsonBody[];
        return rows.find((d) => d.status === 'succeeded')?.id as string | undefined;
      }, 100);
    } finally {
      await worker.stop(5000);
    }
    return {
      partner,
      tenant: tenant.id,
      locations,
      products: [p1, p2],
      adjustments: { approved: approvedAdjustment, pending: pendingAdjustment },
      transfers: { completed, pending: pendingTransfer, approved: approvedTransfer, inTransit },
      shipment: { id: String(shipment.id), itemId },
      reservation,
      webhook,
      delivery,
      keyed,
    };
  }

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: ALLOW_PRIVATE });
    gw = gatewayClient(stack.gateway.url);
    a = await buildAlpha();
    b = await onboardPartner(stack.internal, gw, { label: 'Bravo', tier: 'large', tenants: 1, locations: 2 });
    bTenant = b.tenants[0]!.id;
    bLocations = [b.tenants[0]!.locationIds[0]!, b.tenants[0]!.locationIds[1]!];
    [bProduct] = (await createProducts(stack.internal, bTenant, 1, `BRAVO-${randomUUID().slice(0, 8)}`)) as [CatalogueProduct];
    await recordOpening(stack.internal, bTenant, bLocations[0], bProduct.id, { good: '9' }, 'OPEN-B');
    const shipment = await createShipment(stack.internal, bTenant, bLocations[0], [[bProduct.id, 4]]);
    bShipment = { id: String(shipment.id), itemId: String(shipment.lines[0]!.id) };
    // B's own endpoint (nothing is ever sent to it: B causes no event and no worker runs from here on).
    const own = await gw.post('/api/partner/v1/webhooks', { url: 'http://127.0.0.1:9/hooks/bravo', event_types: [EVENT] }, { key: b.key });
    expect(own.status, own.text).toBe(201);

    const { document } = await liveContract(stack.gateway.url);
    operations = [];
    for (const [template, item] of Object.entries(document.paths as Record<string, Record<string, unknown>>)) {
      for (const method of Object.keys(item).filter((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))) {
        const key = `${method.toUpperCase()} ${template}`;
        operations.push({ method: method.toUpperCase(), template, guard: ROUTES[key] });
      }
    }
    before = await everythingOfA();
  });
  afterAll(async () => {
    await receiver?.close();
    await stopAfterLedgerCheck(stack);
  });
  showOutputOnFailure(() => stack?.services() ?? []);

  it('every operation of /openapi.json is classified, and the classification agrees with the document', async () => {
    const { document } = await liveContract(stack.gateway.url);
    const documented = operations.map((op) => `${op.method} ${op.template}`);
    expect(documented.filter((key) => ROUTES[key] === undefined), 'operations nobody has said how they are guarded against another partner').toEqual([]);
    expect(Object.keys(ROUTES).filter((key) => !documented.includes(key)), 'classified operations the gateway no longer serves').toEqual([]);
    for (const op of operations) {
      if (op.guard === undefined) continue;
      const spec = (document.paths[op.template] as Record<string, JsonBody>)[op.method.toLowerCase()];
      const where = `${op.method} ${op.template}`;
      const tenantHeader = ((spec.parameters ?? []) as JsonBody[]).some((p) => p.in === 'header' && p.name === 'X-Tenant-Id' && p.required === true);
      expect(tenantHeader, `${where}: requires X-Tenant-Id exactly when classified tenant-scoped`).toBe(op.guard.scope === 'tenant');
      const anonymous = (spec.security ?? []).every((requirement: object) => Object.keys(requirement).length === 0);
      expect(anonymous, `${where}: unauthenticated exactly when classified public`).toBe(op.guard.scope === 'public');
      expect(op.template.includes('{'), `${where}: has a path id exactly when its guard names whose id it is`).toBe(idKindOf(op.guard) !== undefined);
      if (op.guard.scope === 'tenant') expect(Object.keys(spec.responses), `${where}: documents 403`).toContain('403');
      if (idKindOf(op.guard) !== undefined) expect(Object.keys(spec.responses), `${where}: documents 404`).toContain('404');
    }
    expect(operations.filter((op) => op.guard?.scope === 'tenant').length, 'tenant-scoped operations found').toBeGreaterThanOrEqual(20);
  });

  it("B with A's tenant in X-Tenant-Id is 403 FORBIDDEN on every tenant-scoped operation, exactly like an unknown tenant", async () => {
    const strangerTenant = randomUUID();
    for (const op of operations) {
      const { guard } = op;
      if (guard?.scope !== 'tenant') continue;
      const id = guard.id?.of(a);
      const body = guard.body?.(a);
      const theirs = await call(op, { key: b.key, tenant: a.tenant, ...(id !== undefined ? { id } : {}), ...(body !== undefined ? { body } : {}) });
      expectError(theirs, 'FORBIDDEN', 'X-Tenant-Id');
      for (const secret of secretsOfA()) expect(theirs.text, `${op.method} ${op.template}: nothing of A in the refusal`).not.toContain(secret);
      const unknown = await call(op, { key: b.key, tenant: strangerTenant, ...(id !== undefined ? { id } : {}), ...(body !== undefined ? { body } : {}) });
      expect(readable(theirs), `${op.method} ${op.template}: A's tenant reads like an unknown one`).toEqual(readable(unknown));
      if (op.method === 'GET') {
        const own = await call(op, { key: a.partner.key, tenant: a.tenant, ...(id !== undefined ? { id } : {}) });
        expect(own.status, `${op.method} ${op.template}: A itself reads it (${own.text.slice(0, 200)})`).toBe(200);
      }
    }
  });

  it("B with its own tenant and A's id is 404 NOT_FOUND on every operation with an id, exactly like an unknown id", async () => {
    let checked = 0;
    for (const op of operations) {
      const { guard } = op;
      const kind = guard && idKindOf(guard);
      if (guard === undefined || kind === undefined) continue;
      const body = 'body' in guard ? guard.body?.(a) : undefined;
      const asB = { key: b.key, ...(guard.scope === 'tenant' ? { tenant: bTenant } : {}), ...(body !== undefined ? { body } : {}) };
      const theirId = kind.of(a);
      const unknownId = kind.unknown(a);
      const theirs = await call(op, { ...asB, id: theirId });
      expectError(theirs, 'NOT_FOUND');
      for (const secret of secretsOfA()) expect(theirs.text, `${op.method} ${op.template}: nothing of A in the refusal`).not.toContain(secret);
      const unknown = await call(op, { ...asB, id: unknownId });
      expectError(unknown, 'NOT_FOUND');
      expect(readable(theirs, theirId), `${op.method} ${op.template}: A's id reads like an unknown one`).toEqual(readable(unknown, unknownId));
      checked += 1;
    }
    expect(checked).toBeGreaterThanOrEqual(16);
  });

  it("A's location, product and endpoint ids as B's filters find nothing, exactly like unknown ids", async () => {
    const [l1, l2] = a.locations;
    const [p1] = a.products;
    const filters: Array<[string, string, string | number, string | number]> = [
      ['/api/engine/v1/adjustments', 'location_id', l1, 99_999_999],
      ['/api/engine/v1/transfers', 'from_location_id', l1, 99_999_999],
      ['/api/engine/v1/transfers', 'to_location_id', l2, 99_999_999],
      ['/api/partner/v1/stock', 'location_id', l1, 99_999_999],
      ['/api/partner/v1/stock', 'product_id', p1.id, 99_999_999],
      ['/api/partner/v1/stock', 'sku', p1.sku, 'NO-SUCH-SKU-0001'],
      ['/api/partner/v1/stock/movements', 'location_id', l1, 99_999_999],
      ['/api/partner/v1/stock/movements', 'product_id', p1.id, 99_999_999],
      ['/api/partner/v1/stock/lots', 'location_id', l1, 99_999_999],
      ['/api/partner/v1/stock/lots', 'product_id', p1.id, 99_999_999],
      ['/api/partner/v1/stock/lots', 'sku', p1.sku, 'NO-SUCH-SKU-0001'],
      ['/api/partner/v1/inbound', 'location_id', l1, 99_999_999],
      ['/api/partner/v1/products', 'sku', p1.sku, 'NO-SUCH-SKU-0001'],
      ['/api/partner/v1/products', 'search', p1.sku, 'NO-SUCH-SKU-0001'],
    ];
    for (const [path, name, theirs, unknown] of filters) {
      const withTheirs = await gw.get(path, { key: b.key, tenant: bTenant, query: { [name]: theirs } });
      const withUnknown = await gw.get(path, { key: b.key, tenant: bTenant, query: { [name]: unknown } });
      for (const secret of secretsOfA()) expect(withTheirs.text, `${path}?${name}=A's: nothing of A`).not.toContain(secret);
      expect(readable(withTheirs, String(theirs)), `${path}?${name}=A's reads like an unknown ${name}`).toEqual(readable(withUnknown, String(unknown)));
      if (withTheirs.status === 200) {
        const data = withTheirs.body.data as Record<string, unknown>;
        const rows = Object.values(data).find(Array.isArray) as unknown[];
        expect(rows, `${path}?${name}=A's: an empty page`).toEqual([]);
      }
    }
    const deliveries = await gw.get('/api/partner/v1/webhooks/deliveries', { key: b.key, query: { endpoint_id: a.webhook } });
    const unknownDeliveries = await gw.get('/api/partner/v1/webhooks/deliveries', { key: b.key, query: { endpoint_id: UNKNOWN_INTEGER } });
    expect(readable(deliveries, a.webhook)).toEqual(readable(unknownDeliveries, UNKNOWN_INTEGER));
    expect(deliveries.status, deliveries.text).toBe(200);
    expect(deliveries.body.data.deliveries).toEqual([]);
  });

  it("A's location, product and item ids in B's request bodies are refused exactly like unknown ids, and B creates nothing", async () => {
    const [l1, l2] = a.locations;
    const [p1] = a.products;
    const asB = { key: b.key, tenant: bTenant };
    const [b1, b2] = bLocations;
    const bLine = { product_id: String(bProduct.id), quantity: 1 };
    const adjustment = (location: number | string, product: number | string) => ({ ...adjustmentBody(a), location_id: location, items: [{ product_id: String(product), quantity: 1, unit_cost: 1 }] });
    const transfer = (from: number | string, to: number | string, items: unknown[]) => ({ ...transferBody(a), from_location_id: from, to_location_id: to, items });
    const count = (location: number | string, product: number | string) => ({ ...countBody(a), location_id: location, items: [{ product_id: String(product), counted: 1, expected: null }] });
    /** [path, what, body with that id, the field refused, A's id, an unknown id] */
    const bodies: Array<[string, string, (id: number) => unknown, string, number, number]> = [
      ['/api/partner/v1/adjustments', 'location', (id) => adjustment(id, bProduct.id), 'location_id', l1, 99_999_999],
      ['/api/partner/v1/adjustments', 'product', (id) => adjustment(b1, id), 'items[0].product_id', p1.id, 99_999_999],
      ['/api/partner/v1/transfers', 'source', (id) => transfer(id, b2, [bLine]), 'from_location_id', l1, 99_999_999],
      ['/api/partner/v1/transfers', 'destination', (id) => transfer(b1, id, [bLine]), 'to_location_id', l2, 99_999_999],
      ['/api/partner/v1/transfers', 'product', (id) => transfer(b1, b2, [{ product_id: String(id), quantity: 1 }]), 'items[0].product_id', p1.id, 99_999_999],
      ['/api/partner/v1/stock/counts', 'location', (id) => count(id, bProduct.id), 'location_id', l1, 99_999_999],
      ['/api/partner/v1/stock/counts', 'product', (id) => count(b1, id), 'items[0].product_id', p1.id, 99_999_999],
    ];
    for (const [path, what, body, field, theirs, unknown] of bodies) {
      const withTheirs = await gw.post(path, body(theirs), asB);
      expectError(withTheirs, 'VALIDATION_ERROR', field);
      for (const secret of secretsOfA()) expect(withTheirs.text, `${path} with A's ${what}: nothing of A`).not.toContain(secret);
      const withUnknown = await gw.post(path, body(unknown), asB);
      expect(readable(withTheirs, String(theirs)), `${path} with A's ${what} reads like an unknown ${what}`).toEqual(readable(withUnknown, String(unknown)));
    }
    // By SKU: A's SKU on B's line is an unknown SKU to B (the answer names only what B sent).
    const bySku = (sku: string) => ({ ...adjustment(b1, bProduct.id), items: [{ sku, quantity: 1, unit_cost: 1 }] });
    const skuOfA = await gw.post('/api/partner/v1/adjustments', bySku(p1.sku), asB);
    expectError(skuOfA, 'VALIDATION_ERROR', 'items[0].sku');
    const skuUnknown = await gw.post('/api/partner/v1/adjustments', bySku('NO-SUCH-SKU-0001'), asB);
    expect(readable(skuOfA, p1.sku), "A's SKU reads like an unknown SKU").toEqual(readable(skuUnknown, 'NO-SUCH-SKU-0001'));
    const receipt = (itemId: string) => ({ items: [{ item_id: itemId, received_quantity: 1 }] });
    const template = '/api/partner/v1/inbound/{id}/receive';
    const withTheirs = await gw.post(fill(template, bShipment.id), receipt(a.shipment.itemId), { ...asB, template });
    expectError(withTheirs, 'VALIDATION_ERROR', 'items[0].item_id');
    const withUnknown = await gw.post(fill(template, bShipment.id), receipt(UNKNOWN_INTEGER), { ...asB, template });
    expect(readable(withTheirs, a.shipment.itemId)).toEqual(readable(withUnknown, UNKNOWN_INTEGER));

    for (const path of ['/api/engine/v1/adjustments', '/api/engine/v1/transfers']) {
      const listed = await gw.get(path, { ...asB, query: { per_page: 1 } });
      expect(listed.body.data.pagination.total, `${path}: B created nothing`).toBe(0);
    }
    const shipment = await gw.get(fill('/api/partner/v1/inbound/{id}', bShipment.id), { ...asB, template: '/api/partner/v1/inbound/{id}' });
    expect(shipment.body.data.inbound.status, "B's own shipment received nothing").toBe('pending');
  });

  it("A's Idempotency-Key in B's request replays nothing of A's: B's request is judged as B's own", async () => {
    const headers = { 'idempotency-key': a.keyed.key };
    const withTheirTenant = await gw.post('/api/partner/v1/adjustments', a.keyed.body, { key: b.key, tenant: a.tenant, headers });
    expectError(withTheirTenant, 'FORBIDDEN', 'X-Tenant-Id');
    const withOwnTenant = await gw.post('/api/partner/v1/adjustments', a.keyed.body, { key: b.key, tenant: bTenant, headers });
    // A's location is unknown in B's tenant.
    expectError(withOwnTenant, 'VALIDATION_ERROR', 'location_id');
    for (const res of [withTheirTenant, withOwnTenant]) {
      expect(res.headers['idempotent-replayed'], 'not a replay').toBeUndefined();
      for (const secret of [...secretsOfA(), a.adjustments.approved]) expect(res.text, "nothing of A's stored response").not.toContain(secret);
    }
    // The key still replays A's own first response to A.
    const replay = await gw.post('/api/partner/v1/adjustments', a.keyed.body, { key: a.partner.key, tenant: a.tenant, headers });
    expect(replay.status, replay.text).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.data.adjustment.id).toBe(a.adjustments.approved);
  });

  it("B's lists show B's own records only: tenants, webhooks, deliveries", async () => {
    const tenants = await gw.get('/api/partner/v1/tenants', { key: b.key, query: { per_page: 100 } });
    expect(tenants.status, tenants.text).toBe(200);
    expect(tenants.body.data.installations.map((i: JsonBody) => i.tenant_id)).toEqual([bTenant]);
    const webhooks = await gw.get('/api/partner/v1/webhooks', { key: b.key });
    expect(webhooks.body.data.webhooks.map((w: JsonBody) => w.url)).toEqual(['http://127.0.0.1:9/hooks/bravo']);
    const deliveries = await gw.get('/api/partner/v1/webhooks/deliveries', { key: b.key, query: { limit: 100 } });
    expect(deliveries.body.data.deliveries).toEqual([]);
    for (const res of [tenants, webhooks, deliveries]) {
      for (const secret of [...secretsOfA(), receiver!.url]) expect(res.text, `${res.path}: nothing of A`).not.toContain(secret);
    }
  });

  it("B's authorize of A's tenant without a grant is 403 FORBIDDEN and creates no installation", async () => {
    const res = await gw.post('/api/partner/v1/tenants/authorize', { tenant_id: a.tenant, days_connected: 1, installation_type: 'custom' }, { key: b.key });
    expectError(res, 'FORBIDDEN', 'tenant_id');
    expect(res.text).not.toContain(a.partner.appKey);
    // Exactly what a tenant that granted nobody answers.
    const nobodys = await createTenant(stack.internal, 'Nobody', { locations: 1, logistics: 0 });
    const unknown = await gw.post('/api/partner/v1/tenants/authorize', { tenant_id: nobodys.id, days_connected: 1, installation_type: 'custom' }, { key: b.key });
    expect(readable(res, a.tenant)).toEqual(readable(unknown, nobodys.id));

    const grants = await stack.internal.installations.list.query({ tenantId: a.tenant });
    expect(grants.grants.map((g) => g.partnerId), "A's tenant has granted A only").toEqual([a.partner.id]);
    expect((await stack.internal.installations.list.query({ partnerId: b.id })).grants.map((g) => g.tenantId), "B's grants: its own tenant only").toEqual([bTenant]);
    const listed = await gw.get('/api/partner/v1/tenants', { key: b.key, query: { per_page: 100 } });
    expect(listed.body.data.installations.map((i: JsonBody) => i.tenant_id)).toEqual([bTenant]);
    expectError(await gw.get('/api/partner/v1/tenants/locations', { key: b.key, tenant: a.tenant }), 'FORBIDDEN', 'X-Tenant-Id');
  });

  it("B's deauthorize of A's tenant is 404 exactly like an unknown tenant, and A's installation is untouched", async () => {
    const res = await gw.post('/api/partner/v1/tenants/deauthorize', { tenant_id: a.tenant, uninstall_reason: 'B ends A' }, { key: b.key });
    expectError(res, 'NOT_FOUND', 'tenant_id');
    expect(res.text).not.toContain(a.partner.appKey);
    const strangerTenant = randomUUID();
    const unknown = await gw.post('/api/partner/v1/tenants/deauthorize', { tenant_id: strangerTenant, uninstall_reason: 'B ends A' }, { key: b.key });
    expect(readable(res, a.tenant)).toEqual(readable(unknown, strangerTenant));
    const mine = await gw.get('/api/partner/v1/tenants/locations', { key: a.partner.key, tenant: a.tenant });
    expect(mine.status, mine.text).toBe(200);
    const [grant] = (await stack.internal.installations.list.query({ tenantId: a.tenant })).grants;
    expect(grant).toMatchObject({ partnerId: a.partner.id, status: 'granted', installation: { status: 'active', uninstallAt: null } });
  });

  it('afterwards every record of A reads back the same, and the ledger balances', async () => {
    expect(await everythingOfA()).toEqual(before);
    expect(receiver!.arrivals.length, 'B’s redeliver sent nothing to A’s endpoint').toBe(1);
    await expectLedgerBalanced(stack);
  });
});
