// Order holds under concurrency (docs/holds.md): two gateway processes on one database, both
// sweeping expired holds, take simultaneous holds, endings and expiry; a hold is decided exactly
// once, its stock moves exactly once, `available` never goes below zero, and the internal API's
// stock.verify finds nothing wrong afterwards. Real processes, real HTTP, on both dialects.
import { type Database, createDatabase, parseDatabaseUrl, withTransaction } from '@pits/persistence';
import { ageReservation } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { e2eDialects } from './harness/e2e-database.js';
import { expectError } from './harness/error-envelope.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { type GatewayClient, gatewayClient } from './harness/gateway-client.js';
import type { GatewayResponse, JsonBody } from './harness/gateway-response.js';
import { type CatalogueProduct, type TenantSession, createProducts, recordOpening } from './harness/inventory-fixtures.js';
import { stopAfterLedgerCheck } from './harness/ledger-check.js';
import { type OnboardedPartner, onboardPartner } from './harness/partner-onboarding.js';
import { pollUntil } from './harness/poll-until.js';
import { type ServiceStack, startStack } from './harness/service-stack.js';
import { type WorkerProcess, startWorkerProcess } from './harness/webhook-worker-process.js';
import { sendKeyed } from './crash/keyed-request.js';

const RESERVATIONS = '/api/partner/v1/reservations';
const ADJUSTMENTS = '/api/partner/v1/adjustments';
const TRANSFERS = '/api/partner/v1/transfers';
const STOCK = '/api/partner/v1/stock';
/** Both gateways sweep every second, so a test waits seconds, not the production 15 s. */
const SWEEP = { RESERVATION_SWEEP_INTERVAL_MS: '1000' };
/** Sends of one keyed hold at most, the first included. */
const MAX_SENDS = 5;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dialects = await e2eDialects();

describe.each(dialects)('[%s] order holds under concurrency', (dialect) => {
  let stack: ServiceStack;
  let gateways: [GatewayClient, GatewayClient];
  const workers: WorkerProcess[] = [];
  let partner: OnboardedPartner;
  let s: TenantSession;
  let location: number;
  let destination: number;
  let products: CatalogueProduct[];
  let db: Database;

  const gw = (i: number) => gateways[i % 2]!;
  const holdBody = (lines: { product: CatalogueProduct; quantity: number }[], reference: string, expiresIn = 900) => ({
    location_id: location,
    reference,
    expires_in: expiresIn,
    items: lines.map((l) => ({ product_id: String(l.product.id), quantity: l.quantity })),
  });
  const hold = (i: number, lines: { product: CatalogueProduct; quantity: number }[], reference: string, expiresIn = 900) =>
    gw(i).post(RESERVATIONS, holdBody(lines, reference, expiresIn), { key: s.key, tenant: s.tenant });
  /**
   * A hold sent with an Idempotency-Key, as a careful partner sends it, and sent again with the
   * same key after a 503 (under heavy load a write on SQLite can wait past the lock wait; a 5xx
   * releases the key, and nothing was held) or while the key's first send still runs, at most
   * MAX_SENDS times: its final answer, and how many sends it took.
   */
  const keyedHold = async (i: number, lines: { product: CatalogueProduct; quantity: number }[], reference: string) => {
    const request = { method: 'POST' as const, path: RESERVATIONS, template: RESERVATIONS, apiKey: s.key, tenant: s.tenant, idempotencyKey: `hold-${reference}`, body: holdBody(lines, reference) };
    for (let sends = 1; ; sends += 1) {
      const outcome = await sendKeyed(gw(i).url, request, 30_000);
      if (outcome.kind === 'unanswered') throw new Error(`hold ${reference}: no answer from ${gw(i).url} (${outcome.error})`);
      const again = outcome.kind === 'later' && (outcome.reason === 'unavailable' || outcome.reason === 'in_progress');
      if (!again || sends === MAX_SENDS) return { res: outcome.res, sends };
      await sleep(100 * sends);
    }
  };
  const act = (i: number, id: string, action: 'consume' | 'release' | 'extend', json: unknown = {}) =>
    gw(i).request('POST', `${RESERVATIONS}/${id}/${action}`, { key: s.key, tenant: s.tenant, json, template: `${RESERVATIONS}/{id}/${action}` });
  const statusOf = async (id: string): Promise<string> => {
    const res = await gw(0).get(`${RESERVATIONS}/${id}`, { key: s.key, tenant: s.tenant, template: `${RESERVATIONS}/{id}` });
    expect(res.status, res.text).toBe(200);
    return res.body.data.reservation.status;
  };
  const level = async (product: CatalogueProduct): Promise<JsonBody> => {
    const res = await gw(1).get(STOCK, { key: s.key, tenant: s.tenant, query: { location_id: location, product_id: product.id } });
    expect(res.status, res.text).toBe(200);
    return res.body.data.stock[0] ?? { good: 0, reserved: 0, reserved_for_orders: 0, reserved_for_transfers: 0, available: 0 };
  };
  const byStatus = (responses: GatewayResponse[]) => {
    const counts: Record<number, number> = {};
    for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1;
    return counts;
  };
  /**
   * Time passing for a hold: its expiry moved into the past, as the database clock judges it; in a
   * transaction, since a lone statement on SQLite waits only briefly for the write lock.
   */
  const age = (id: string) => withTransaction(db, (tx) => ageReservation(tx, s.tenant, id));
  /** The hold's ledger rows: its stock moved once per line on creation and once per bucket at its end. */
  const ledgerRowsOf = async (id: string) =>
    db.db.selectFrom('stock_ledger').select(['bucket', 'delta']).where('tenant_id', '=', s.tenant).where('cause_type', '=', 'reservation').where('cause_id', '=', id).orderBy('id').execute();
  const expectVerified = async () => expect(await stack.internal.stock.verify.query({ tenantId: s.tenant }), 'stock.verify').toEqual([]);

  beforeAll(async () => {
    stack = await startStack(dialect, { gatewayEnv: SWEEP });
    const second = await stack.startGateway({ env: SWEEP });
    gateways = [gatewayClient(stack.gateway.url), gatewayClient(second.url)];
    partner = await onboardPartner(stack.internal, gateways[0], { label: 'Holder', tier: 'large', tenants: 1, locations: 2 });
    s = { key: partner.key, tenant: partner.tenants[0]!.id };
    [location, destination] = partner.tenants[0]!.locationIds as [number, number];
    products = await createProducts(stack.internal, s.tenant, 8, 'HOLD');
    db = createDatabase(parseDatabaseUrl(stack.database.url));
    // Two delivery workers run beside the two gateways, as in production.
    for (const name of ['worker-a', 'worker-b']) workers.push(await startWorkerProcess({ databaseUrl: stack.database.url, credentialsKey: stack.credentialsKey, name }));
  });
  afterAll(async () => {
    await Promise.all(workers.map((w) => w.stop(5000)));
    await db?.destroy();
    await stopAfterLedgerCheck(stack);
  });
  showOutputOnFailure(() => [...(stack?.services() ?? [])]);

  it('50 concurrent holds for the last 20 units, through two gateways: exactly 20 succeed, available never below zero', async () => {
    const product = products[0]!;
    await recordOpening(stack.internal, s.tenant, location, product.id, { good: '20' }, 'race-opening');
    const sent = await Promise.all(Array.from({ length: 50 }, (_, i) => keyedHold(i, [{ product, quantity: 1 }], `race-${i}`)));
    const responses = sent.map((h) => h.res);
    const resent = sent.filter((h) => h.sends > 1).length;
    if (resent > 0) console.log(`[${dialect}] last-units race: ${resent} of 50 holds sent again with their key after a 503`);
    expect(byStatus(responses)).toEqual({ 201: 20, 422: 30 });
    for (const r of responses) if (r.status === 422) expectError(r, 'INSUFFICIENT_STOCK');
    expect(await level(product)).toMatchObject({ good: 20, reserved: 20, reserved_for_orders: 20, reserved_for_transfers: 0, available: 0 });
    await expectVerified();
  });

  it('one hold consumed, released, extended and expiring at once: exactly one ending, its stock moved once', async () => {
    const product = products[1]!;
    await recordOpening(stack.internal, s.tenant, location, product.id, { good: '50' }, 'end-opening');
    const endings: Record<string, number> = {};
    for (let round = 0; round < 8; round += 1) {
      const created = await hold(round, [{ product, quantity: 2 }], `end-${round}`);
      expect(created.status, created.text).toBe(201);
      const id = created.body.data.reservation.id as string;
      const calls = [act(0, id, 'consume'), act(1, id, 'release', { reason: 'race' }), act(round, id, 'extend', { expires_in: 600 }), act(1, id, 'consume'), act(0, id, 'release')];
      // Every other round, the hold's time runs out while the calls are in flight.
      const [responses] = await Promise.all([Promise.all(calls), round % 2 === 0 ? age(id) : Promise.resolve()]);
      const final = await pollUntil(`hold ${id} ended`, 15_000, async () => {
        const status = await statusOf(id);
        return status === 'active' ? undefined : status;
      });
      endings[final] = (endings[final] ?? 0) + 1;
      const won = (action: string) => responses.filter((r, i) => r.status === 200 && ['consume', 'release', 'extend', 'consume', 'release'][i] === action).length;
      expect(won('consume') + won('release'), `round ${round}: at most one ending call wins`).toBeLessThanOrEqual(1);
      if (final === 'consumed') expect(won('consume')).toBe(1);
      if (final === 'released') expect(won('release')).toBe(1);
      if (final === 'expired') expect(won('consume') + won('release')).toBe(0);
      for (const r of responses) if (r.status !== 200) expectError(r, 'INVALID_STATE');
      const rows = await ledgerRowsOf(id);
      expect(rows.filter((r) => r.bucket === 'reserved').map((r) => Number(r.delta)), `round ${round}: held once, given back once`).toEqual([20_000, -20_000]);
      expect(rows.filter((r) => r.bucket === 'good').length, `round ${round}: good moved only by a consume`).toBe(final === 'consumed' ? 1 : 0);
    }
    expect(await level(product)).toMatchObject({ reserved: 0, reserved_for_orders: 0 });
    await expectVerified();
    console.log(`[${dialect}] hold endings over 8 racing rounds: ${JSON.stringify(endings)}`);
  });

  it('holds racing an adjustment decrease, a transfer approval and a stock count on one product keep every rule', async () => {
    const product = products[2]!;
    await recordOpening(stack.internal, s.tenant, location, product.id, { good: '10' }, 'mix-opening');
    const adjustment = await gw(0).post(ADJUSTMENTS, { location_id: location, type: 'decrease', stock_source: 'good', reason: 'breakage', items: [{ product_id: String(product.id), quantity: 4, unit_cost: 1 }] }, { key: s.key, tenant: s.tenant });
    expect(adjustment.status, adjustment.text).toBe(201);
    const transfer = await gw(1).post(TRANSFERS, { from_location_id: location, to_location_id: destination, transfer_date: '2026-11-27', items: [{ product_id: String(product.id), quantity: 3 }] }, { key: s.key, tenant: s.tenant });
    expect(transfer.status, transfer.text).toBe(201);
    const adjustmentId = adjustment.body.data.adjustment.id as string;
    const transferId = transfer.body.data.transfer.id as string;
    const [approveAdjustment, approveTransfer, count, ...holds] = await Promise.all([
      gw(0).request('PATCH', `${ADJUSTMENTS}/${adjustmentId}/approve`, { key: s.key, tenant: s.tenant, json: {}, template: `${ADJUSTMENTS}/{id}/approve` }),
      gw(1).request('PATCH', `${TRANSFERS}/${transferId}/approve`, { key: s.key, tenant: s.tenant, json: {}, template: `${TRANSFERS}/{id}/approve` }),
      gw(0).post(`${STOCK}/counts`, { location_id: location, stock_source: 'good', items: [{ product_id: String(product.id), counted: 9, expected: null }] }, { key: s.key, tenant: s.tenant }),
      ...Array.from({ length: 6 }, (_, i) => hold(i, [{ product, quantity: 1 }], `mix-${i}`)),
    ]);
    const ok = (r: GatewayResponse | undefined) => r !== undefined && r.status >= 200 && r.status < 300;
    for (const r of [approveAdjustment, approveTransfer, count, ...holds]) if (!ok(r)) expect([409, 422], r!.text).toContain(r!.status);
    const after = await level(product);
    const heldByOrders = holds.filter(ok).length;
    // Before any hold, at least 2 of the 10 stay available in every order of the other three
    // writes (a count to 9, then the decrease of 4 and the transfer's 3): the first hold always fits.
    expect(heldByOrders, 'at least one hold succeeded').toBeGreaterThanOrEqual(1);
    const heldByTransfer = ok(approveTransfer) ? 3 : 0;
    expect(after).toMatchObject({ reserved_for_orders: heldByOrders, reserved_for_transfers: heldByTransfer, reserved: heldByOrders + heldByTransfer });
    expect(after.available).toBeGreaterThanOrEqual(0);
    expect(after.available).toBe(after.good - after.reserved);
    await expectVerified();
    console.log(
      `[${dialect}] mixed race: adjustment ${approveAdjustment!.status}, transfer ${approveTransfer!.status}, count ${count!.status}, holds ${heldByOrders}/6; good ${after.good}, reserved ${after.reserved}`,
    );
  });

  it('with two gateways sweeping, every expired hold ends once and gives its stock back once', async () => {
    const product = products[3]!;
    await recordOpening(stack.internal, s.tenant, location, product.id, { good: '40' }, 'sweep-opening');
    const ids: string[] = [];
    for (let i = 0; i < 20; i += 1) {
      const res = await hold(i, [{ product, quantity: 2 }], `sweep-${i}`, 60);
      expect(res.status, res.text).toBe(201);
      ids.push(res.body.data.reservation.id);
    }
    expect(await level(product)).toMatchObject({ reserved: 40, available: 0 });
    await Promise.all(ids.map(age));
    await pollUntil('every aged hold swept', 30_000, async () => {
      const rows = await db.db.selectFrom('reservations').select('status').where('tenant_id', '=', s.tenant).where('number', 'in', ids).execute();
      return rows.every((r) => r.status === 'expired') ? true : undefined;
    }, 200);
    for (const id of ids) expect((await ledgerRowsOf(id)).map((r) => Number(r.delta)), id).toEqual([20_000, -20_000]);
    expect(await level(product)).toMatchObject({ good: 40, reserved: 0, reserved_for_orders: 0, available: 40 });
    await expectVerified();
  });
});
