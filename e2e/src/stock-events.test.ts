// Stock-level events end to end (docs/holds.md#events): a partner subscribed to
// stock.level_changed receives one event per stock row every transaction changed, each with a
// version that grows per row; deliveries are retried and redelivered out of order, and a receiver
// that applies an event only when its version is newer than the one it holds ends with exactly
// the levels GET /stock shows. Real gateway, real delivery workers, real HTTP receiver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { JsonBody } from './harness/gateway-response.js';
import { type CatalogueProduct, type TenantSession, createProducts, recordOpening } from './harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { expectWebhookContract, liveContract } from './harness/openapi-contract.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { pollUntil } from './harness/poll-until.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { type WebhookReceiver, startWebhookReceiver } from './harness/webhook-receiver.js';
import { type WorkerProcess, startWorkerProcess } from './harness/webhook-worker-process.js';

const RESERVATIONS = '/api/partner/v1/reservations';
const ADJUSTMENTS = '/api/partner/v1/adjustments';
const STOCK = '/api/partner/v1/stock';
const WEBHOOKS = '/api/partner/v1/webhooks';
const DELIVERIES = '/api/partner/v1/webhooks/deliveries';
const REDELIVER = '/api/partner/v1/webhooks/deliveries/{id}/redeliver';
const ALLOW_PRIVATE = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
const WORKER_ENV = { WEBHOOK_TIMEOUT_MS: '3000', WEBHOOK_LEASE_MS: '4000', ...ALLOW_PRIVATE };

interface LevelEvent {
  eventId: string;
  key: string;
  version: number;
  data: JsonBody;
}

const dialects = await e2eDialects();

describe.each(dialects)('[%s] stock-level events', (dialect) => {
  let stack: ServiceStack;
  let gw: GatewayClient;
  let partner: OnboardedPartner;
  let s: TenantSession;
  let location: number;
  let products: CatalogueProduct[];
  let receiver: WebhookReceiver;
  const workers: WorkerProcess[] = [];
  /** Event ids refused once (answered 500), so the worker retries them later, after newer ones. */
  const refusedOnce = new Set<string>();

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: ALLOW_PRIVATE });
    gw = gatewayClient(stack.gateway.url);
    partner = await onboardPartner(stack.internal, gw, { label: 'Listener', tier: 'large', tenants: 1, locations: 1 });
    s = { key: partner.key, tenant: partner.tenants[0]!.id };
    [location] = partner.tenants[0]!.locationIds as [number];
    products = await createProducts(stack.internal, s.tenant, 3, 'EVT');
    // Every third new event is refused on its first arrival; the retry comes about 10 s later,
    // after newer events. Only a first arrival counts or can be refused: any arrival of an id seen
    // before (a retry, a redelivery) is accepted.
    const seen = new Set<string>();
    receiver = await startWebhookReceiver('levels', (arrival) => {
      if (arrival.id === undefined || seen.has(arrival.id)) return 200;
      seen.add(arrival.id);
      if (seen.size % 3 === 0) {
        refusedOnce.add(arrival.id);
        return 500;
      }
      return 200;
    });
    const registered = await gw.post(WEBHOOKS, { url: receiver.url, event_types: ['stock.level_changed', 'reservation.status_changed'], description: 'levels' }, { key: partner.key });
    expect(registered.status, registered.text).toBe(201);
    for (const name of ['worker-a', 'worker-b']) workers.push(await startWorkerProcess({ databaseUrl: stack.database.url, credentialsKey: stack.credentialsKey, name, env: WORKER_ENV }));
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop(5000)));
    await receiver?.close();
    await stopAfterLedgerCheck(stack);
  });
  showOutputOnFailure(() => stack?.services() ?? []);

  const levelEvents = (): LevelEvent[] =>
    receiver.arrivals
      .filter((a) => a.outcome === 200)
      .map((a) => JSON.parse(a.body) as JsonBody)
      .filter((e) => e.type === 'stock.level_changed')
      .map((e) => ({ eventId: e.event_id, key: `${e.data.location_id}:${e.data.product_id}`, version: e.data.version, data: e.data }));

  it('a receiver applying events by version ends with the levels GET /stock shows, though deliveries overtake each other', async () => {
    for (const [i, product] of products.entries()) await recordOpening(stack.internal, s.tenant, location, product.id, { good: String(20 + i) }, `evt-opening-${i}`);
    // A mix of transactions, several touching two rows at once.
    const holdIds: string[] = [];
    for (let round = 0; round < 4; round += 1) {
      const created = await gw.post(
        RESERVATIONS,
        { location_id: location, reference: `evt-${round}`, items: [{ product_id: String(products[0]!.id), quantity: 1 }, { product_id: String(products[1]!.id), quantity: 2 }] },
        { key: s.key, tenant: s.tenant },
      );
      expect(created.status, created.text).toBe(201);
      holdIds.push(created.body.data.reservation.id);
    }
    const path = (id: string, action: string) => ({ key: s.key, tenant: s.tenant, json: {}, template: `${RESERVATIONS}/{id}/${action}` });
    expect((await gw.request('POST', `${RESERVATIONS}/${holdIds[0]}/consume`, path(holdIds[0]!, 'consume'))).status).toBe(200);
    expect((await gw.request('POST', `${RESERVATIONS}/${holdIds[1]}/release`, path(holdIds[1]!, 'release'))).status).toBe(200);
    const adjustment = await gw.post(ADJUSTMENTS, { location_id: location, type: 'increase', stock_source: 'good', reason: 'found', items: [{ product_id: String(products[2]!.id), quantity: 5, unit_cost: 1 }] }, { key: s.key, tenant: s.tenant });
    expect(adjustment.status, adjustment.text).toBe(201);
    const approved = await gw.request('PATCH', `${ADJUSTMENTS}/${adjustment.body.data.adjustment.id}/approve`, { key: s.key, tenant: s.tenant, json: {}, template: `${ADJUSTMENTS}/{id}/approve` });
    expect(approved.status, approved.text).toBe(200);

    const stock = await gw.get(STOCK, { key: s.key, tenant: s.tenant, query: { location_id: location } });
    expect(stock.status).toBe(200);
    const truth = new Map((stock.body.data.stock as JsonBody[]).map((row) => [`${row.location_id}:${row.product_id}`, row]));

    // One event per row per transaction: 3 openings, 4 holds x 2 rows, consume 2, release 2, approval 1.
    const expected = 3 + 4 * 2 + 2 + 2 + 1;
    await pollUntil(`${expected} stock.level_changed events accepted (retries included)`, 60_000, () => (new Set(levelEvents().map((e) => e.eventId)).size >= expected ? true : undefined), 200);

    // A stale delivery arriving last: the first event of a row, redelivered on request.
    const deliveries = await gw.get(DELIVERIES, { key: partner.key, query: { limit: 100 } });
    expect(deliveries.status, deliveries.text).toBe(200);
    const oldest = (deliveries.body.data.deliveries as JsonBody[]).filter((d) => d.event_type === 'stock.level_changed' && d.status === 'succeeded').at(-1);
    expect(oldest, 'a delivered stock.level_changed to redeliver').toBeDefined();
    const arrivalsBefore = receiver.arrivals.length;
    const redelivered = await gw.post(REDELIVER.replace('{id}', String(oldest!.id)), {}, { key: partner.key, template: REDELIVER });
    expect([200, 201, 202]).toContain(redelivered.status);
    // Its own arrival, accepted: not just any arrival (a retry of another event can come meanwhile).
    const staleArrival = await pollUntil(
      `the redelivery of event ${oldest!.event_id} accepted`,
      20_000,
      () => receiver.arrivals.slice(arrivalsBefore).find((a) => a.id === oldest!.event_id && a.outcome === 200),
      25,
    );
    expect(JSON.parse(staleArrival.body).event_id).toBe(oldest!.event_id);

    // Apply in arrival order, keeping a row only when its version is newer.
    const applied = new Map<string, LevelEvent>();
    let dropped = 0;
    for (const event of levelEvents()) {
      const held = applied.get(event.key);
      if (held !== undefined && held.version >= event.version) {
        dropped += 1;
        continue;
      }
      applied.set(event.key, event);
    }
    expect(dropped, 'stale deliveries arrived and were dropped').toBeGreaterThan(0);
    expect(applied.size).toBe(truth.size);
    for (const [key, row] of truth) {
      const event = applied.get(key);
      expect(event, key).toBeDefined();
      const { good, damaged, reserved, reserved_for_transfers, reserved_for_orders, available, version } = event!.data;
      expect({ good, damaged, reserved, reserved_for_transfers, reserved_for_orders, available, version }, key).toEqual({
        good: row.good,
        damaged: row.damaged,
        reserved: row.reserved,
        reserved_for_transfers: row.reserved_for_transfers,
        reserved_for_orders: row.reserved_for_orders,
        available: row.available,
        version: row.version,
      });
    }

    // Per row, each version belongs to exactly one event, and versions follow the order of the changes.
    const byRow = new Map<string, Map<number, string>>();
    for (const e of levelEvents()) {
      const versions = byRow.get(e.key) ?? new Map<number, string>();
      expect(versions.get(e.version) ?? e.eventId, `${e.key} v${e.version} is one event`).toBe(e.eventId);
      versions.set(e.version, e.eventId);
      byRow.set(e.key, versions);
    }
    // Every change of a row raised its version by one, and each change was announced: 1, 2, … n.
    for (const [key, versions] of byRow) {
      const sorted = [...versions.keys()].sort((a, b) => a - b);
      expect(sorted, `${key}: one event per change, versions 1..n`).toEqual(sorted.map((_, i) => i + 1));
      expect(sorted.at(-1), `${key}: the last version is the row's`).toBe(truth.get(key)!.version);
    }
    const consumeEvents = levelEvents().filter((e) => e.data.cause.type === 'reservation' && e.data.cause.id === holdIds[0]);
    expect(new Set(consumeEvents.map((e) => e.eventId)).size, 'the hold and its consume: two rows each').toBe(4);
    console.log(`[${dialect}] stock.level_changed: ${levelEvents().length} accepted deliveries, ${refusedOnce.size} refused once and retried, ${dropped} stale dropped`);
  });

  it('every delivery, retries included, is what the webhooks section of /openapi.json publishes for its type', async () => {
    const contract = await liveContract(stack.gateway.url);
    expect(receiver.arrivals.length).toBeGreaterThan(0);
    const types = new Set<unknown>();
    for (const arrival of receiver.arrivals) {
      const payload = expectWebhookContract(contract, { body: arrival.body, headers: { 'x-webhook-id': arrival.id, 'x-webhook-timestamp': arrival.timestamp, 'x-webhook-signature': arrival.signature } });
      types.add(payload.type);
    }
    expect(types).toEqual(new Set(['stock.level_changed', 'reservation.status_changed']));
  });
});
