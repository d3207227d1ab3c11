// The inventory load shared by bench:inventory and bench:scale-out: the seeded database, the adjustment
// cases, the stock count and the order hold (create, then consume; on products without lots, or on
// lot-tracked ones) as autocannon requests, and one measured run of a case (warm-up, then the
// servers' CPU and the PostgreSQL backends' CPU per completed request).
import type autocannon from 'autocannon';
import type { Database } from '@pits/persistence';
import { type LoadResult, cpuSeconds, cpuSecondsOf, load, settle } from './bench-harness.js';
import { type BulkWriter, LOT_SEED, type PoolEntry, type SeedTenant, seedInventory, writePendingPool } from './inventory-seed.js';

export const CASES = ['create', 'detail', 'list', 'approve', 'count', 'reserve', 'reserve-lots'] as const;
export type Case = (typeof CASES)[number];
/** The order hold cases: a hold created then consumed, on products without lots or with them. */
export type HoldCase = Extract<Case, 'reserve' | 'reserve-lots'>;
export const HOLD_CASES: readonly HoldCase[] = ['reserve', 'reserve-lots'];
export const isHoldCase = (kind: Case): kind is HoldCase => (HOLD_CASES as readonly Case[]).includes(kind);

/** BENCH_CASES (a comma list), in the order given; `defaults` when unset. */
export function casesFrom(env: string | undefined, defaults: readonly Case[] = CASES): Case[] {
  return (env ?? defaults.join(',')).split(',').map((c) => c.trim()).filter((c): c is Case => (CASES as readonly string[]).includes(c));
}

export const PATHS: Record<Case, string> = {
  create: 'POST /api/partner/v1/adjustments',
  detail: 'GET /api/engine/v1/adjustments/:id',
  list: 'GET /api/engine/v1/adjustments?page=N&per_page=10',
  approve: 'PATCH /api/partner/v1/adjustments/:id/approve',
  count: 'POST /api/partner/v1/stock/counts',
  reserve: 'POST /api/partner/v1/reservations, then POST …/reservations/:id/consume (2 requests per hold)',
  'reserve-lots': 'the same on lot-tracked products, three lots each, one short-dated (first expired first out)',
};

export const SEED = { tenants: 5, adjustmentsPerTenant: 20_000, transfersPerTenant: 4_000 } as const;
export const CREATE_LINES = 2;
export const COUNT_LINES = 3;
/**
 * Lines of every hold the reserve cases create, one unit each. The holds take their products in
 * turn from the tenant's products (pairs 0-1, 2-3, …; reserve-lots: its lot-tracked products) at
 * its first location, so each product gives one unit per RESERVE_PRODUCTS / RESERVE_LINES holds of
 * its tenant; `reserveCapacity` says how many holds the stock allows.
 */
export const RESERVE_LINES = 2;
const RESERVE_PRODUCTS = 20;
if (LOT_SEED.products < RESERVE_PRODUCTS) throw new Error('LOT_SEED: fewer lot-tracked products than the reserve-lots case takes');

/** The products a hold case takes its lines from. */
export const holdProducts = (kind: HoldCase, tenant: SeedTenant) => (kind === 'reserve' ? tenant.products : tenant.lotProducts).slice(0, RESERVE_PRODUCTS);
export const CREDENTIALS_KEY = 'b'.repeat(64);

/** Seeds SEED into a migrated database and says what it wrote. */
export async function seedForLoad(database: Database, writer: BulkWriter, label: string): Promise<SeedTenant[]> {
  const started = performance.now();
  const { tenants, counts } = await seedInventory(database, writer, { ...SEED, now: new Date() });
  console.log(
    `\n[${label}] seeded in ${((performance.now() - started) / 1000).toFixed(1)} s: ${counts.adjustments} adjustments (${counts.adjustmentItems} lines, ${counts.pendingIncrease} pending increases), ${counts.transfers} transfers (${counts.transferItems} lines), ${counts.ledgerRows} ledger rows, ${SEED.tenants} tenants`,
  );
  return tenants;
}

/** Picks from a list in a fixed pseudo-random order shared by every run of a case. */
function picker(seed: number): (n: number) => number {
  let a = seed >>> 0;
  return (n) => {
    a = (Math.imul(a, 1_664_525) + 1_013_904_223) >>> 0;
    return a % n;
  };
}

function headersFor(tenant: SeedTenant): Record<string, string> {
  return { authorization: `Bearer ${tenant.apiKey}`, 'x-tenant-id': tenant.tenantId, 'content-type': 'application/json' };
}

/** Pending adjustments for the approve case, taken in order. */
export interface ApprovePool {
  entries: PoolEntry[];
  next: number;
}

/** The last counted quantity a count request carried: shared by every run so each count changes the stock. */
let countSerial = 500_000;

/** Holds created so far by this process, on either server: every hold's reference is new. */
let reserveSerial = 0;

/** What a connection remembers between the create of a hold and its consume. */
interface HoldContext {
  /** The tenant of the create in flight. */
  tenant?: number;
  /** The hold it created, for the consume. */
  hold?: { number: string; tenant: number } | undefined;
}

/**
 * How many holds (create + consume) of a hold case the good stock at the tenants' first locations
 * allows: the least available quantity among the products the holds take (for lot-tracked ones,
 * in their lots still sellable on `today`), times the products per tenant over the lines per hold,
 * times the tenants. Every consumed hold takes RESERVE_LINES units out of good for good, so a run
 * needs no more than this.
 */
export async function reserveCapacity(writer: BulkWriter, tenants: readonly SeedTenant[], kind: HoldCase, today: string): Promise<number> {
  const ids = tenants.flatMap((t) => holdProducts(kind, t).map((p) => p.id));
  const locations = tenants.map((t) => t.locationIds[0]);
  const within = `location_id in (${locations.map(() => '?').join(', ')}) and product_id in (${ids.map(() => '?').join(', ')})`;
  const rows = await writer.query<{ least: number | string | null }>(
    kind === 'reserve'
      ? `select min(good - reserved) as least from stock_levels where ${within}`
      : `select min(units) as least from (select sum(good - reserved) as units from lot_stock where ${within} and lot_id in (select id from lots where unsellable_from is null or unsellable_from > ?) group by location_id, product_id) sellable`,
    kind === 'reserve' ? [...locations, ...ids] : [...locations, ...ids, today],
  );
  const leastUnits = Math.floor(Number(rows[0]?.least ?? 0) / 10_000);
  return leastUnits * Math.floor(RESERVE_PRODUCTS / RESERVE_LINES) * tenants.length;
}

/** autocannon request objects for a case; each request is built afresh by setupRequest. */
export function requestsFor(kind: Case, tenants: readonly SeedTenant[], pool: ApprovePool): autocannon.Request[] {
  const pick = picker(kind.length * 7919);
  let turn = 0;
  const setup = (build: () => { method: 'GET' | 'POST' | 'PATCH'; path: string; tenant: SeedTenant; body?: string }) => [
    {
      setupRequest: (request: autocannon.Request) => {
        const next = build();
        return { ...request, method: next.method, path: next.path, headers: headersFor(next.tenant), ...(next.body ? { body: next.body } : {}) };
      },
    },
  ];
  switch (kind) {
    case 'create': {
      const bodies = tenants.map((t) =>
        JSON.stringify({
          location_id: t.locationIds[0],
          type: 'increase',
          stock_source: 'good',
          reason: 'Benchmark count correction',
          items: t.products.slice(0, CREATE_LINES).map((p, i) => ({ product_id: String(p.id), quantity: 2 + i, unit_cost: 1500.5 + i })),
        }),
      );
      return setup(() => {
        const i = turn++ % tenants.length;
        return { method: 'POST', path: '/api/partner/v1/adjustments', tenant: tenants[i]!, body: bodies[i]! };
      });
    }
    case 'detail':
      return setup(() => {
        const tenant = tenants[pick(tenants.length)]!;
        return { method: 'GET', path: `/api/engine/v1/adjustments/${tenant.adjustmentNumbers[pick(tenant.adjustmentNumbers.length)]!}`, tenant };
      });
    case 'list':
      return setup(() => {
        const tenant = tenants[pick(tenants.length)]!;
        const filter = ['', '&status=pending', '&status=approved'][turn++ % 3]!;
        return { method: 'GET', path: `/api/engine/v1/adjustments?page=${1 + pick(50)}&per_page=10${filter}`, tenant };
      });
    case 'approve':
      return setup(() => {
        // Past the end of the pool, the last entry repeats: those answer 422 INVALID_STATE and
        // show up as non-2xx, a pool too small for the run rather than an API failure.
        const entry = pool.entries[Math.min(pool.next++, pool.entries.length - 1)]!;
        return { method: 'PATCH', path: `/api/partner/v1/adjustments/${entry.number}/approve`, tenant: tenants[entry.tenant]!, body: '{}' };
      });
    case 'reserve':
    case 'reserve-lots': {
      // Two requests per hold, one after the other on each connection: the create (201), whose
      // number the connection keeps, then its whole consume (200). A create that failed leaves no
      // number: autocannon then starts the pair over with a new create.
      const pairs = Math.floor(RESERVE_PRODUCTS / RESERVE_LINES);
      const products = tenants.map((t) => holdProducts(kind, t));
      return [
        {
          setupRequest: (request: autocannon.Request, context: HoldContext) => {
            const serial = (reserveSerial += 1);
            context.tenant = serial % tenants.length;
            const tenant = tenants[context.tenant]!;
            const first = (Math.floor(serial / tenants.length) % pairs) * RESERVE_LINES;
            const items = products[context.tenant]!.slice(first, first + RESERVE_LINES).map((p) => ({ product_id: String(p.id), quantity: 1 }));
            const body = JSON.stringify({ location_id: tenant.locationIds[0], reference: `BENCH-${process.pid}-${serial}`, items });
            return { ...request, method: 'POST', path: '/api/partner/v1/reservations', headers: headersFor(tenant), body };
          },
          onResponse: (status: number, body: string, context: HoldContext) => {
            context.hold = undefined;
            if (status !== 201 || context.tenant === undefined) return;
            const number = (JSON.parse(body) as { data: { reservation: { id: string } } }).data.reservation.id;
            context.hold = { number, tenant: context.tenant };
          },
        },
        {
          setupRequest: (request: autocannon.Request, context: HoldContext) => {
            if (!context.hold) return null as unknown as autocannon.Request;
            const { number, tenant } = context.hold;
            return { ...request, method: 'POST', path: `/api/partner/v1/reservations/${encodeURIComponent(number)}/consume`, headers: headersFor(tenants[tenant]!), body: '{}' };
          },
        },
      ] as autocannon.Request[];
    }
    case 'count':
      // Every line differs from the stock (a counted quantity no request sent before, on either
      // server) and skips the expected check, so every count writes an adjustment.
      return setup(() => {
        const tenant = tenants[turn++ % tenants.length]!;
        const counted = (countSerial += 1);
        const items = tenant.products.slice(0, COUNT_LINES).map((p) => ({ product_id: String(p.id), counted, expected: null }));
        return { method: 'POST', path: '/api/partner/v1/stock/counts', tenant, body: JSON.stringify({ location_id: tenant.locationIds[0], stock_source: 'good', items }) };
      });
  }
}

export interface Measured extends LoadResult {
  /**
   * The servers' CPU (user + system, summed over them) per request, in microseconds; null off
   * Linux. Taken once the servers have settled after the run, over every request sent in it.
   */
  cpuUs: number | null;
  /** PostgreSQL backends' CPU per completed request (postgres only), in microseconds. */
  dbCpuUs: number | null;
}

/** CPU seconds so far of every other PostgreSQL backend on the benchmark database, by pid. */
async function backendCpu(writer: BulkWriter): Promise<Map<number, number>> {
  const rows = await writer.query<{ pid: number }>('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  return new Map(rows.map((r) => [r.pid, cpuSeconds(r.pid) ?? 0]));
}

export interface CaseRun {
  kind: Case;
  /** One server, or several loaded round-robin. */
  url: string | readonly string[];
  /** The server processes whose CPU is counted. */
  pids: readonly (number | undefined)[];
  tenants: readonly SeedTenant[];
  writer: BulkWriter;
  seconds: number;
  warmupSeconds: number;
  connections: number;
  /** Pending adjustments written per second of an approve run (warm-up included). */
  approvePerSecond: number;
  /** Seeds the approve pool's choice of lines. */
  poolSeed: number;
  /** Runs just before and just after the measured run (not the warm-up). */
  around?: { before(): Promise<void>; after(): Promise<void> };
  /** Requests per second over all connections, warm-up included; none: as fast as the servers answer. */
  rate?: number;
}

/** Fresh pending adjustments for `seconds` of the approve case (none for the other cases). */
async function approvePool(run: Pick<CaseRun, 'kind' | 'tenants' | 'writer' | 'approvePerSecond' | 'poolSeed'>, seconds: number): Promise<ApprovePool> {
  if (run.kind !== 'approve') return { entries: [], next: 0 };
  return { entries: await writePendingPool(run.writer, run.tenants, Math.ceil(seconds * run.approvePerSecond), new Date(), run.poolSeed), next: 0 };
}

/**
 * `seconds` of a case, measuring nothing, until the servers settle: lets fresh processes compile
 * their hot paths before any run is measured.
 */
export async function warmUp(run: Omit<CaseRun, 'warmupSeconds' | 'around'>, label: string): Promise<void> {
  const pool = await approvePool(run, run.seconds);
  await load(`warm-up ${label}`, run.url, { seconds: run.seconds, connections: run.connections, requests: requestsFor(run.kind, run.tenants, pool) });
  await settle(run.pids);
}

/**
 * A warm-up, then the measured run of one case. `poolShort` says the approve pool ran out (its
 * last requests answered 422): raise the pool's rate.
 */
export async function runCase(run: CaseRun, label: string): Promise<{ measured: Measured; poolShort: boolean }> {
  const { kind, tenants, writer } = run;
  const pool = await approvePool(run, run.seconds + run.warmupSeconds);
  const rate = run.rate === undefined ? {} : { rate: run.rate };
  await load(`warm-up ${label}`, run.url, { seconds: run.warmupSeconds, connections: run.connections, requests: requestsFor(kind, tenants, pool), ...rate });
  // The warm-up's unanswered requests are served before the measured run starts, and the measured
  // run's own are all served before its CPU is read: its CPU is the work of the requests it sent.
  await settle(run.pids);
  await run.around?.before();
  const dbBefore = writer.dialect === 'postgres' ? await backendCpu(writer) : null;
  const cpuBefore = cpuSecondsOf(run.pids);
  const result = await load(label, run.url, { seconds: run.seconds, connections: run.connections, requests: requestsFor(kind, tenants, pool), ...rate });
  await settle(run.pids);
  const cpuAfter = cpuSecondsOf(run.pids);
  const dbAfter = dbBefore ? await backendCpu(writer) : null;
  await run.around?.after();
  const perRequest = (used: number) => (result.sent === 0 ? null : (used * 1e6) / result.sent);
  return {
    measured: {
      ...result,
      cpuUs: cpuBefore === null || cpuAfter === null ? null : perRequest(cpuAfter - cpuBefore),
      // Backends that exist at the end of the run, minus what they had used at its start.
      dbCpuUs: dbBefore && dbAfter ? perRequest([...dbAfter].reduce((sum, [pid, used]) => sum + used - (dbBefore.get(pid) ?? 0), 0)) : null,
    },
    poolShort: kind === 'approve' && pool.next > pool.entries.length,
  };
}

/** The non-2xx responses of a run as `3x422 1x503`, or `0`. */
export function nonOk(r: Pick<LoadResult, 'statusCodes'>): string {
  const codes = Object.entries(r.statusCodes).filter(([code]) => !code.startsWith('2'));
  return codes.length ? codes.map(([code, count]) => `${count}x${code}`).join(' ') : '0';
}

export { createPostgresDatabase, dropPostgresDatabase } from './bench-harness.js';
