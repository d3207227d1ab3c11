// The expiry sweeper on every dialect, against a real database: a hold's expiry is moved into the
// past by a direct UPDATE (the database's clock decides, and it cannot be faked). It runs at once
// when started, gives the stock back, expires every tenant's due holds in one run, never twice
// with another sweeper beside it, and carries on after the database failed it. A gateway sweeps
// from when it is ready until it closes, neither before nor after.
import { type Database, createDatabase, createProduct, createReservation, moveCalendar, readStockLevels, recordOpeningStock, verifyStock, withTransaction, databaseToday, listStockLevels } from '@pits/persistence';
import { addDays } from '@pits/domain';
import { type TestDatabase, type TenantWorld, ageReservation, execute, executeWrite, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { Registry } from '@pits/service-runtime';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './config.js';
import { createGateway } from './create-gateway.js';
import { SWEEP_JITTER, createExpirySweeper } from './expiry-sweeper.js';

const dialects = await testDialects();

interface LogLine {
  level: number;
  msg: string;
  expired?: number;
  passes?: number;
  duration_ms?: number;
  reason?: string;
}

function capturingLogger() {
  const lines: LogLine[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) });
  return { logger, lines };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `check` until it is true; the bound only stops a broken test, it is no timing claim. */
async function until(check: () => Promise<boolean>, what: string, maxMs = 20_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`waited ${maxMs} ms for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe.each(dialects)('[%s] expiry sweeper', (dialect) => {
  let t: TestDatabase;
  let seq = 0;
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { file: true, poolSize: 8 });
  });
  afterAll(() => t.cleanup());

  const world = async () => {
    seq += 1;
    return seedTenantWorld(t.database, { openingGood: '100', label: `S${seq}` });
  };
  const hold = (w: TenantWorld, reference: string, quantity = 1) =>
    createReservation(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, reference, expiresIn: 900, items: [{ productId: w.products[0]!.id, quantity }] });
  /** Moves a hold's expiry into the past, as time passing would. */
  const age = (w: TenantWorld, number: string) => ageReservation(t.database, w.tenant.id, number);
  /** The stored status, not the one read through the clock (which is already `expired` once due). */
  const stored = async (w: TenantWorld, number: string) =>
    (await execute(t.database, t.database.db.selectFrom('reservations').select('status').where('tenant_id', '=', w.tenant.id).where('number', '=', number)))[0]?.status;
  const reserved = async (w: TenantWorld) =>
    (await readStockLevels(t.database, [{ locationId: w.locations[0].id, productId: w.products[0]!.id }])).values().next().value!.reserved.toFixed();
  /** Ledger rows the expiry wrote, per hold number. */
  const expiryLedgerRows = async (w: TenantWorld) => {
    const rows = await execute(t.database, t.database.db.selectFrom('stock_ledger').select(['cause_id', 'delta']).where('tenant_id', '=', w.tenant.id).where('actor', '=', 'system:expiry'));
    const perHold = new Map<string, number>();
    for (const row of rows) perHold.set(row.cause_id, (perHold.get(row.cause_id) ?? 0) + 1);
    return perHold;
  };

  it('runs at once when started, expires the due holds of every tenant, gives their stock back and logs what it did', async () => {
    const a = await world();
    const b = await world();
    const due = [await hold(a, 'a-1'), await hold(a, 'a-2', 2), await hold(a, 'a-3'), await hold(b, 'b-1', 4)];
    const kept = await hold(a, 'a-kept', 5);
    for (const h of due.slice(0, 3)) await age(a, h.number);
    await age(b, due[3]!.number);
    const { logger, lines } = capturingLogger();
    // A batch of 2: the run needs several passes, each taking holds of whichever tenants are due.
    const sweeper = createExpirySweeper({ database: t.database, logger, intervalMs: 3_600_000, batchSize: 2 });
    sweeper.start();
    try {
      await until(async () => lines.some((l) => l.msg === 'expiry sweep expired reservations'), 'the run that start() began');
    } finally {
      await sweeper.stop();
    }
    for (const h of due.slice(0, 3)) expect(await stored(a, h.number)).toBe('expired');
    expect(await stored(b, due[3]!.number)).toBe('expired');
    expect(await stored(a, kept.number)).toBe('active');
    expect(await reserved(a)).toBe('5');
    expect(await reserved(b)).toBe('0');
    const line = lines.find((l) => l.msg === 'expiry sweep expired reservations');
    expect(line).toMatchObject({ level: 30, expired: 4, duration_ms: expect.any(Number) });
    expect(line!.passes).toBeGreaterThanOrEqual(3);
    expect(await verifyStock(t.database, a.tenant.id)).toEqual([]);
    expect(await verifyStock(t.database, b.tenant.id)).toEqual([]);
    // Nothing due: a run expires nothing and logs nothing.
    expect(await sweeper.runOnce()).toMatchObject({ expired: 0, passes: 1, setAside: [] });
    expect(lines.filter((l) => l.msg === 'expiry sweep expired reservations')).toHaveLength(1);
  });

  it('each run announces the lots whose day boundary has come, once: a lot turning unsellable leaves available, and is logged', async () => {
    const w = await world();
    const today = await databaseToday(t.database);
    const product = await createProduct(t.database, w.tenant.id, { sku: 'LOTTED', name: 'Lotted', costPrice: '1.00', publishedPrice: '2.00', productionBatch: true, outboundExpired: 10 }, 'seed', new Date());
    // 10 days left today: sellable; tomorrow, 9 days left: short-dated from 00:00 WIB.
    await recordOpeningStock(t.database, { tenantId: w.tenant.id, locationId: w.locations[0].id, productId: product.id, good: 4, actor: 'seed', reference: 'opening', lotNumber: 'B1', expiryDate: addDays(today, 10) }, new Date());
    const { logger, lines } = capturingLogger();
    const sweeper = createExpirySweeper({ database: t.database, logger, intervalMs: 3_600_000, batchSize: 10 });
    // Its notice was due at once (fewer than 7 days before it turns unsellable).
    expect((await sweeper.runOnce()).lots).toMatchObject({ expiring: 1, unsellable: 0 });
    try {
      await moveCalendar(t.database, 1);
      const shortDated = async () => (await listStockLevels(t.database, w.tenant.id, { productIds: [product.id] }, { page: 1, perPage: 1 })).rows[0]!.shortDated.toFixed();
      expect(await shortDated()).toBe('4');
      expect((await sweeper.runOnce()).lots).toEqual({ expiring: 0, unsellable: 1 });
      expect((await sweeper.runOnce()).lots).toEqual({ expiring: 0, unsellable: 0 });
      expect(lines.filter((l) => l.msg === 'expiry sweep announced lot boundaries')).toHaveLength(2);
    } finally {
      await moveCalendar(t.database, 0);
    }
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('a hold it cannot expire is logged at error level with its number, counted, and left in the backlog gauges; the others expire', async () => {
    const w = await world();
    const other = await world();
    const bad = await hold(w, 'drifted', 3);
    const fine = await hold(other, 'fine');
    await executeWrite(t.database, t.database.db.updateTable('stock_levels').set({ reserved_for_orders: 0, reserved: 0 }).where('location_id', '=', w.locations[0].id).where('product_id', '=', w.products[0]!.id));
    await age(w, bad.number);
    await age(other, fine.number);
    const { logger, lines } = capturingLogger();
    const registry = new Registry();
    const sweeper = createExpirySweeper({ database: t.database, logger, intervalMs: 3_600_000, batchSize: 10, registry });
    const run = await sweeper.runOnce();
    expect(run.setAside.map((h) => h.number)).toContain(bad.number);
    expect(await stored(other, fine.number)).toBe('expired');
    expect(await stored(w, bad.number)).toBe('active');
    expect(lines.find((l) => l.level === 50 && (l as { reservation_number?: string }).reservation_number === bad.number)?.msg).toMatch(/set aside/);
    const text = await registry.metrics();
    expect(text).toMatch(/^pits_reservation_expiry_set_aside_total [1-9]/m);
    expect(Number(/^pits_reservations_due (\d+)/m.exec(text)?.[1])).toBeGreaterThanOrEqual(1);
    // The aged hold expired in 2000: its age is counted in years, and keeps growing between runs.
    expect(Number(/^pits_reservations_oldest_due_age_seconds (\S+)/m.exec(text)?.[1])).toBeGreaterThan(86_400);
    // Put right, it expires on the next run and the gauges fall back.
    await executeWrite(t.database, t.database.db.updateTable('stock_levels').set({ reserved_for_orders: 30_000, reserved: 30_000 }).where('location_id', '=', w.locations[0].id).where('product_id', '=', w.products[0]!.id));
    expect((await sweeper.runOnce()).setAside).toEqual([]);
    expect(await stored(w, bad.number)).toBe('expired');
    expect(await registry.metrics()).toMatch(/^pits_reservations_oldest_due_age_seconds 0$/m);
  });

  it('two sweepers at once, each on its own connections, expire each hold exactly once', async () => {
    const w = await world();
    const due = [];
    for (let i = 0; i < 30; i += 1) due.push(await hold(w, `race-${i}`));
    for (const h of due) await age(w, h.number);
    const other = t.connectAgain();
    const silent = pino({ level: 'silent' });
    const first = createExpirySweeper({ database: t.database, logger: silent, intervalMs: 3_600_000, batchSize: 4 });
    const second = createExpirySweeper({ database: other, logger: silent, intervalMs: 3_600_000, batchSize: 4 });
    const runs = await Promise.all([first.runOnce(), second.runOnce(), first.runOnce(), second.runOnce()]);
    expect(runs.reduce((sum, r) => sum + r.expired, 0)).toBe(30);
    for (const h of due) expect(await stored(w, h.number)).toBe('expired');
    const ledger = await expiryLedgerRows(w);
    expect(ledger.size).toBe(30);
    expect([...ledger.values()].every((rows) => rows === 1)).toBe(true);
    expect(await reserved(w)).toBe('0');
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('a database that fails a run is a warning, and the next run on schedule expires the hold', async () => {
    const w = await world();
    const h = await hold(w, 'outage', 3);
    await age(w, h.number);
    // The sweeper's own database gives up on a lock after 300 ms; another connection holds the hold's stock row.
    const impatient: Database = createDatabase({ ...t.config, deadlines: { statementTimeoutMs: 300, connectTimeoutMs: 1000 } });
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = withTransaction(t.database, async (tx) => {
      await executeWrite(tx, tx.db.updateTable('stock_levels').set({ updated_at: '2026-11-22T00:00:00.000Z' }).where('location_id', '=', w.locations[0].id).where('product_id', '=', w.products[0]!.id));
      locked();
      await held;
    });
    const { logger, lines } = capturingLogger();
    const sweeper = createExpirySweeper({ database: impatient, logger, intervalMs: 50, batchSize: 10 });
    // Stopped and closed whatever happens: a failure must not leave a 50 ms sweeper on the test database.
    try {
      try {
        await isLocked;
        sweeper.start();
        await until(async () => lines.some((l) => l.msg.startsWith('expiry sweep skipped')), 'the warning');
      } finally {
        release();
        await holder;
      }
      await until(async () => (await stored(w, h.number)) === 'expired', 'the hold to expire');
    } finally {
      await sweeper.stop();
      await impatient.destroy();
    }
    const warning = lines.find((l) => l.msg.startsWith('expiry sweep skipped'))!;
    expect(warning.level).toBe(40);
    expect(warning.msg).toBe('expiry sweep skipped: the database is unavailable; next run on schedule');
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
    expect(lines.some((l) => l.msg === 'expiry sweep expired reservations' && l.expired === 1)).toBe(true);
    expect(await reserved(w)).toBe('0');
    expect([...(await expiryLedgerRows(w)).values()]).toEqual([1]);
  });

  it('the gateway sweeps once it is ready, not before, and stops sweeping when it closes', async () => {
    const w = await world();
    const h = await hold(w, 'gateway');
    await age(w, h.number);
    const config = loadGatewayConfig({ CREDENTIALS_KEY: 'k'.repeat(64), GATEWAY_HOST: '127.0.0.1', GATEWAY_PORT: '0', RESERVATION_SWEEP_INTERVAL_MS: '1000' });
    // Longer than a run at once plus the first scheduled one (the interval at its most jittered).
    // A hold still active after it only says no sweep got to it: these checks can miss a stray
    // sweep that is slow, never report one that did not happen.
    const quietMs = 2 * config.reservationSweep.intervalMs;
    expect(quietMs).toBeGreaterThan(config.reservationSweep.intervalMs * (1 + SWEEP_JITTER));
    const gateway = createGateway(config, { database: t.database, ready: false, logger: pino({ level: 'silent' }) });
    try {
      await gateway.listen();
      await sleep(quietMs);
      expect(await stored(w, h.number), 'listening but not ready: no sweep').toBe('active');
      gateway.markReady();
      await until(async () => (await stored(w, h.number)) === 'expired', 'the gateway to expire the hold');
    } finally {
      await gateway.close();
    }
    expect(await reserved(w)).toBe('0');
    // Closed: a hold that falls due now stays active past the next run it would have had.
    const late = await hold(w, 'gateway-closed');
    await age(w, late.number);
    await sleep(quietMs);
    expect(await stored(w, late.number), 'closed: no sweep').toBe('active');
    expect(await reserved(w)).toBe('1');
  });
});
