// Holds the way a sale tries them (docs/holds.md): many tenants' holds falling due together, a hold
// that cannot give its stock back, several holds on one stock row in one transaction, creates that
// lock out of order against sorted lockers, one tenant's holds at the same moment, the sweep's
// query plan, and stock.verify called while holds come and go. Each test failed on the code
// before issue 27 and passes on every dialect it runs on.
import { type Dec, stockKey } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase } from '../create-database.js';
import { createCredentialCipher } from '../credential-cipher.js';
import { execute, executeWrite } from '../execution/execute.js';
import { findReservation } from '../repositories/reservation-repository.js';
import { lockStockLevels, readStockLevels } from '../repositories/stock-repository.js';
import { verifyStock } from '../repositories/stock-verification.js';
import { createWebhookEndpoint } from '../repositories/webhook-endpoint-repository.js';
import type { DialectName } from '../database-config.js';
import { type TestDatabase, type TenantWorld, ageReservation, capabilitiesOf, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { type Scope, withTransaction } from '../transaction.js';
import { consumeReservation, createReservation, expireAllDue, releaseReservation } from './reservation-operations.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T11:00:00.000Z');

/** A test database of the dialect, opened for the describe block, and the steps its tests share. */
function holdsOn(dialect: DialectName, label: string) {
  const ctx = { t: undefined as unknown as TestDatabase, seq: 0 };
  beforeAll(async () => {
    ctx.t = await openTestDatabase(dialect, { file: true, poolSize: 8 });
  });
  afterAll(() => ctx.t.cleanup());
  return {
    get t() {
      return ctx.t;
    },
    world: async (openingGood = '100', products = 5) => {
      ctx.seq += 1;
      return seedTenantWorld(ctx.t.database, { openingGood, products, label: `${label}${ctx.seq}` });
    },
    hold: (w: TenantWorld, reference: string, items: { productIndex: number; quantity: number }[] = [{ productIndex: 0, quantity: 1 }], database: Scope = ctx.t.database) =>
      createReservation(database, {
        tenantId: w.tenant.id,
        partnerId: w.partner.id,
        actor: w.actor,
        locationId: w.locations[0].id,
        reference,
        expiresIn: 900,
        items: items.map((i) => ({ productId: w.products[i.productIndex]!.id, quantity: i.quantity })),
      }),
    /** Moves a hold's expiry into the past, as time passing would. */
    age: (w: TenantWorld, number: string) => ageReservation(ctx.t.database, w.tenant.id, number),
    /** The stored status, not the one read through the clock. */
    stored: async (w: TenantWorld, number: string) =>
      (await execute(ctx.t.database, ctx.t.database.db.selectFrom('reservations').select('status').where('tenant_id', '=', w.tenant.id).where('number', '=', number)))[0]?.status,
  };
}

describe.each(dialects)('[%s] holds at a sale\'s scale', (dialect) => {
  const on = holdsOn(dialect, 'Z');
  const { world, hold, age, stored } = on;
  const levelOf = async (w: TenantWorld, productIndex: number): Promise<{ reserved: Dec; reservedForOrders: Dec }> => {
    const key = { locationId: w.locations[0].id, productId: w.products[productIndex]!.id };
    return (await readStockLevels(on.t.database, [key])).get(stockKey(key))!;
  };
  const subscribe = async (w: TenantWorld) => {
    await connectTenant(on.t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, NOW);
    await createWebhookEndpoint(on.t.database, createCredentialCipher('k'.repeat(32)), w.partner.id, { url: 'http://127.0.0.1:1/in', eventTypes: ['stock.level_changed'] }, NOW);
  };
  const levelEvents = async (w: TenantWorld) =>
    (await execute(on.t.database, on.t.database.db.selectFrom('event_outbox').select('payload').where('tenant_id', '=', w.tenant.id).where('type', '=', 'stock.level_changed').orderBy('id'))).map(
      (e) => (JSON.parse(e.payload) as { data: { product_id: string; version: number; reserved: number; cause: { id: string } } }).data,
    );

  it('one run expires every due hold, whichever tenants own them, however many', async () => {
    const tenants = await Promise.all(Array.from({ length: 12 }, () => world('10', 1)));
    const holds = [];
    for (const w of tenants) {
      const h = await hold(w, 'cart');
      await age(w, h.number);
      holds.push({ w, number: h.number });
    }
    // Batches of 5 over 12 tenants' holds: before, a pass took one tenant's holds and a run stopped at 50 passes.
    const run = await expireAllDue(on.t.database, 5);
    expect(run).toMatchObject({ expired: 12, passes: 3, setAside: [] });
    for (const { w, number } of holds) expect(await stored(w, number)).toBe('expired');
  });

  it('a hold that cannot give its stock back is set aside; every other hold still expires, run after run', async () => {
    const poisoned = await world('10', 2);
    const healthy = await world('10', 1);
    const bad = await hold(poisoned, 'drifted', [{ productIndex: 0, quantity: 3 }]);
    const fine = await hold(poisoned, 'fine', [{ productIndex: 1, quantity: 2 }]);
    const other = await hold(healthy, 'other');
    // Drift: the row keeps less for orders than the hold holds (what stock.verify exists to report).
    const row = { locationId: poisoned.locations[0].id, productId: poisoned.products[0]!.id };
    await executeWrite(on.t.database, on.t.database.db.updateTable('stock_levels').set({ reserved: 10_000, reserved_for_orders: 10_000 }).where('location_id', '=', row.locationId).where('product_id', '=', row.productId));
    for (const [w, h] of [[poisoned, bad], [poisoned, fine], [healthy, other]] as const) await age(w, h.number);
    // The drifted hold comes first in expiry order: before, its failure rolled back every pass.
    await executeWrite(on.t.database, on.t.database.db.updateTable('reservations').set({ expires_at: '1999-01-01T00:00:00.000Z' }).where('tenant_id', '=', poisoned.tenant.id).where('number', '=', bad.number));
    for (let run = 0; run < 2; run += 1) {
      const swept = await expireAllDue(on.t.database, 100);
      expect(swept.setAside.filter((s) => s.tenantId === poisoned.tenant.id).map((s) => s.number)).toEqual([bad.number]);
      expect(swept.setAside[0]!.reason).toMatch(/insufficient stock/);
    }
    expect(await stored(poisoned, bad.number)).toBe('active');
    expect(await stored(poisoned, fine.number)).toBe('expired');
    expect(await stored(healthy, other.number)).toBe('expired');
    expect((await levelOf(poisoned, 1)).reservedForOrders.toFixed()).toBe('0');
    // stock.verify lists the drifted row with the hold, and nothing else of either tenant.
    expect((await verifyStock(on.t.database, poisoned.tenant.id)).find((d) => d.check === 'reserved_for_orders')).toMatchObject({ productId: row.productId, reservations: [bad.number] });
    expect((await verifyStock(on.t.database, poisoned.tenant.id)).every((d) => d.productId === row.productId)).toBe(true);
    expect(await verifyStock(on.t.database, healthy.tenant.id)).toEqual([]);
  });

  it('a sweep of many holds on one row writes one stock.level_changed per row, with one version step', async () => {
    const w = await world('100', 2);
    await subscribe(w);
    const holds = [];
    for (let i = 0; i < 6; i += 1) holds.push(await hold(w, `cart-${i}`, [{ productIndex: 0, quantity: 1 }, { productIndex: 1, quantity: 2 }]));
    const before = await levelEvents(w);
    for (const h of holds) await age(w, h.number);
    expect((await expireAllDue(on.t.database, 100)).expired).toBe(6);
    const swept = (await levelEvents(w)).slice(before.length);
    expect(swept.map((e) => [e.product_id, e.reserved]).sort()).toEqual([
      [String(w.products[0]!.id), 0],
      [String(w.products[1]!.id), 0],
    ]);
    const lastBefore = new Map(before.map((e) => [e.product_id, e.version]));
    for (const e of swept) expect(e.version).toBe(lastBefore.get(e.product_id)! + 1);
    expect(await verifyStock(on.t.database, w.tenant.id)).toEqual([]);
  });

  it('a create that ends its reference\'s earlier hold writes one event per row, not one per hold', async () => {
    const w = await world('100', 2);
    await subscribe(w);
    const first = await hold(w, 'order-9', [{ productIndex: 0, quantity: 4 }]);
    await age(w, first.number);
    const before = (await levelEvents(w)).length;
    const again = await hold(w, 'order-9', [{ productIndex: 0, quantity: 1 }]);
    const events = (await levelEvents(w)).slice(before);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ product_id: String(w.products[0]!.id), reserved: 1, cause: { id: again.number } });
    expect(await stored(w, first.number)).toBe('expired');
    expect(await verifyStock(on.t.database, w.tenant.id)).toEqual([]);
  });

  it('an expired hold reads the same before and after the sweep: released and updated at its expires_at', async () => {
    const w = await world('10', 1);
    const h = await hold(w, 'late');
    await age(w, h.number);
    const before = await findReservation(on.t.database, w.tenant.id, h.number);
    expect(before).toMatchObject({ status: 'expired', releasedAt: before!.expiresAt, updatedAt: before!.expiresAt });
    await expireAllDue(on.t.database);
    expect(await stored(w, h.number)).toBe('expired');
    expect(await findReservation(on.t.database, w.tenant.id, h.number)).toEqual(before);
  });

  it('stock.verify finds nothing while holds are created, consumed and released beside it', async () => {
    const w = await world('1000', 4);
    // Verify reads through connections of its own, as the internal API does beside the gateway.
    const reader = on.t.connectAgain();
    let stop = false;
    const traffic = async (worker: number) => {
      for (let i = 0; i < 25 && !stop; i += 1) {
        const h = await hold(w, `v-${worker}-${i}`, [{ productIndex: worker % 4, quantity: 1 }, { productIndex: (worker + 1) % 4, quantity: 2 }]);
        const act = { tenantId: w.tenant.id, number: h.number, actor: w.actor };
        await (i % 2 === 0 ? consumeReservation(on.t.database, act) : releaseReservation(on.t.database, act));
      }
    };
    const checks: number[] = [];
    const verifying = (async () => {
      while (!stop) checks.push((await verifyStock(reader, w.tenant.id)).length);
    })();
    try {
      await Promise.all([0, 1, 2, 3].map(traffic));
    } finally {
      stop = true;
      await verifying;
    }
    expect(checks.length).toBeGreaterThan(0);
    expect(checks.filter((found) => found > 0)).toEqual([]);
    expect(await verifyStock(on.t.database, w.tenant.id)).toEqual([]);
  });

  it('the sweep reads the expiry index as a range', async () => {
    const plan: { sql: string; parameters: readonly unknown[] }[] = [];
    const probe = createDatabase(on.t.config, {
      onQuery: (text, parameters) => {
        if (/from "reservations"/.test(text) && /"expires_at" <=/.test(text) && /limit/.test(text)) plan.push({ sql: text, parameters });
      },
    });
    try {
      await expireAllDue(probe, 10);
    } finally {
      await probe.destroy();
    }
    const { range, plan: explained } = await withTransaction(on.t.database, (tx) => tx.dialect.testing.planReadsIndexRange(tx, plan[0]!, 'reservations_expiry_idx'));
    expect(range, explained).toBe(true);
  });
});

// Where several connections write at once and wait for each other per row (one writer holds the
// whole database elsewhere, so these questions do not arise there).
describe.each(dialects.filter((d) => capabilitiesOf(d).hasRowLocks))('[%s] holds beside each other, per row', (dialect) => {
  const on = holdsOn(dialect, 'Y');
  const { world, hold, age, stored } = on;

  it('one tenant\'s holds on other products do not wait for each other\'s transactions', async () => {
    const w = await world('100', 2);
    const other = on.t.connectAgain();
    let second: string | undefined;
    await withTransaction(on.t.database, async (tx) => {
      await hold(w, 'first', [{ productIndex: 0, quantity: 1 }], tx);
      // Still inside the first hold's transaction: before, the tenant's number row waited for it.
      second = (await hold(w, 'second', [{ productIndex: 1, quantity: 1 }], other)).number;
    });
    expect(second).toMatch(/^RSV-/);
    expect(await verifyStock(on.t.database, w.tenant.id)).toEqual([]);
  });

  it('a create that ends an earlier hold locks its rows in one sorted statement: no deadlock beside a sorted locker', async () => {
    const w = await world('100', 2);
    // The earlier hold of the reference is on the higher product, the new one on the lower.
    const earlier = await hold(w, 'order-7', [{ productIndex: 1, quantity: 1 }]);
    await age(w, earlier.number);
    const deadlocks: unknown[] = [];
    const creator = createDatabase(on.t.config, { onQueryError: (error) => void ((error as { code?: string }).code === '40P01' && deadlocks.push(error)) });
    const locker = createDatabase(on.t.config, { onQueryError: (error) => void ((error as { code?: string }).code === '40P01' && deadlocks.push(error)) });
    const keys = [0, 1].map((i) => ({ locationId: w.locations[0].id, productId: w.products[i]!.id }));
    const waiters = () => on.t.database.dialect.testing.lockWaiters(on.t.database);
    const until = async (n: number) => {
      for (let i = 0; i < 400 && (await waiters()) < n; i += 1) await new Promise((resolve) => setTimeout(resolve, 25));
    };
    let proceed!: () => void;
    const goOn = new Promise<void>((resolve) => (proceed = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    try {
      // A sorted locker takes the lower row, and the higher one only once the create waits. Before,
      // the create had locked the earlier hold's (higher) row first, then waited for the lower: a
      // deadlock, cut after a second and retried. Now it asks for both at once, in order, and
      // waits for the lower holding nothing.
      const sorted = withTransaction(locker, async (tx) => {
        await lockStockLevels(tx, w.tenant.id, [keys[0]!], NOW);
        locked();
        await goOn;
        await lockStockLevels(tx, w.tenant.id, [keys[1]!], NOW);
      });
      await isLocked;
      const created = hold(w, 'order-7', [{ productIndex: 0, quantity: 1 }], creator);
      await until(1);
      proceed();
      await Promise.all([sorted, created]);
    } finally {
      proceed();
      await creator.destroy();
      await locker.destroy();
    }
    expect(deadlocks).toEqual([]);
    expect(await stored(w, earlier.number)).toBe('expired');
    expect(await verifyStock(on.t.database, w.tenant.id)).toEqual([]);
  });
});
