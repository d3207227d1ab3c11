// Order holds under kill -9 (docs/holds.md, docs/idempotency.md#crash-safety): holds are created,
// consumed, released, extended and left to expire while the gateway and the delivery worker are
// killed at random moments and replaced. Every call is sent with an Idempotency-Key and retried
// with it until answered, as a careful partner does. Afterwards every acknowledged hold is in the
// state its last acknowledged call left it (or expired, when its time ran out), no order is held
// twice, and the internal API's stock.verify finds nothing wrong. Half the products are
// lot-tracked (docs/lots.md#holds-and-transfers), each with a short-dated lot that no hold may take,
// small lots that run out one after another and a large one behind them, so lines also split
// across lots; their lots must add up to their rows, and their reserved units to the allocations
// of the holds, after the kills.
//
// The run's seed is printed; CRASH_SEED=<seed> replays the same plan: each order's lines, fate and
// following pause come from a generator seeded by (seed, order index), and the killer's pauses and
// choices from one of its own, so neither depends on which client drew first. How the kills fall
// among the calls still depends on timing, as under any real crash.
import { type Database, createDatabase, parseDatabaseUrl, withTransaction } from '@pits/persistence';
import { ageReservation } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from '../harness/e2e-database.js';
import { showOutputOnFailure } from '../harness/failure-output.js';
import { gatewayClient } from '../harness/gateway-client.js';
import { createProducts, recordOpening } from '../harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from '../harness/ledger-check.js';
import { type Allocation, type LotPlan, createLotTrackedProduct, lotsAt, serviceToday, stockLots } from '../harness/lot-fixtures.js';
import { type OnboardedPartner, onboardPartner } from '../harness/partner-onboarding.js';
import { pollUntil } from '../harness/poll-until.js';
import { type ServiceStack, startStack } from '../harness/service-stack.js';
import { type WebhookReceiver, startWebhookReceiver } from '../harness/webhook-receiver.js';
import { type WorkerProcess, startWorkerProcess } from '../harness/webhook-worker-process.js';
import { type GatewayRotation, gatewayRotation } from './gateway-rotation.js';
import { type KeyedOutcome, sendKeyed } from './keyed-request.js';
import { crashSeed, seededRandom, streamSeed } from './seeded-random.js';

const dialects = await e2eDialects();
const seed = crashSeed();
console.log(`[hold-crash] seed ${seed} (replay with CRASH_SEED=${seed})`);

const RESERVATIONS = '/api/partner/v1/reservations';
const ALLOW_PRIVATE = { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' };
const GATEWAY_ENV = { IDEMPOTENCY_CLAIM_LEASE_MS: '3000', REQUEST_DEADLINE_MS: '2000', RESERVATION_SWEEP_INTERVAL_MS: '1000', ...ALLOW_PRIVATE };
const WORKER_ENV = { WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_LEASE_MS: '3000', ...ALLOW_PRIVATE };
const ORDERS = 60;
/** Orders stop coming after this long even if a kill is still under way (the killer then finishes alone). */
const ORDER_WINDOW_MS = 180_000;
const GATEWAY_KILLS = 4;
const WORKER_KILLS = 2;
/**
 * The lots of each lot-tracked product: SHORT is short-dated (10 days left, 30 required); six
 * small lots a week apart are taken first and run out one after the other, so lines of 2 or 3
 * often straddle two lots; LATE is behind them all.
 */
const OUTBOUND_EXPIRED = 30;
const SHORT_LOT = 'SHORT';
const LOTS: LotPlan[] = [
  { lotNumber: SHORT_LOT, good: 50, daysLeft: 10 },
  ...Array.from({ length: 6 }, (_, i) => ({ lotNumber: `WEEK-${i + 1}`, good: 5, daysLeft: 40 + 7 * i })),
  { lotNumber: 'LATE', good: 1000, daysLeft: 200 },
];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Fate = 'consume' | 'consume-part' | 'release' | 'expire' | 'extend-release';
const FATES: Fate[] = ['consume', 'consume-part', 'release', 'expire', 'extend-release'];
const FINAL: Record<Fate, string> = { consume: 'consumed', 'consume-part': 'consumed', release: 'released', expire: 'expired', 'extend-release': 'released' };

interface Order {
  index: number;
  fate: Fate;
  lines: { productId: number; quantity: number }[];
  id?: string;
  /** Each line's allocations as the create answered them ([] for a product without lots). */
  allocations?: Allocation[][];
  /** Every call's answer, in order. */
  answers: { call: string; status: number; replayed: boolean }[];
  /** Sends that found the gateway gone or unready before an answer came. */
  retries: number;
}

describe.each(dialects)('[%s] order holds under kill -9 of the gateway and the worker', (dialect) => {
  let stack: ServiceStack | undefined;
  let rotation: GatewayRotation | undefined;
  let partner: OnboardedPartner;
  let tenant: string;
  let location: number;
  let productIds: number[];
  /** The lot-tracked half of productIds. */
  let lotProductIds: number[];
  let db: Database;
  let receiver: WebhookReceiver;
  let worker: WorkerProcess | undefined;
  const workers: WorkerProcess[] = [];

  showOutputOnFailure(() => [...(rotation?.all() ?? [stack?.gateway]), stack?.internalApi], 40);

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: GATEWAY_ENV });
    const gw = gatewayClient(stack.gateway.url);
    partner = await onboardPartner(stack.internal, gw, { label: 'HoldCrash', tier: 'large', locations: 1 });
    tenant = partner.tenants[0]!.id;
    location = partner.tenants[0]!.locationIds[0]!;
    db = createDatabase(parseDatabaseUrl(stack.database.url));
    const today = await serviceToday(db);
    const products = await createProducts(stack.internal, tenant, 2, 'HCRASH');
    for (const p of products) await recordOpening(stack.internal, tenant, location, p.id, { good: '1000' }, `HOPEN-${p.id}`);
    lotProductIds = [];
    for (const sku of ['HCRASH-LOT-1', 'HCRASH-LOT-2']) {
      const product = await createLotTrackedProduct(stack.internal, tenant, sku, OUTBOUND_EXPIRED);
      await stockLots(stack.internal, tenant, location, product.id, today, LOTS, `HOPEN-${product.id}`);
      lotProductIds.push(product.id);
    }
    productIds = [...products.map((p) => p.id), ...lotProductIds];
    receiver = await startWebhookReceiver('hold-crash');
    const registered = await gw.post('/api/partner/v1/webhooks', { url: receiver.url, event_types: ['stock.level_changed', 'reservation.status_changed'] }, { key: partner.key });
    expect(registered.status, registered.text).toBe(201);
    worker = await startWorkerProcess({ databaseUrl: stack.database.url, credentialsKey: stack.credentialsKey, name: 'worker-0', env: WORKER_ENV });
    workers.push(worker);
  });

  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop(5000)));
    await receiver?.close();
    await db?.destroy();
    await stopAfterLedgerCheck(stack);
  });

  /** Sends one keyed call to whichever gateway runs now, again and again with its key, until it is answered. */
  async function untilAnswered(order: Order, call: string, method: 'POST', path: string, template: string, key: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    for (let attempt = 0; attempt < 200; attempt += 1) {
      const gateway = await rotation!.current();
      const outcome: KeyedOutcome = await sendKeyed(gateway.url, { method, path, template, apiKey: partner.key, tenant, idempotencyKey: key, body }, 10_000);
      if (outcome.kind === 'answered') {
        order.answers.push({ call, status: outcome.res.status, replayed: outcome.replayed });
        return { status: outcome.res.status, body: outcome.res.body };
      }
      order.retries += 1;
      await sleep(outcome.kind === 'later' && outcome.reason === 'in_progress' ? 300 : 150);
    }
    throw new Error(`order ${order.index}: ${call} never answered`);
  }

  async function run(order: Order): Promise<void> {
    const created = await untilAnswered(order, 'create', 'POST', RESERVATIONS, RESERVATIONS, `hc-${seed}-${order.index}-create`, {
      location_id: location,
      reference: `HC-${seed}-${order.index}`,
      expires_in: 600,
      items: order.lines.map((l) => ({ product_id: String(l.productId), quantity: l.quantity })),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const { reservation } = created.body.data as { reservation: { id: string; items: { allocations: Allocation[] }[] } };
    const id = reservation.id;
    order.id = id;
    order.allocations = reservation.items.map((i) => i.allocations);
    const action = (name: 'consume' | 'release' | 'extend', body: unknown) =>
      untilAnswered(order, name, 'POST', `${RESERVATIONS}/${id}/${name}`, `${RESERVATIONS}/{id}/${name}`, `hc-${seed}-${order.index}-${name}`, body);
    switch (order.fate) {
      case 'consume':
        expect((await action('consume', {})).status).toBe(200);
        break;
      case 'consume-part':
        expect((await action('consume', { items: [{ product_id: String(order.lines[0]!.productId), quantity: 1 }] })).status).toBe(200);
        break;
      case 'release':
        expect((await action('release', { reason: 'cancelled' })).status).toBe(200);
        break;
      case 'extend-release':
        expect((await action('extend', { expires_in: 900 })).status).toBe(200);
        expect((await action('release', {})).status).toBe(200);
        break;
      case 'expire':
        // Its time runs out: the sweep of whichever gateway is running ends it. One write in a
        // transaction, so on SQLite it waits its turn for the write lock as the gateways' writes
        // do, rather than giving up after a lone statement's few milliseconds of busy wait.
        await withTransaction(db, (tx) => ageReservation(tx, tenant, id));
        break;
    }
  }

  it(`at least ${ORDERS} orders held and ended while ${GATEWAY_KILLS} gateways and ${WORKER_KILLS} workers are killed: every hold as its last acknowledged call left it`, async () => {
    // Stream 0 is the killer's; order i draws from stream i + 1 (its plan, then its pause after it).
    const killerDraw = seededRandom(streamSeed(seed, 0));
    const plan = (index: number): { order: Order; pauseMs: number } => {
      const draw = seededRandom(streamSeed(seed, index + 1));
      const first = draw.pick(productIds);
      const second = draw.pick(productIds.filter((p) => p !== first));
      const lines = draw.next() < 0.5 ? [{ productId: first, quantity: 1 + Math.floor(draw.next() * 3) }] : [{ productId: first, quantity: 2 }, { productId: second, quantity: 1 }];
      const fate = draw.pick(FATES);
      return { order: { index, fate, lines, answers: [], retries: 0 }, pauseMs: draw.next() * 100 };
    };
    const orders: Order[] = [];
    const live = stack!;
    rotation = await gatewayRotation(live.gateway, () => live.startGateway({ env: GATEWAY_ENV }));

    // The killer does all its kills whatever the orders do: how fast orders go must not decide how
    // many processes die (a fast machine once ended the orders, and with them the kills, early).
    const killer = (async () => {
      let gatewayKills = 0;
      let workerKills = 0;
      while (gatewayKills < GATEWAY_KILLS || workerKills < WORKER_KILLS) {
        await sleep(400 + killerDraw.next() * 1200);
        if (workerKills < WORKER_KILLS && (gatewayKills >= GATEWAY_KILLS || killerDraw.next() < 0.35)) {
          workerKills += 1;
          await worker!.kill('SIGKILL');
          worker = await startWorkerProcess({ databaseUrl: live.database.url, credentialsKey: live.credentialsKey, name: `worker-${workerKills}`, env: WORKER_ENV });
          workers.push(worker);
        } else {
          gatewayKills += 1;
          await rotation!.replace('SIGKILL');
        }
      }
      return { gatewayKills, workerKills };
    })();

    // Orders keep coming until every kill has happened and at least ORDERS were placed, for at most
    // ORDER_WINDOW_MS; each client pauses between orders, which bounds their count too.
    let killsDone = false;
    void killer.then(() => (killsDone = true));
    const closesAt = Date.now() + ORDER_WINDOW_MS;
    await Promise.all(
      Array.from({ length: 6 }, async () => {
        while ((!killsDone || orders.length < ORDERS) && Date.now() < closesAt) {
          const { order, pauseMs } = plan(orders.length);
          orders.push(order);
          await run(order);
          await sleep(pauseMs);
        }
      }),
    );
    const kills = await killer;
    expect(orders.length, `orders placed within ${ORDER_WINDOW_MS} ms`).toBeGreaterThanOrEqual(ORDERS);

    // The holds left to expire end by the sweep of the running gateway.
    const expiring = orders.filter((o) => o.fate === 'expire').map((o) => o.id!);
    if (expiring.length > 0) {
      await pollUntil('every expiring hold swept', 30_000, async () => {
        const rows = await db.db.selectFrom('reservations').select('status').where('tenant_id', '=', tenant).where('number', 'in', expiring).execute();
        return rows.every((r) => r.status === 'expired') ? true : undefined;
      }, 200);
    }

    const stored = await db.db.selectFrom('reservations').select(['number', 'reference', 'status']).where('tenant_id', '=', tenant).execute();
    const byReference = new Map<string, typeof stored>();
    for (const row of stored) byReference.set(row.reference, [...(byReference.get(row.reference) ?? []), row]);
    const doubled = [...byReference.values()].filter((rows) => rows.length > 1).map((rows) => rows[0]!.reference);
    const lost = orders.filter((o) => (byReference.get(`HC-${seed}-${o.index}`)?.length ?? 0) === 0).map((o) => o.index);
    const wrongState = orders
      .map((o) => ({ o, row: byReference.get(`HC-${seed}-${o.index}`)?.[0] }))
      .filter(({ o, row }) => row === undefined || row.number !== o.id || row.status !== FINAL[o.fate])
      .map(({ o, row }) => `order ${o.index} (${o.fate}): ${row?.number ?? 'none'} ${row?.status ?? ''}, answered ${o.id}`);

    // Each hold's stock moved exactly once each way: held once per line and lot it took (a line of
    // a product without lots is one), given back or taken once per line and lot, netting to zero in each lot.
    const ledger = await db.db.selectFrom('stock_ledger').select(['cause_id', 'bucket', 'delta', 'lot_number']).where('tenant_id', '=', tenant).where('cause_type', '=', 'reservation').execute();
    const movedTwice = orders
      .filter((o) => {
        const rows = ledger.filter((r) => r.cause_id === o.id);
        const reserved = rows.filter((r) => r.bucket === 'reserved');
        const good = rows.filter((r) => r.bucket === 'good');
        const moves = o.allocations!.reduce((sum, allocations) => sum + Math.max(1, allocations.length), 0);
        const expectedGood = o.fate === 'consume' ? moves : o.fate === 'consume-part' ? 1 : 0;
        const net = new Map<string, number>();
        for (const r of reserved) net.set(r.lot_number ?? '', (net.get(r.lot_number ?? '') ?? 0) + Number(r.delta));
        return reserved.length !== moves * 2 || good.length !== expectedGood || [...net.values()].some((delta) => delta !== 0);
      })
      .map((o) => `order ${o.index} (${o.fate}) ${o.id}`);
    // No hold took a unit of a short-dated lot: not in what the creates answered, not in the ledger.
    const shortTaken = [
      ...orders.filter((o) => o.allocations!.flat().some((a) => a.lot_number === SHORT_LOT)).map((o) => `order ${o.index} answered ${SHORT_LOT}`),
      ...ledger.filter((r) => r.lot_number === SHORT_LOT).map((r) => `ledger ${r.cause_id} ${r.bucket} ${r.delta}`),
    ];
    const split = orders.filter((o) => o.allocations!.some((allocations) => allocations.length > 1)).length;

    const calls = orders.flatMap((o) => o.answers);
    const table = {
      dialect,
      seed,
      orders: orders.length,
      gateway_kills: kills.gatewayKills,
      worker_kills: kills.workerKills,
      requests_answered: calls.length,
      retried_sends: orders.reduce((sum, o) => sum + o.retries, 0),
      successes: calls.filter((c) => c.status < 300).length,
      replayed: calls.filter((c) => c.replayed).length,
      refusals: calls.filter((c) => c.status >= 400).length,
      holds_lost: lost.length,
      holds_doubled: doubled.length,
      stock_moved_twice: movedTwice.length,
      lines_split_across_lots: split,
      short_dated_taken: shortTaken.length,
    };
    console.log(`[hold-crash] ${JSON.stringify(table)}`);
    expect(kills.gatewayKills).toBe(GATEWAY_KILLS);
    expect({ lost, doubled, wrongState, movedTwice, shortTaken }).toEqual({ lost: [], doubled: [], wrongState: [], movedTwice: [], shortTaken: [] });
    expect(table.refusals, 'no call was refused: each was valid when sent').toBe(0);
    expect(await stack!.internal.stock.verify.query({ tenantId: tenant }), 'stock.verify, lot checks included').toEqual([]);
    // Every hold ended: no lot keeps a reserved unit, and the short-dated lot is as it was seeded.
    const gw = gatewayClient((await rotation!.current()).url);
    for (const productId of lotProductIds) {
      const lots = await lotsAt(gw, { key: partner.key, tenant }, location, productId);
      expect([...lots.values()].filter((l) => l.reserved !== 0).map((l) => l.lotNumber), `product ${productId}: nothing reserved once every hold ended`).toEqual([]);
      expect(lots.get(SHORT_LOT)).toMatchObject({ good: 50, reserved: 0, sellable: false });
    }
  });
});
