import { AppError } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAdjustment, createAdjustment } from '../use-cases/adjustment-operations.js';
import { type TestDatabase, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { listStockLevels, listStockMovements } from './stock-read-repository.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] stock reads', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database, { products: 3, openingGood: '5', now: new Date('2026-11-20T10:00:00.000Z') });
    await seedTenantWorld(t.database, { products: 2, openingGood: '7', label: 'Other' });
    const adj = await createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[1].id, type: 'increase', stockSource: 'damaged', reason: 'found', items: [{ productId: w.products[0]!.id, quantity: '0.5', unitCost: 1 }] }, new Date('2026-11-21T10:00:00.000Z'));
    await approveAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, new Date('2026-11-21T10:00:00.000Z'));
  });
  afterAll(() => t.cleanup());

  it("lists only the tenant's levels, with filters", async () => {
    const all = await listStockLevels(t.database, w.tenant.id, {}, { page: 1, perPage: 20 });
    expect(all.total).toBe(4);
    expect(all.rows.map((r) => [r.locationId, r.sku, r.good.toString(), r.damaged.toString()])).toEqual([
      [w.locations[0].id, 'SKU-1', '5', '0'],
      [w.locations[0].id, 'SKU-2', '5', '0'],
      [w.locations[0].id, 'SKU-3', '5', '0'],
      [w.locations[1].id, 'SKU-1', '0', '0.5'],
    ]);
    expect((await listStockLevels(t.database, w.tenant.id, { skus: ['SKU-1'] }, { page: 1, perPage: 20 })).total).toBe(2);
    expect((await listStockLevels(t.database, w.tenant.id, { skus: ['SKU-1', 'SKU-3', 'NOPE'] }, { page: 1, perPage: 20 })).rows.map((r) => r.sku)).toEqual(['SKU-1', 'SKU-3', 'SKU-1']);
    expect((await listStockLevels(t.database, w.tenant.id, { productIds: [w.products[1]!.id, w.products[2]!.id] }, { page: 1, perPage: 20 })).total).toBe(2);
    expect((await listStockLevels(t.database, w.tenant.id, { productIds: [] }, { page: 1, perPage: 20 })).total).toBe(0);
    expect((await listStockLevels(t.database, w.tenant.id, { locationId: w.locations[1].id, productIds: [w.products[0]!.id] }, { page: 1, perPage: 20 })).total).toBe(1);
  });

  it('pages the movements newest first by cursor, without gaps or repeats, with date bounds', async () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await listStockMovements(t.database, w.tenant.id, {}, { limit: 2, cursor });
      seen.push(...page.rows.map((r) => r.id));
      if (!page.nextCursor) break;
      cursor = page.nextCursor;
    }
    expect(seen).toHaveLength(4);
    expect([...seen].sort((a, b) => b - a)).toEqual(seen);
    const latest = (await listStockMovements(t.database, w.tenant.id, {}, { limit: 1 })).rows[0]!;
    expect(latest).toMatchObject({ causeType: 'adjustment', bucket: 'damaged', documentNumber: 'ADJ-20261121-000001', locationId: w.locations[1].id });
    expect([latest.before.toString(), latest.change.toString(), latest.after.toString()]).toEqual(['0', '0.5', '0.5']);
    const onlyOpening = await listStockMovements(t.database, w.tenant.id, { before: '2026-11-21T00:00:00.000Z' }, { limit: 10 });
    expect(onlyOpening.rows.every((r) => r.causeType === 'opening')).toBe(true);
    expect(onlyOpening.rows).toHaveLength(3);
    expect((await listStockMovements(t.database, w.tenant.id, { from: '2026-11-21T00:00:00.000Z', productId: w.products[0]!.id }, { limit: 10 })).rows).toHaveLength(1);
  });

  it('refuses a cursor it did not issue', async () => {
    await expect(listStockMovements(t.database, w.tenant.id, {}, { limit: 2, cursor: 'bogus' })).rejects.toBeInstanceOf(AppError);
  });
});
