// Races and partial failures through the repository layer, on every dialect. A dialect with row
// locks runs the attempts over three separate pools (as three processes would); one whose write
// transaction holds the whole database, over its one connection, where writers take turns.
import { AppError, approveAdjustment as realDecision, dec, stockKey } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../create-database.js';
import { isCheckViolation } from '../database-errors.js';
import { findAdjustment } from '../repositories/adjustment-repository.js';
import { findLedgerMismatches } from '../repositories/stock-repository.js';
import { type TestDatabase, capabilitiesOf, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { type ApprovalDecision, approveAdjustment, createAdjustment } from './adjustment-operations.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T10:00:00.000Z');

describe.each(dialects)('[%s] adjustment concurrency', (dialect) => {
  let t: TestDatabase;
  let connections: Database[];
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    connections = capabilitiesOf(dialect).hasRowLocks ? [t.database, t.connectAgain(), t.connectAgain()] : [t.database];
  });
  afterAll(() => t.cleanup());

  async function stockAndLedger(tenantId: string) {
    const stock = await t.database.db.selectFrom('stock_levels').select(['product_id', 'good', 'damaged', 'reserved']).where('tenant_id', '=', tenantId).orderBy('product_id').execute();
    const ledger = await t.database.db.selectFrom('stock_ledger').selectAll().where('tenant_id', '=', tenantId).orderBy('id').execute();
    return { stock, ledger };
  }

  it('50 concurrent approvals of one pending increase: one approval, one stock change, one ledger row per item', async () => {
    const w = await seedTenantWorld(t.database, { products: 5, label: 'Race' });
    const adj = await createAdjustment(
      t.database,
      { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, type: 'increase', stockSource: 'good', reason: 'count', items: w.products.map((p) => ({ productId: p.id, quantity: '2.5', unitCost: 1 })) },
      NOW,
    );
    const outcomes = await Promise.allSettled(
      Array.from({ length: 50 }, (_, i) =>
        approveAdjustment(connections[i % connections.length]!, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, NOW),
      ),
    );
    const approved = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    expect(approved).toHaveLength(1);
    expect(refused).toHaveLength(49);
    expect(refused.every((e) => e instanceof AppError && e.kind === 'INVALID_STATE')).toBe(true);
    const { stock, ledger } = await stockAndLedger(w.tenant.id);
    expect(stock.map((s) => s.good)).toEqual([25000, 25000, 25000, 25000, 25000]);
    expect(ledger).toHaveLength(5);
    expect(new Set(ledger.map((l) => l.product_id)).size).toBe(5);
    expect((await findAdjustment(t.database, w.tenant.id, adj.number))?.status).toBe('approved');
    expect(await findLedgerMismatches(t.database, w.tenant.id)).toEqual([]);
  });

  it('50 concurrent creations get 50 distinct document numbers', async () => {
    const w = await seedTenantWorld(t.database, { products: 1, label: 'Numbers' });
    const created = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        createAdjustment(
          connections[i % connections.length]!,
          { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, type: 'increase', stockSource: 'good', reason: `r${i}`, items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] },
          NOW,
        ),
      ),
    );
    const numbers = created.map((a) => a.number);
    expect(new Set(numbers).size).toBe(50);
    expect([...numbers].sort()).toEqual(Array.from({ length: 50 }, (_, i) => `ADJ-20261122-${String(i + 1).padStart(6, '0')}`));
  });

  it('20 concurrent approvals of decreases that together exceed the stock never take it below zero', async () => {
    const w = await seedTenantWorld(t.database, { products: 1, openingGood: '10', label: 'Drain' });
    const adjustments = [];
    for (let i = 0; i < 20; i += 1) {
      adjustments.push(
        await createAdjustment(
          t.database,
          { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, type: 'decrease', stockSource: 'good', reason: 'shrink', items: [{ productId: w.products[0]!.id, quantity: '1.5', unitCost: 1 }] },
          NOW,
        ),
      );
    }
    const outcomes = await Promise.allSettled(
      adjustments.map((a, i) => approveAdjustment(connections[i % connections.length]!, { tenantId: w.tenant.id, number: a.number, actor: w.actor }, NOW)),
    );
    const approved = outcomes.filter((o) => o.status === 'fulfilled').length;
    expect(approved).toBe(6); // 6 x 1.5 = 9 <= 10 < 10.5
    expect(outcomes.every((o) => o.status === 'fulfilled' || (o.reason instanceof AppError && o.reason.kind === 'INSUFFICIENT_STOCK'))).toBe(true);
    const { stock } = await stockAndLedger(w.tenant.id);
    expect(stock[0]?.good).toBe(10000);
    expect(await findLedgerMismatches(t.database, w.tenant.id)).toEqual([]);
  });

  it('a database refusal in the middle of an approval (third of five stock rows) leaves nothing changed', async () => {
    const w = await seedTenantWorld(t.database, { products: 5, openingGood: '4', label: 'Fault' });
    const adj = await createAdjustment(
      t.database,
      { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, type: 'decrease', stockSource: 'good', reason: 'count', items: w.products.map((p) => ({ productId: p.id, quantity: 1, unitCost: 1 })) },
      NOW,
    );
    const before = await stockAndLedger(w.tenant.id);
    // A decision that passes the domain's checks but hands the database a third level below zero:
    // the database's CHECK is the last line of defence and must roll everything back.
    const faulty: ApprovalDecision = (adjustment, levels, now, actor) => {
      const result = realDecision(adjustment, levels, now, actor);
      if (result.ok) {
        const third = stockKey({ locationId: w.locations[0].id, productId: w.products[2]!.id });
        const level = result.value.stock.levels.get(third)!;
        result.value.stock.levels.set(third, { ...level, good: dec(-1) });
      }
      return result;
    };
    const error = await approveAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, NOW, faulty).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isCheckViolation(error)).toBe(true);
    expect(await stockAndLedger(w.tenant.id)).toEqual(before);
    expect((await findAdjustment(t.database, w.tenant.id, adj.number))?.status).toBe('pending');
    expect(await findLedgerMismatches(t.database, w.tenant.id)).toEqual([]);
  });
});
