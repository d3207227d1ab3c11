// The two projections of an adjustment row: a list page reads summaries (what the list shows,
// without the actors' JSON), a detail reads the whole record; the fields they share agree.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approveAdjustment, createAdjustment, rejectAdjustment } from '../operations/adjustment-operations.js';
import { type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { findAdjustmentRecord, listAdjustments } from './adjustment-repository.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T10:00:00.000Z');

describe.each(dialects)('[%s] adjustment projections', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('a list page holds every field of the detail record but the actors, which it never parses', async () => {
    const w = await seedTenantWorld(t.database, { openingGood: '10', label: 'projections' });
    const [a] = w.locations;
    const create = (type: 'increase' | 'decrease') =>
      createAdjustment(
        t.database,
        { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: a!.id, type, stockSource: 'good', reason: 'count', items: [{ productId: w.products[0]!.id, quantity: '1.5', unitCost: 2 }] },
        NOW,
      );
    const approved = await create('increase');
    const rejected = await create('decrease');
    await create('increase');
    await approveAdjustment(t.database, { tenantId: w.tenant.id, number: approved.number, actor: w.actor }, NOW);
    await rejectAdjustment(t.database, { tenantId: w.tenant.id, number: rejected.number, actor: w.actor, reason: 'miscounted' }, NOW);

    const { rows, total } = await listAdjustments(t.database, w.tenant.id, {}, { page: 1, perPage: 10 });
    expect(total).toBe(3);
    expect(rows.map((r) => r.status).sort()).toEqual(['approved', 'pending', 'rejected']);
    for (const row of rows) {
      expect(Object.keys(row).filter((key) => ['createdBy', 'approvedBy', 'rejectedBy'].includes(key)), row.number).toEqual([]);
      const { createdBy, approvedBy, rejectedBy, ...shared } = (await findAdjustmentRecord(t.database, w.tenant.id, row.number))!;
      expect(createdBy).toEqual(w.actor);
      expect(row).toEqual(shared);
    }
  });
});
