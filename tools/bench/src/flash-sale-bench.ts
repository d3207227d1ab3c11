// npm run bench:flash-sale — order holds under a flash sale (docs/holds.md), against the built
// processes: two gateways (apps/gateway/dist/main.js, sweeping at their default
// RESERVATION_SWEEP_INTERVAL_MS) and the internal API (apps/internal-api/dist/main.js) on one
// database, SQLite (a temp file) and PostgreSQL (a throwaway database with a random name, created
// and dropped; skipped when the server is unreachable). Every hold is created through the partner
// API, spread over both gateways. Scenarios, each printing a table:
//   1. burst expiry: many merchants, one 60 s hold each, created at once;
//   2. steady expiry: holds created at a steady rate over many merchants, lateness per window of
//      expiry time;
//   3. throughput: one-unit holds created then released or consumed, by a fixed number of clients
//      for a fixed time, on (a) one merchant's own SKUs, (b) as many merchants, (c) one hot SKU;
//   4. last units: concurrent one-unit holds for a product with fewer units than requests.
// Throughout, one loop calls the internal API's `stock.verify` back to back (one call at a time,
// a pause between) and counts calls and calls that listed a discrepancy.
//
// How expiry is measured: from the outside, as a partner would see it. After a hold's expires_at
// (the create response's, the database's clock; the bench, the gateways and PostgreSQL share this
// machine's clock), its merchant's stock is polled with GET /api/partner/v1/stock until the held
// product's `available` is back to what it was before the hold (each hold has a product of its
// own, so nothing else moves it). Lateness = the moment the answer that first showed it back
// arrived - expires_at: an upper bound, late by at most the poll's resolution, printed beside it
// (from the last poll that still saw it held, or from expires_at, to the one that saw it back).
// The polls are paced (POLLS_PER_SECOND over both gateways, each merchant at most once a
// second, only merchants with a hold past its expiry and not yet back), so the watch costs little
// beside the sweep it measures. Status reads would not do: a hold past its expiry reads `expired`
// at once, before its stock comes back.
//
//   npm run bench:flash-sale -- [--db sqlite|postgres|both] [--quick]
// Environment: BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/postgres, where
// pits_flash_sale_<pid>_<random hex> is created and dropped). Exit 1 when a target is missed.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, createApiKey, createDatabase, createLocation, createPartner, createProduct, createTenant, migrateOrThrow, recordOpeningStock } from '@pits/persistence';
import { connectTenant } from '@pits/persistence/testing';
import { type Child, createPostgresDatabase, dropPostgresDatabase, postgresReachable, startGateway, startInternalApi } from './bench-harness.js';
import {
  BURST_MAX_TARGET_MS,
  type FlashSaleDialect,
  type FlashSaleSizes,
  type LastUnitCounts,
  type LatenessSummary,
  type SummaryRow,
  type WatchedHold,
  expiryMisses,
  lastUnitMisses,
  latenessByWindow,
  type FlashSaleScenario,
  parseFlashSaleArgs,
  ratioOf,
  secondsText,
  summarizeLateness,
  summaryTable,
  throughputMisses,
} from './flash-sale-model.js';
import { percentile } from './latency-stats.js';

const options = parseFlashSaleArgs(process.argv.slice(2));
const sizes = options.sizes;
const pgAdminUrl = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CREDENTIALS_KEY = 'f'.repeat(64);
const INTERNAL_API_TOKEN = `bench-flash-sale-${randomBytes(16).toString('hex')}`;
/** The shortest hold the API accepts, and the one the issue measures. */
const EXPIRES_IN_SECONDS = 60;
/** Good stock of each product an expiry hold takes one unit of. */
const EXPIRY_OPENING = 10;
/** Good stock of each throughput product: more than any run consumes. */
const THROUGHPUT_OPENING = 1_000_000;
const POLLS_PER_SECOND = 100;
const POLL_MIN_GAP_MS = 1000;
const POLLS_IN_FLIGHT = 8;
/** Creates in flight at once in the expiry scenarios. */
const CREATES_IN_FLIGHT = 64;
const VERIFY_PAUSE_MS = 250;
/** The verify loop's own bound, whatever happens to the scenarios. */
const VERIFY_MAX_CALLS = 20_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pad = (value: string | number, width: number) => String(value).padStart(width);

// ---------------------------------------------------------------------------------------------
// The partner API, as plain HTTP against the gateways.

interface Merchant {
  tenantId: string;
  locationId: number;
  productIds: number[];
}

interface Answer {
  status: number;
  body: unknown;
}

class PartnerApi {
  constructor(
    readonly gateways: readonly string[],
    private readonly apiKey: string,
  ) {}

  /** `path` on gateway `via` mod the number of gateways, for `tenantId`; a failed connection is status 0. */
  async call(via: number, method: 'GET' | 'POST', path: string, tenantId: string, body?: unknown): Promise<Answer> {
    const base = this.gateways[via % this.gateways.length]!;
    try {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.apiKey}`, 'x-tenant-id': tenantId, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(30_000),
      });
      const text = await res.text();
      return { status: res.status, body: text ? (JSON.parse(text) as unknown) : null };
    } catch (error) {
      return { status: 0, body: error instanceof Error ? error.message : String(error) };
    }
  }

  /** A one-unit hold (or `quantity`) of `productId`; its number and expiry when created. */
  async hold(via: number, merchant: Merchant, productId: number, reference: string, expiresIn: number): Promise<Answer & { id?: string; expiresAtMs?: number }> {
    const answer = await this.call(via, 'POST', '/api/partner/v1/reservations', merchant.tenantId, {
      location_id: merchant.locationId,
      reference,
      expires_in: expiresIn,
      items: [{ product_id: String(productId), quantity: 1 }],
    });
    if (answer.status !== 201) return answer;
    const reservation = (answer.body as { data: { reservation: { id: string; expires_at: string } } }).data.reservation;
    return { ...answer, id: reservation.id, expiresAtMs: Date.parse(reservation.expires_at) };
  }

  /** `available` by product id at the merchant's location, or null when the read failed. */
  async available(via: number, merchant: Merchant): Promise<Map<number, number> | null> {
    const answer = await this.call(via, 'GET', `/api/partner/v1/stock?location_id=${merchant.locationId}&per_page=100`, merchant.tenantId);
    if (answer.status !== 200) return null;
    const rows = (answer.body as { data: { stock: { product_id: string; available: number }[] } }).data.stock;
    return new Map(rows.map((r) => [Number(r.product_id), r.available]));
  }
}

/** `status` or `status CODE` of an answer that was not what was hoped for, to count by. */
function outcome(answer: Answer): string {
  if (answer.status === 0) return `no answer (${String(answer.body)})`;
  const error = (answer.body as { error?: { code?: string; message?: string } } | null)?.error;
  // A server error is counted by what it said: there are few, and each needs explaining.
  if (answer.status >= 500 && error?.message) return `${answer.status} ${error.code ?? ''}: ${error.message}`;
  return error?.code ? `${answer.status} ${error.code}` : String(answer.status);
}

const countInto = (counts: Record<string, number>, key: string) => void (counts[key] = (counts[key] ?? 0) + 1);

/** Runs `work` over `items` with at most `limit` at a time. */
async function inPool<T>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        await work(items[index]!, index);
      }
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// The stock.verify loop.

interface VerifyCounts {
  calls: number;
  findings: number;
  failed: number;
}

/** Calls `stock.verify` of the internal API one at a time until stopped; counts calls, calls with a discrepancy, failed calls. */
class VerifyLoop {
  private counts: VerifyCounts = { calls: 0, findings: 0, failed: 0 };
  private stopped = false;
  private done: Promise<void> = Promise.resolve();
  firstFinding: string | null = null;

  constructor(private readonly url: string) {}

  start(): void {
    this.done = (async () => {
      while (!this.stopped && this.counts.calls < VERIFY_MAX_CALLS) {
        const found = await verifyOnce(this.url);
        this.counts.calls += 1;
        if (found === null) this.counts.failed += 1;
        else if (found.length > 0) {
          this.counts.findings += 1;
          this.firstFinding ??= JSON.stringify(found.slice(0, 3));
        }
        await sleep(VERIFY_PAUSE_MS);
      }
    })();
  }

  snapshot(): VerifyCounts {
    return { ...this.counts };
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.done;
  }
}

const verifySince = (before: VerifyCounts, after: VerifyCounts): VerifyCounts => ({
  calls: after.calls - before.calls,
  findings: after.findings - before.findings,
  failed: after.failed - before.failed,
});

/** The discrepancies `stock.verify` lists over every tenant, or null when the call failed. */
async function verifyOnce(url: string): Promise<unknown[] | null> {
  try {
    const res = await fetch(`${url}/trpc/stock.verify`, { headers: { authorization: `Bearer ${INTERNAL_API_TOKEN}` }, signal: AbortSignal.timeout(60_000) });
    const body = (await res.json()) as { result?: { data?: unknown } };
    return res.status === 200 && Array.isArray(body.result?.data) ? body.result.data : null;
  } catch {
    return null;
  }
}

// ---------------------------------------------------------------------------------------------
// Watching stock come back after expiry.

interface Watched extends WatchedHold {
  merchant: Merchant;
  productId: number;
  /** When a poll last saw the stock still held (its send time). */
  heldSeenAtMs: number | null;
}

/**
 * Polls the stock of merchants with a hold past its expiry whose stock is not back yet, paced
 * (POLLS_PER_SECOND in all, each merchant at most once per POLL_MIN_GAP_MS), until every hold
 * added is back, or `maxWaitMs` after the last expiry once no more are coming.
 */
class StockWatch {
  private readonly byTenant = new Map<string, { merchant: Merchant; holds: Watched[]; polledAtMs: number }>();
  readonly holds: Watched[] = [];
  polls = 0;
  failedPolls = 0;
  private adding = true;

  constructor(
    private readonly api: PartnerApi,
    private readonly maxWaitMs: number,
  ) {}

  add(merchant: Merchant, productId: number, expiresAtMs: number): void {
    const hold: Watched = { merchant, productId, expiresAtMs, backAtMs: null, heldSeenAtMs: null };
    this.holds.push(hold);
    const entry = this.byTenant.get(merchant.tenantId) ?? { merchant, holds: [], polledAtMs: 0 };
    entry.holds.push(hold);
    this.byTenant.set(merchant.tenantId, entry);
  }

  /** No more holds will be added: the watch may end once all are back. */
  noMore(): void {
    this.adding = false;
  }

  /** Runs until every hold is back or the wait is over; `hardDeadlineMs` bounds it whatever happens. */
  async run(hardDeadlineMs: number): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    let nextPollMs = Date.now();
    for (;;) {
      const now = Date.now();
      const pending = this.holds.filter((h) => h.backAtMs === null);
      if (!this.adding) {
        const lastExpiry = Math.max(0, ...this.holds.map((h) => h.expiresAtMs));
        if (pending.length === 0 || now > lastExpiry + this.maxWaitMs) break;
      }
      if (now > hardDeadlineMs) break;
      const tenant = inFlight.size < POLLS_IN_FLIGHT && now >= nextPollMs ? this.nextTenant(now) : undefined;
      if (!tenant) {
        await sleep(20);
        continue;
      }
      tenant.polledAtMs = now;
      nextPollMs = Math.max(nextPollMs, now) + 1000 / POLLS_PER_SECOND;
      const poll = this.poll(tenant).finally(() => inFlight.delete(poll));
      inFlight.add(poll);
    }
    await Promise.all(inFlight);
  }

  /** The merchant with a hold due and not back that was polled longest ago, if one may be polled now. */
  private nextTenant(now: number) {
    let best: { merchant: Merchant; holds: Watched[]; polledAtMs: number } | undefined;
    for (const entry of this.byTenant.values()) {
      if (now - entry.polledAtMs < POLL_MIN_GAP_MS) continue;
      if (!entry.holds.some((h) => h.backAtMs === null && h.expiresAtMs <= now)) continue;
      if (!best || entry.polledAtMs < best.polledAtMs) best = entry;
    }
    return best;
  }

  private async poll(entry: { merchant: Merchant; holds: Watched[] }): Promise<void> {
    const sentMs = Date.now();
    const available = await this.api.available(this.polls++, entry.merchant);
    const answeredMs = Date.now();
    if (!available) {
      this.failedPolls += 1;
      return;
    }
    for (const hold of entry.holds) {
      if (hold.backAtMs !== null || hold.expiresAtMs > sentMs) continue;
      if ((available.get(hold.productId) ?? Number.NaN) >= EXPIRY_OPENING) hold.backAtMs = answeredMs;
      else hold.heldSeenAtMs = sentMs;
    }
  }

  /** Per hold seen back: how long before its answer the stock could have come back (from the last poll that saw it held, or its expiry). */
  resolutionMs(): number[] {
    return this.holds
      .flatMap((h) => (h.backAtMs === null ? [] : [h.backAtMs - Math.max(h.expiresAtMs, h.heldSeenAtMs ?? h.expiresAtMs)]))
      .sort((a, b) => a - b);
  }
}

// ---------------------------------------------------------------------------------------------
// Seeding: one partner connected to every merchant, written through @pits/persistence.

interface World {
  apiKey: string;
  /** Merchants of the expiry scenarios: product 0 for the burst, the rest for the steady holds. */
  expiry: Merchant[];
  /** One merchant with `throughputSkus` products (throughput cases a and c). */
  skus: Merchant;
  /** `throughputSkus` merchants with one product each (throughput case b). */
  many: Merchant[];
  /** One merchant with one product of `lastUnitStock` units. */
  last: Merchant;
}

const steadyHolds = (s: FlashSaleSizes) => s.steadyPerSecond * s.steadySeconds;
const steadyProductsPerMerchant = (s: FlashSaleSizes) => Math.ceil(steadyHolds(s) / s.steadyMerchants);

async function seedMerchant(database: Database, partnerId: number, name: string, products: number, opening: number): Promise<Merchant> {
  const now = new Date();
  const tenant = await createTenant(database, { name }, now);
  await connectTenant(database, { partnerId, tenantId: tenant.id }, now);
  const location = await createLocation(database, tenant.id, { code: 'WH-1', name: `${name} Warehouse`, address: 'Jl. Flash Sale 1' }, 'bench', now);
  const productIds: number[] = [];
  for (let i = 0; i < products; i += 1) {
    const product = await createProduct(database, tenant.id, { sku: `FS-${String(i).padStart(3, '0')}`, name: `${name} product ${i}`, costPrice: '1.00', publishedPrice: '2.00' }, 'bench', now);
    await recordOpeningStock(database, { tenantId: tenant.id, locationId: location.id, productId: product.id, good: String(opening), actor: 'bench', reference: 'bench-opening' }, now);
    productIds.push(product.id);
  }
  return { tenantId: tenant.id, locationId: location.id, productIds };
}

async function seedWorld(database: Database): Promise<World> {
  const now = new Date();
  const partner = await createPartner(database, { name: 'Flash Sale Partner', email: 'flash@partner.example', tier: 'large' }, now);
  const { secret } = await createApiKey(database, partner.id, { environment: 'test', label: 'bench' }, now);
  const expiryMerchants = Math.max(sizes.burstMerchants, sizes.steadyMerchants);
  const expiry: Merchant[] = new Array<Merchant>(expiryMerchants);
  await inPool([...Array(expiryMerchants).keys()], 8, async (i) => {
    expiry[i] = await seedMerchant(database, partner.id, `Expiry Merchant ${i}`, 1 + steadyProductsPerMerchant(sizes), EXPIRY_OPENING);
  });
  const skus = await seedMerchant(database, partner.id, 'SKU Merchant', sizes.throughputSkus, THROUGHPUT_OPENING);
  const many: Merchant[] = [];
  for (let i = 0; i < sizes.throughputSkus; i += 1) many.push(await seedMerchant(database, partner.id, `Spread Merchant ${i}`, 1, THROUGHPUT_OPENING));
  const last = await seedMerchant(database, partner.id, 'Last Units Merchant', 1, sizes.lastUnitStock);
  return { apiKey: secret, expiry, skus, many, last };
}

// ---------------------------------------------------------------------------------------------
// The scenarios.

interface ExpiryResult {
  summary: LatenessSummary;
  holds: Watched[];
  createFailures: Record<string, number>;
  createSeconds: number;
  resolutionMs: number[];
  polls: number;
  failedPolls: number;
  verify: VerifyCounts;
}

async function burstExpiry(api: PartnerApi, world: World, verify: VerifyLoop): Promise<ExpiryResult> {
  const before = verify.snapshot();
  const watch = new StockWatch(api, sizes.maxWaitSeconds * 1000);
  const createFailures: Record<string, number> = {};
  const merchants = world.expiry.slice(0, sizes.burstMerchants);
  const started = performance.now();
  await inPool(merchants, CREATES_IN_FLIGHT, async (merchant, i) => {
    const created = await api.hold(i, merchant, merchant.productIds[0]!, `burst-${i}`, EXPIRES_IN_SECONDS);
    if (created.expiresAtMs === undefined) countInto(createFailures, outcome(created));
    else watch.add(merchant, merchant.productIds[0]!, created.expiresAtMs);
  });
  const createSeconds = (performance.now() - started) / 1000;
  watch.noMore();
  await watch.run(Date.now() + (EXPIRES_IN_SECONDS + sizes.maxWaitSeconds + 30) * 1000);
  return { summary: summarizeLateness(watch.holds), holds: watch.holds, createFailures, createSeconds, resolutionMs: watch.resolutionMs(), polls: watch.polls, failedPolls: watch.failedPolls, verify: verifySince(before, verify.snapshot()) };
}

async function steadyExpiry(api: PartnerApi, world: World, verify: VerifyLoop): Promise<ExpiryResult> {
  const before = verify.snapshot();
  const watch = new StockWatch(api, sizes.maxWaitSeconds * 1000);
  const createFailures: Record<string, number> = {};
  const merchants = world.expiry.slice(0, sizes.steadyMerchants);
  const total = steadyHolds(sizes);
  const watching = watch.run(Date.now() + (sizes.steadySeconds + EXPIRES_IN_SECONDS + sizes.maxWaitSeconds + 60) * 1000);
  const started = performance.now();
  const inFlight = new Set<Promise<void>>();
  // Hold k at k / rate seconds, on merchant k mod M and that merchant's product 1 + k div M, so
  // every hold has a product of its own; late when CREATES_IN_FLIGHT are still unanswered.
  for (let k = 0; k < total; k += 1) {
    const wait = started + (k * 1000) / sizes.steadyPerSecond - performance.now();
    if (wait > 0) await sleep(wait);
    while (inFlight.size >= CREATES_IN_FLIGHT) await Promise.race(inFlight);
    const merchant = merchants[k % merchants.length]!;
    const productId = merchant.productIds[1 + Math.floor(k / merchants.length)]!;
    const create = api.hold(k, merchant, productId, `steady-${k}`, EXPIRES_IN_SECONDS).then((created) => {
      if (created.expiresAtMs === undefined) countInto(createFailures, outcome(created));
      else watch.add(merchant, productId, created.expiresAtMs);
    });
    const tracked = create.finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
  }
  await Promise.all(inFlight);
  const createSeconds = (performance.now() - started) / 1000;
  watch.noMore();
  await watching;
  return { summary: summarizeLateness(watch.holds), holds: watch.holds, createFailures, createSeconds, resolutionMs: watch.resolutionMs(), polls: watch.polls, failedPolls: watch.failedPolls, verify: verifySince(before, verify.snapshot()) };
}

interface ThroughputCase {
  name: string;
  /** The merchant and product client `c` holds. */
  target: (client: number) => { merchant: Merchant; productId: number };
}

interface ThroughputResult {
  name: string;
  holdsPerSecond: number;
  cycles: number;
  /** Answers other than 201 on create and 200 on release/consume, by outcome. */
  other: Record<string, number>;
  /** Milliseconds per create, ascending. */
  createMs: number[];
  verify: VerifyCounts;
}

/** `clients` loops for `seconds`: create a one-unit hold, then release it (even holds) or consume it (odd). */
async function throughput(api: PartnerApi, scenario: ThroughputCase, seconds: number, verify: VerifyLoop): Promise<ThroughputResult> {
  const before = verify.snapshot();
  const other: Record<string, number> = {};
  const createMs: number[] = [];
  let cycles = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: sizes.throughputClients }, async (_, client) => {
      const { merchant, productId } = scenario.target(client);
      for (let n = 0; performance.now() < end; n += 1) {
        const sent = performance.now();
        const created = await api.hold(client, merchant, productId, `tp-${scenario.name}-${client}-${n}`, 900);
        createMs.push(performance.now() - sent);
        if (created.id === undefined) {
          countInto(other, `create ${outcome(created)}`);
          continue;
        }
        const action = n % 2 === 0 ? 'release' : 'consume';
        const ended = await api.call(client, 'POST', `/api/partner/v1/reservations/${created.id}/${action}`, merchant.tenantId, {});
        if (ended.status === 200) cycles += 1;
        else countInto(other, `${action} ${outcome(ended)}`);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { name: scenario.name, holdsPerSecond: cycles / elapsed, cycles, other, createMs: createMs.sort((a, b) => a - b), verify: verifySince(before, verify.snapshot()) };
}

interface LastUnitResult {
  counts: LastUnitCounts;
  availableAfter: number | null;
  verify: VerifyCounts;
}

async function lastUnits(api: PartnerApi, world: World, verify: VerifyLoop): Promise<LastUnitResult> {
  const before = verify.snapshot();
  const counts: LastUnitCounts = { created: 0, insufficient: 0, other: {} };
  const productId = world.last.productIds[0]!;
  await Promise.all(
    Array.from({ length: sizes.lastUnitRequests }, async (_, i) => {
      const answer = await api.hold(i, world.last, productId, `last-${i}`, 900);
      const kind = outcome(answer);
      if (answer.status === 201) counts.created += 1;
      else if (kind === '422 INSUFFICIENT_STOCK') counts.insufficient += 1;
      else countInto(counts.other, kind);
    }),
  );
  const after = await api.available(0, world.last);
  return { counts, availableAfter: after?.get(productId) ?? null, verify: verifySince(before, verify.snapshot()) };
}

// ---------------------------------------------------------------------------------------------
// Printing.

const verifyText = (v: VerifyCounts) => `${pad(v.calls, 6)} ${pad(v.findings, 8)} ${pad(v.failed, 6)}`;
const verifyHeader = `${pad('verify', 6)} ${pad('findings', 8)} ${pad('failed', 6)}`;
const failuresText = (failures: Record<string, number>) => Object.entries(failures).map(([k, n]) => `${k} x${n}`).join(', ') || 'none';
const latenessText = (s: LatenessSummary) => `${pad(s.back, 6)} ${pad(s.neverBack, 6)} ${pad(secondsText(s.p50), 6)} ${pad(secondsText(s.p95), 6)} ${pad(secondsText(s.max), 6)} ${pad(s.over60s, 6)}`;
const latenessHeader = `${pad('back', 6)} ${pad('never', 6)} ${pad('p50 s', 6)} ${pad('p95 s', 6)} ${pad('max s', 6)} ${pad('>60 s', 6)}`;

function printBurst(dialect: FlashSaleDialect, r: ExpiryResult): void {
  console.log(`\n[${dialect}] 1. burst expiry: ${sizes.burstMerchants} merchants, one ${EXPIRES_IN_SECONDS} s hold each, created in ${r.createSeconds.toFixed(1)} s over 2 gateways (create failures: ${failuresText(r.createFailures)})`);
  console.log(`  lateness = first poll answer showing the stock back - expires_at; ${r.polls} polls (${r.failedPolls} failed), resolution p50 ${secondsText(percentile(r.resolutionMs, 50))} s, max ${secondsText(r.resolutionMs.at(-1))} s`);
  console.log(`${pad('holds', 6)} ${latenessHeader} ${verifyHeader}`);
  console.log(`${pad(r.holds.length, 6)} ${latenessText(r.summary)} ${verifyText(r.verify)}`);
}

function printSteady(dialect: FlashSaleDialect, r: ExpiryResult): void {
  console.log(
    `\n[${dialect}] 2. steady expiry: ${steadyHolds(sizes)} holds of ${EXPIRES_IN_SECONDS} s at ${sizes.steadyPerSecond}/s over ${sizes.steadyMerchants} merchants, created in ${r.createSeconds.toFixed(1)} s (create failures: ${failuresText(r.createFailures)})`,
  );
  console.log(`  by window of expiry time from the first expiry; ${r.polls} polls (${r.failedPolls} failed), resolution p50 ${secondsText(percentile(r.resolutionMs, 50))} s, max ${secondsText(r.resolutionMs.at(-1))} s`);
  console.log(`${'window s'.padEnd(10)} ${pad('holds', 6)} ${latenessHeader}`);
  for (const w of latenessByWindow(r.holds, sizes.steadyWindowSeconds)) {
    console.log(`${`${w.fromSeconds}-${w.toSeconds}`.padEnd(10)} ${pad(w.holds, 6)} ${latenessText(w.summary)}`);
  }
  console.log(`${'all'.padEnd(10)} ${pad(r.holds.length, 6)} ${latenessText(r.summary)}   ${verifyHeader.trim()}: ${verifyText(r.verify).trim()}`);
}

function printThroughput(dialect: FlashSaleDialect, rows: readonly ThroughputResult[]): void {
  console.log(`\n[${dialect}] 3. throughput: ${sizes.throughputClients} clients for ${sizes.throughputSeconds} s each, one-unit holds created then released or consumed in turn, over 2 gateways`);
  console.log(`${'case'.padEnd(34)} ${pad('holds/s', 8)} ${pad('holds', 7)} ${pad('p50 ms', 7)} ${pad('p99 ms', 7)} ${verifyHeader}  other answers`);
  for (const r of rows) {
    console.log(`${r.name.padEnd(34)} ${pad(r.holdsPerSecond.toFixed(1), 8)} ${pad(r.cycles, 7)} ${pad(percentile(r.createMs, 50).toFixed(0), 7)} ${pad(percentile(r.createMs, 99).toFixed(0), 7)} ${verifyText(r.verify)}  ${failuresText(r.other)}`);
  }
  const [a, b, c] = rows;
  const fixed = (n: number | null) => (n === null ? 'n/a' : n.toFixed(2));
  console.log(`  a/b = ${fixed(ratioOf(a?.holdsPerSecond ?? null, b?.holdsPerSecond ?? null))} (target >= 0.9), c/b = ${fixed(ratioOf(c?.holdsPerSecond ?? null, b?.holdsPerSecond ?? null))} (target >= 0.6)`);
}

function printLastUnits(dialect: FlashSaleDialect, r: LastUnitResult): void {
  console.log(`\n[${dialect}] 4. last units: ${sizes.lastUnitRequests} concurrent one-unit holds for ${sizes.lastUnitStock} available units, over 2 gateways`);
  console.log(`${pad('201', 6)} ${pad('422 INSUFFICIENT_STOCK', 22)} ${pad('available after', 15)} ${verifyHeader}  other answers`);
  console.log(`${pad(r.counts.created, 6)} ${pad(r.counts.insufficient, 22)} ${pad(r.availableAfter ?? '-', 15)} ${verifyText(r.verify)}  ${failuresText(r.counts.other)}`);
}

// ---------------------------------------------------------------------------------------------
// One database.

async function runDialect(dialect: FlashSaleDialect): Promise<SummaryRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'pits-flash-sale-'));
  // The harness drops a database of this name before creating it: the random part keeps two runs from dropping each other's.
  const pgName = `pits_flash_sale_${process.pid}_${randomBytes(4).toString('hex')}`;
  let pgCreated = false;
  let database: Database | undefined;
  const children: Child[] = [];
  let verify: VerifyLoop | undefined;
  try {
    let databaseUrl: string;
    if (dialect === 'sqlite') databaseUrl = join(dir, 'flash-sale.sqlite');
    else {
      const unreachable = await postgresReachable(pgAdminUrl);
      if (unreachable) {
        console.log(`[postgres] skipped: ${pgAdminUrl} is not reachable (${unreachable}); set BENCH_PG_URL`);
        return [];
      }
      databaseUrl = await createPostgresDatabase(pgAdminUrl, pgName);
      pgCreated = true;
    }
    database = createDatabase(dialect === 'sqlite' ? { dialect: 'sqlite', location: databaseUrl } : { dialect: 'postgres', url: databaseUrl });
    await migrateOrThrow(database);
    const seeded = performance.now();
    const world = await seedWorld(database);
    await database.destroy();
    database = undefined;
    console.log(`[${dialect}] seeded ${world.expiry.length + world.many.length + 2} merchants in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    // The rate limiter is not what is measured: the partner's budget is out of reach. The sweep runs at its defaults.
    const env = { DATABASE_URL: databaseUrl, CREDENTIALS_KEY, LOG_LEVEL: 'warn', RATE_LIMIT_LARGE: '1000000', RATE_LIMIT_OPERATION: '1000000' };
    for (let i = 0; i < 2; i += 1) children.push(await startGateway(env));
    const internalApi = await startInternalApi({ DATABASE_URL: databaseUrl, CREDENTIALS_KEY, LOG_LEVEL: 'warn', INTERNAL_API_TOKEN });
    children.push(internalApi);
    const api = new PartnerApi(children.slice(0, 2).map((g) => g.url), world.apiKey);
    verify = new VerifyLoop(internalApi.url);
    verify.start();

    const rows: SummaryRow[] = [];
    const runs = (scenario: FlashSaleScenario) => options.scenarios.includes(scenario);
    if (runs('burst')) {
      const burst = await burstExpiry(api, world, verify);
      printBurst(dialect, burst);
      rows.push({
        scenario: '1. burst expiry', dialect, holdsPerSecond: null, lateness: burst.summary, verifyCalls: burst.verify.calls, verifyFindings: burst.verify.findings,
        misses: [...createMisses(`${dialect} burst`, burst.createFailures), ...expiryMisses(`${dialect} burst`, burst.summary, BURST_MAX_TARGET_MS)],
      });
    }

    if (runs('steady')) {
      const steady = await steadyExpiry(api, world, verify);
      printSteady(dialect, steady);
      rows.push({
        scenario: '2. steady expiry', dialect, holdsPerSecond: null, lateness: steady.summary, verifyCalls: steady.verify.calls, verifyFindings: steady.verify.findings,
        misses: [...createMisses(`${dialect} steady`, steady.createFailures), ...expiryMisses(`${dialect} steady`, steady.summary, null)],
      });
    }

    if (runs('throughput')) {
      const cases: ThroughputCase[] = [
        { name: `a. 1 merchant, ${sizes.throughputSkus} SKUs`, target: (c) => ({ merchant: world.skus, productId: world.skus.productIds[c % world.skus.productIds.length]! }) },
        { name: `b. ${sizes.throughputSkus} merchants`, target: (c) => { const merchant = world.many[c % world.many.length]!; return { merchant, productId: merchant.productIds[0]! }; } },
        { name: 'c. 1 merchant, 1 hot SKU', target: () => ({ merchant: world.skus, productId: world.skus.productIds[0]! }) },
      ];
      // A short unmeasured run first, so no case is measured on cold processes.
      await throughput(api, cases[1]!, Math.min(3, sizes.throughputSeconds), verify);
      const measured: ThroughputResult[] = [];
      for (const c of cases) measured.push(await throughput(api, c, sizes.throughputSeconds, verify));
      printThroughput(dialect, measured);
      const misses = throughputMisses(`${dialect} throughput`, { skus: measured[0]!.holdsPerSecond, merchants: measured[1]!.holdsPerSecond, hotSku: measured[2]!.holdsPerSecond });
      for (const [i, r] of measured.entries()) {
        const caseMisses = i === 0 ? misses.skus : i === 2 ? misses.hotSku : [];
        rows.push({ scenario: `3${r.name.slice(0, 1)}. throughput ${r.name.slice(3)}`, dialect, holdsPerSecond: r.holdsPerSecond, lateness: null, verifyCalls: r.verify.calls, verifyFindings: r.verify.findings, misses: caseMisses });
      }
    }

    if (runs('last-units')) {
      const last = await lastUnits(api, world, verify);
      printLastUnits(dialect, last);
      rows.push({
        scenario: '4. last units', dialect, holdsPerSecond: null, lateness: null, verifyCalls: last.verify.calls, verifyFindings: last.verify.findings,
        misses: lastUnitMisses(`${dialect} last units`, last.counts, sizes.lastUnitRequests, sizes.lastUnitStock),
      });
    }

    await verify.stop();
    // stock.verify reads one snapshot (docs/holds.md#stock-effect): a finding at any moment, under
    // load too, is a miss, and so is one on the quiet database at the end.
    const during = verify.snapshot();
    if (during.findings > 0 || during.failed > 0) rows.at(-1)?.misses.push(`${dialect}: stock.verify under load: ${during.findings} calls with findings, ${during.failed} failed${verify.firstFinding ? ` (first: ${verify.firstFinding})` : ''}`);
    const quiet = await verifyOnce(internalApi.url);
    console.log(`\n[${dialect}] stock.verify during the scenarios: ${verify.snapshot().calls} calls, ${verify.snapshot().findings} with findings${verify.firstFinding ? ` (first: ${verify.firstFinding})` : ''}, ${verify.snapshot().failed} failed; on the quiet database at the end: ${quiet === null ? 'the call failed' : `${quiet.length} discrepancies`}`);
    if (quiet === null || quiet.length > 0) rows.at(-1)!.misses.push(`${dialect}: stock.verify on the quiet database at the end ${quiet === null ? 'failed' : `listed ${quiet.length} discrepancies: ${JSON.stringify(quiet.slice(0, 3))}`}`);
    return rows;
  } finally {
    await verify?.stop();
    for (const child of children) await child.stop();
    await database?.destroy();
    if (pgCreated) await dropPostgresDatabase(pgAdminUrl, pgName).catch((error: unknown) => console.error(`[postgres] could not drop ${pgName}: ${String(error)}`));
    rmSync(dir, { recursive: true, force: true });
  }
}

function createMisses(label: string, failures: Record<string, number>): string[] {
  const total = Object.values(failures).reduce((sum, n) => sum + n, 0);
  return total > 0 ? [`${label}: ${total} hold(s) not created (${failuresText(failures)})`] : [];
}

const started = performance.now();
console.log(`bench:flash-sale ${options.quick ? '--quick ' : ''}on ${options.dialects.join(' and ')}; ${cpus().length} CPUs, load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
const rows: SummaryRow[] = [];
for (const dialect of options.dialects) rows.push(...(await runDialect(dialect)));

console.log(`\n${summaryTable(rows)}`);
console.log(`\nwhole run ${((performance.now() - started) / 1000).toFixed(0)} s; load average now ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
const misses = rows.flatMap((r) => r.misses);
if (misses.length > 0) {
  console.log(`\ntargets missed (${misses.length}):`);
  for (const miss of misses) console.log(`- ${miss}`);
  process.exitCode = 1;
} else {
  console.log(rows.length > 0 ? '\nevery target met' : '\nnothing ran');
}
