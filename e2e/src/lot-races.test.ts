// Lots under concurrency (docs/lots.md#holds-and-transfers): two gateway processes on one database,
// both running the hold sweep and the lot job, take simultaneous holds of a lot-tracked product;
// sellable lots are taken first expired first out and never beyond what they hold, a short-dated
// lot is never taken, a lot's decrease and count racing its holds each win whole or are refused,
// and the internal API's stock.verify (lot checks included) finds nothing wrong. Real processes,
// real HTTP, on both dialects.
import { type Database, createDatabase, parseDatabaseUrl } from '@pits/persistence';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KeyedRequest, sendKeyed } from './crash/keyed-request.js';
import { e2eDialects } from './harness/e2e-database.js';
import { type ErrorCode, expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { GatewayResponse, JsonBody } from './harness/gateway-response.js';
import { type CatalogueProduct, STOCK, type TenantSession, allMovements } from './harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { type Allocation, type LotFigures, allocatedByLot, createLotTrackedProduct, lotsAt, serviceToday, stockLots } from './harness/lot-fixtures.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';

const RESERVATIONS = '/api/partner/v1/reservations';
const ADJUSTMENTS = '/api/partner/v1/adjustments';
const COUNTS = '/api/partner/v1/stock/counts';
/** Both gateways sweep, and run the lot job, every second: they take part in every race below. */
const SWEEP = { RESERVATION_SWEEP_INTERVAL_MS: '1000' };
/** Sends of one keyed write at most, the first included. */
const MAX_SENDS = 5;
/** What a short-dated lot needs left to be held (docs/lots.md#sellable-and-short-dated). */
const OUTBOUND_EXPIRED = 30;
/** Rounds of the lot-X race, each on a product of its own. */
const ROUNDS = 3;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dialects = await e2eDialects();

/** How one kind of operation fared over the rounds: attempts, successes, refusals by error code. */
interface Outcomes {
  attempts: number;
  succeeded: number;
  refused: Record<string, number>;
}

function tally(table: Map<string, Outcomes>, kind: string, res: GatewayResponse): void {
  const row = table.get(kind) ?? { attempts: 0, succeeded: 0, refused: {} };
  row.attempts += 1;
  if (res.status < 300) row.succeeded += 1;
  else {
    const code = String(res.body?.error?.code ?? res.status);
    row.refused[code] = (row.refused[code] ?? 0) + 1;
  }
  table.set(kind, row);
}

function formatTable(title: string, table: Map<string, Outcomes>): string {
  const lines = [title, `${'operation'.padEnd(24)}${'attempts'.padStart(9)}${'succeeded'.padStart(10)}  refused`];
  for (const [kind, row] of table) {
    const refused = Object.entries(row.refused).map(([code, n]) => `${code} ${n}`).join(', ') || '-';
    lines.push(`${kind.padEnd(24)}${String(row.attempts).padStart(9)}${String(row.succeeded).padStart(10)}  ${refused}`);
  }
  return lines.join('\n');
}

describe.each(dialects)('[%s] lots under concurrency', (dialect) => {
  let stack: ServiceStack;
  let gateways: [GatewayClient, GatewayClient];
  let partner: OnboardedPartner;
  let s: TenantSession;
  let location: number;
  let db: Database;
  let today: string;

  const gw = (i: number) => gateways[i % 2]!;
  /**
   * A write sent with an Idempotency-Key, as a careful partner sends it, and sent again with the
   * same key after a 503 (under heavy load a write on SQLite can wait past the lock wait; a 5xx
   * releases the key and changed nothing) or while the key's first send still runs, at most
   * MAX_SENDS times: its final answer.
   */
  const keyed = async (i: number, request: Omit<KeyedRequest, 'apiKey' | 'tenant'>): Promise<GatewayResponse> => {
    for (let sends = 1; ; sends += 1) {
      const outcome = await sendKeyed(gw(i).url, { ...request, apiKey: s.key, tenant: s.tenant }, 30_000);
      if (outcome.kind === 'unanswered') throw new Error(`${request.method} ${request.path}: no answer from ${gw(i).url} (${outcome.error})`);
      const again = outcome.kind === 'later' && (outcome.reason === 'unavailable' || outcome.reason === 'in_progress');
      if (!again || sends === MAX_SENDS) return outcome.res;
      await sleep(100 * sends);
    }
  };
  /** A hold of one line; `lotNumber` pins it to that lot, else it takes sellable lots first expired first out. */
  const hold = (i: number, product: CatalogueProduct, quantity: number, reference: string, lotNumber?: string) =>
    keyed(i, {
      method: 'POST',
      path: RESERVATIONS,
      template: RESERVATIONS,
      idempotencyKey: `hold-${reference}`,
      body: { location_id: location, reference, expires_in: 900, items: [{ product_id: String(product.id), quantity, ...(lotNumber === undefined ? {} : { lot_number: lotNumber }) }] },
    });
  const level = async (product: CatalogueProduct): Promise<JsonBody> => {
    const res = await gw(1).get(STOCK, { key: s.key, tenant: s.tenant, query: { location_id: location, product_id: product.id } });
    expect(res.status, res.text).toBe(200);
    return res.body.data.stock[0];
  };
  const lots = (product: CatalogueProduct) => lotsAt(gw(0), s, location, product.id);
  const figures = (all: Map<string, LotFigures>, lot: string): LotFigures => {
    const found = all.get(lot);
    expect(found, `lot ${lot} is listed`).toBeDefined();
    return found!;
  };
  const byStatus = (responses: GatewayResponse[]) => {
    const counts: Record<number, number> = {};
    for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
    return counts;
  };
  const expectVerified = async () => expect(await stack.internal.stock.verify.query({ tenantId: s.tenant }), 'stock.verify, lot checks included').toEqual([]);

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: SWEEP });
    const second = await stack.startGateway({ env: SWEEP });
    gateways = [gatewayClient(stack.gateway.url), gatewayClient(second.url)];
    partner = await onboardPartner(stack.internal, gateways[0], { label: 'LotHolder', tier: 'large', tenants: 1, locations: 1 });
    s = { key: partner.key, tenant: partner.tenants[0]!.id };
    location = partner.tenants[0]!.locationIds[0]!;
    db = createDatabase(parseDatabaseUrl(stack.database.url));
    today = await serviceToday(db);
  });
  afterAll(async () => {
    await db?.destroy();
    await stopAfterLedgerCheck(stack);
  });
  showOutputOnFailure(() => [...(stack?.services() ?? [])]);

  it('50 concurrent holds over three lots, through two gateways: 30 held first expired first out, 20 refused, the short-dated lot untouched', async () => {
    const product = await createLotTrackedProduct(stack.internal, s.tenant, 'FEFO-1', OUTBOUND_EXPIRED);
    // C is short-dated (10 days left, 30 required): 45 good units, 30 of them sellable.
    await stockLots(stack.internal, s.tenant, location, product.id, today, [
      { lotNumber: 'A', good: 20, daysLeft: 100 },
      { lotNumber: 'B', good: 10, daysLeft: 50 },
      { lotNumber: 'C', good: 15, daysLeft: 10 },
    ], 'fefo-opening');
    const before = await lots(product);
    expect([...before.values()].map((l) => [l.lotNumber, l.good, l.sellable])).toEqual([
      ['C', 15, false],
      ['B', 10, true],
      ['A', 20, true],
    ]);

    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => hold(i, product, 1, `fefo-${i}`)));
    expect(byStatus(responses)).toEqual({ 201: 30, 422: 20 });
    for (const r of responses) if (r.status === 422) expectError(r, 'INSUFFICIENT_STOCK', 'items[0].quantity');
    const held = responses.filter((r) => r.status === 201).map((r) => r.body.data.reservation);
    const named = held.flatMap((h) => (h.items[0].allocations as Allocation[]).map((a) => a.lot_number));
    expect(named.filter((lot) => lot === 'C'), 'no hold takes the short-dated lot').toEqual([]);
    const allocated = allocatedByLot(held, product.id);
    expect(Object.fromEntries(allocated)).toEqual({ B: 10, A: 20 });
    for (const [lot, units] of allocated) expect(units, `lot ${lot}: allocated at most its good units`).toBeLessThanOrEqual(figures(before, lot).good);

    // The order the holds took the row's lock in is the order of their ledger rows: all of B
    // (the earliest sellable expiry) went before the first unit of A.
    const reservedMoves = (await allMovements(gw(1), s, { product_id: product.id, location_id: location }))
      .filter((m) => m.bucket === 'reserved' && m.cause_type === 'reservation')
      .sort((x, y) => Number(x.id) - Number(y.id));
    expect(reservedMoves.map((m) => m.lot_number).join('')).toBe(`${'B'.repeat(10)}${'A'.repeat(20)}`);

    const after = await lots(product);
    expect(figures(after, 'A')).toMatchObject({ good: 20, reserved: 20, available: 0, sellable: true });
    expect(figures(after, 'B')).toMatchObject({ good: 10, reserved: 10, available: 0, sellable: true });
    expect(figures(after, 'C')).toMatchObject({ good: 15, reserved: 0, available: 0, sellable: false });
    expect(await level(product)).toMatchObject({ good: 45, reserved: 30, reserved_for_orders: 30, short_dated: 15, available: 0 });
    await expectVerified();
  });

  it(`holds racing a lot's decrease and a count of that lot, ${ROUNDS} rounds: each wins whole or is refused, the lot never below its reserved`, async () => {
    // The refusals the contract allows each kind (docs/lots.md#stock-per-lot, docs/stock-rules.md#stock-counts).
    const allowed: Record<string, ErrorCode[]> = {
      'hold pinned to X': ['INSUFFICIENT_STOCK'],
      'hold FEFO (X earliest)': ['INSUFFICIENT_STOCK'],
      'decrease of X approved': ['INSUFFICIENT_STOCK'],
      'count of X': ['STALE_QUANTITY', 'INSUFFICIENT_STOCK'],
    };
    const outcomes = new Map<string, Outcomes>(Object.keys(allowed).map((kind) => [kind, { attempts: 0, succeeded: 0, refused: {} }]));
    for (let round = 0; round < ROUNDS; round += 1) {
      const product = await createLotTrackedProduct(stack.internal, s.tenant, `LOTX-${round}`, OUTBOUND_EXPIRED);
      // X is the earliest sellable lot; Y backs the holds that are not pinned; Z is short-dated.
      await stockLots(stack.internal, s.tenant, location, product.id, today, [
        { lotNumber: 'X', good: 12, daysLeft: 40 },
        { lotNumber: 'Y', good: 20, daysLeft: 120 },
        { lotNumber: 'Z', good: 6, daysLeft: 5 },
      ], `mix-opening-${round}`);
      const xBefore = figures(await lots(product), 'X');
      const goodBefore = xBefore.good;
      const decrease = await gw(round).post(
        ADJUSTMENTS,
        { location_id: location, type: 'decrease', stock_source: 'good', reason: 'breakage', items: [{ product_id: String(product.id), quantity: 5, unit_cost: 1, lot_number: 'X' }] },
        { key: s.key, tenant: s.tenant },
      );
      expect(decrease.status, decrease.text).toBe(201);
      const adjustmentId = decrease.body.data.adjustment.id as string;
      const approvePath = `${ADJUSTMENTS}/${adjustmentId}/approve`;

      // Twelve holds want X's 12 units; the decrease wants 5 of them free, the count sets X to 8.
      const pinned = Array.from({ length: 8 }, (_, i) => ({ kind: 'hold pinned to X', send: () => hold(i, product, 1, `mix-${round}-pin-${i}`, 'X') }));
      const fefo = Array.from({ length: 4 }, (_, i) => ({ kind: 'hold FEFO (X earliest)', send: () => hold(i + 1, product, 1, `mix-${round}-fefo-${i}`) }));
      const approve = { kind: 'decrease of X approved', send: () => keyed(round, { method: 'PATCH', path: approvePath, template: `${ADJUSTMENTS}/{id}/approve`, idempotencyKey: `approve-${round}`, body: {} }) };
      const count = {
        kind: 'count of X',
        send: () =>
          keyed(round + 1, {
            method: 'POST',
            path: COUNTS,
            template: COUNTS,
            idempotencyKey: `count-${round}`,
            body: { location_id: location, stock_source: 'good', items: [{ product_id: String(product.id), counted: 8, expected: goodBefore, lot_number: 'X' }] },
          }),
      };
      // Interleaved, so the two document writes do not always start first or last.
      const operations = [...pinned.slice(0, 4), approve, ...fefo.slice(0, 2), count, ...pinned.slice(4), ...fefo.slice(2)];
      const answers = await Promise.all(operations.map((o) => o.send()));

      const ok = (kind: string) => answers.filter((r, i) => operations[i]!.kind === kind && r.status < 300);
      operations.forEach((o, i) => {
        const res = answers[i]!;
        tally(outcomes, o.kind, res);
        if (res.status >= 300) {
          expect(allowed[o.kind], `round ${round} ${o.kind}: ${res.status} ${res.text}`).toContain(res.body?.error?.code);
          expectError(res, res.body.error.code as ErrorCode);
        }
      });
      const heldBodies = [...ok('hold pinned to X'), ...ok('hold FEFO (X earliest)')].map((r) => r.body.data.reservation);
      for (const r of ok('hold pinned to X')) expect(r.body.data.reservation.items[0].allocations).toEqual([{ lot_number: 'X', expiry_date: xBefore.expiryDate, quantity: 1 }]);
      const allocated = allocatedByLot(heldBodies, product.id);
      expect(allocated.get('Z'), 'no hold takes the short-dated lot').toBeUndefined();

      const approved = ok('decrease of X approved').length === 1;
      const counted = ok('count of X').length === 1;
      const after = await lots(product);
      const x = figures(after, 'X');
      // A count that won saw X at its good before, so it ran before the decrease, if that won too.
      expect(x.good, `round ${round}: decrease ${approved ? 'approved' : 'refused'}, count ${counted ? 'applied' : 'refused'}`).toBe(goodBefore - (counted ? goodBefore - 8 : 0) - (approved ? 5 : 0));
      expect(x.reserved).toBeGreaterThanOrEqual(0);
      expect(x.good, `round ${round}: lot X never below its reserved`).toBeGreaterThanOrEqual(x.reserved);
      expect(x.reserved, `round ${round}: X's reserved is what the successful holds took of it`).toBe(allocated.get('X') ?? 0);
      expect(figures(after, 'Y').reserved).toBe(allocated.get('Y') ?? 0);
      expect(figures(after, 'Z')).toMatchObject({ good: 6, reserved: 0, sellable: false });
      const row = await level(product);
      const sum = (pick: (l: LotFigures) => number) => [...after.values()].reduce((total, l) => total + pick(l), 0);
      expect(row).toMatchObject({ good: sum((l) => l.good), reserved: sum((l) => l.reserved), reserved_for_orders: heldBodies.length, short_dated: 6 });
      expect(row.available).toBeGreaterThanOrEqual(0);
      await expectVerified();
    }
    console.log(formatTable(`[${dialect}] lot X race, ${ROUNDS} rounds (X 12 good; decrease 5, count to 8, 8 pinned + 4 FEFO holds of 1)`, outcomes));
  });
});
