// The kept list totals against the truth: after every kind of change, for every combination of
// the list filters, the total a list reports equals a real COUNT(*) of the documents; under
// concurrent writers and writes made around the repositories too (migration 014's triggers);
// rebuilt by migration 007 from documents written before it; and the pages
// found on the index are the rows a plain ORDER BY … OFFSET gives.
import { AppError } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../create-database.js';
import { migrateTo, migrateToLatest } from '../migrate.js';
import { approveAdjustment, createAdjustment, rejectAdjustment } from '../use-cases/adjustment-operations.js';
import { cancelInbound, createInbound, receiveInbound } from '../use-cases/inbound-operations.js';
import { approveTransfer, createTransfer, receiveTransfer, rejectTransfer, shipTransfer } from '../use-cases/transfer-operations.js';
import { type TenantWorld, type TestDatabase, capabilitiesOf, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { withTransaction } from '../transaction.js';
import { insertAdjustment, listAdjustments } from './adjustment-repository.js';
import { listInbounds } from './inbound-repository.js';
import { findListCountMismatches, recountListCounts, repairListCounts } from './list-count-repository.js';
import { listTransfers } from './transfer-repository.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T10:00:00.000Z');
const FIRST = { page: 1, perPage: 1 };

const ADJUSTMENT_STATUSES = [undefined, 'pending', 'approved', 'rejected'] as const;
const ADJUSTMENT_TYPES = [undefined, 'increase', 'decrease'] as const;
const TRANSFER_STATUSES = [undefined, 'pending', 'approved', 'rejected', 'in_transit', 'completed'] as const;
const INBOUND_STATUSES = [undefined, 'pending', 'partial', 'received', 'cancelled'] as const;

describe.each(dialects)('[%s] kept list totals', (dialect) => {
  let t: TestDatabase;
  let n = 0;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  const world = async (openingGood = '100') => seedTenantWorld(t.database, { openingGood, label: `L${(n += 1)}` });

  /** Every filter combination of all three lists: the list's total against a real COUNT(*). */
  async function expectTotalsAreReal(w: TenantWorld): Promise<void> {
    const { db } = t.database;
    const tenantId = w.tenant.id;
    const locations = [undefined, ...w.locations.map((l) => l.id)];
    const checks: Promise<[string, number, number]>[] = [];
    const compare = (name: string, listed: Promise<{ total: number }>, real: Promise<{ count: number | string | bigint }>) =>
      checks.push(Promise.all([listed, real]).then(([l, r]) => [name, l.total, Number(r.count)]));
    for (const status of ADJUSTMENT_STATUSES) {
      for (const locationId of locations) {
        for (const type of ADJUSTMENT_TYPES) {
          let real = db.selectFrom('adjustments').where('tenant_id', '=', tenantId);
          if (status) real = real.where('status', '=', status);
          if (locationId !== undefined) real = real.where('location_id', '=', locationId);
          if (type) real = real.where('type', '=', type);
          compare(
            `adjustments ${status}/${locationId}/${type}`,
            listAdjustments(t.database, tenantId, { status, locationId, type }, FIRST),
            real.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
          );
        }
      }
    }
    for (const status of TRANSFER_STATUSES) {
      for (const fromLocationId of locations) {
        for (const toLocationId of locations) {
          let real = db.selectFrom('transfers').where('tenant_id', '=', tenantId);
          if (status) real = real.where('status', '=', status);
          if (fromLocationId !== undefined) real = real.where('from_location_id', '=', fromLocationId);
          if (toLocationId !== undefined) real = real.where('to_location_id', '=', toLocationId);
          compare(
            `transfers ${status}/${fromLocationId}/${toLocationId}`,
            listTransfers(t.database, tenantId, { status, fromLocationId, toLocationId }, FIRST),
            real.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
          );
        }
      }
    }
    for (const status of INBOUND_STATUSES) {
      for (const locationId of locations) {
        let real = db.selectFrom('inbound_shipments').where('tenant_id', '=', tenantId);
        if (status) real = real.where('status', '=', status);
        if (locationId !== undefined) real = real.where('location_id', '=', locationId);
        compare(
          `inbound ${status}/${locationId}`,
          listInbounds(t.database, tenantId, { status, locationId }, FIRST),
          real.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
        );
      }
    }
    const compared = await Promise.all(checks);
    expect(compared).toHaveLength(4 * 3 * 3 + 6 * 3 * 3 + 5 * 3);
    expect(compared.filter(([, kept, real]) => kept !== real)).toEqual([]);
    expect(await findListCountMismatches(t.database, tenantId)).toEqual([]);
  }

  it('adjustments: create, approve, reject, a refused approval, and a stock count’s approved insert', async () => {
    const w = await world('5');
    const [a, b] = w.locations;
    const item = (quantity: string) => [{ productId: w.products[0]!.id, quantity, unitCost: 1 }];
    const create = (locationId: number, type: 'increase' | 'decrease', quantity = '1') =>
      createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId, type, stockSource: 'good', reason: 'count', items: item(quantity) }, NOW);
    const act = (number: string) => ({ tenantId: w.tenant.id, number, actor: w.actor });

    const up = await create(a.id, 'increase');
    await expectTotalsAreReal(w);
    const down = await create(b.id, 'decrease');
    const tooMuch = await create(a.id, 'decrease', '50');
    await create(b.id, 'increase');
    await expectTotalsAreReal(w);
    await approveAdjustment(t.database, act(up.number), NOW);
    await expectTotalsAreReal(w);
    await rejectAdjustment(t.database, { ...act(down.number), reason: 'double count' }, NOW);
    await expectTotalsAreReal(w);
    // A refusal rolls back: nothing moves in the totals either.
    await expect(approveAdjustment(t.database, act(tooMuch.number), NOW)).rejects.toBeInstanceOf(AppError);
    await expect(approveAdjustment(t.database, act(down.number), NOW)).rejects.toBeInstanceOf(AppError);
    await expectTotalsAreReal(w);
    // A stock count writes its differences as one adjustment inserted already approved.
    await withTransaction(t.database, (tx) =>
      insertAdjustment(
        tx,
        {
          tenant_id: w.tenant.id, partner_id: w.partner.id, number: 'ADJ-20261122-900001', location_id: b.id, type: 'decrease', stock_source: 'good',
          reason: 'stock count', status: 'approved', total_amount: '0', item_count: 0, created_by: JSON.stringify(w.actor),
          approved_at: NOW.toISOString(), approved_by: JSON.stringify(w.actor), rejected_at: null, rejected_by: null, rejection_reason: null,
          created_at: NOW.toISOString(), updated_at: NOW.toISOString(),
        },
        { id: b.id, code: b.code, name: b.name, address: b.address },
      ),
    );
    await expectTotalsAreReal(w);
    expect((await listAdjustments(t.database, w.tenant.id, { status: 'approved', locationId: b.id }, FIRST)).total).toBe(1);
  }, 60_000);

  it('transfers: create, approve, ship, receive, reject', async () => {
    const w = await world();
    const [a, b] = w.locations;
    const create = (from: number, to: number) =>
      createTransfer(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, fromLocationId: from, toLocationId: to, transferDate: '2026-11-22', items: [{ productId: w.products[0]!.id, quantity: 1 }] }, NOW);
    const act = (number: string) => ({ tenantId: w.tenant.id, number, actor: w.actor });
    const one = await create(a.id, b.id);
    const two = await create(a.id, b.id);
    await create(b.id, a.id);
    await expectTotalsAreReal(w);
    await approveTransfer(t.database, act(one.number), NOW);
    await expectTotalsAreReal(w);
    await shipTransfer(t.database, act(one.number), NOW);
    await expectTotalsAreReal(w);
    await receiveTransfer(t.database, act(one.number), NOW);
    await expectTotalsAreReal(w);
    await rejectTransfer(t.database, { ...act(two.number), reason: 'not needed' }, NOW);
    await expect(shipTransfer(t.database, act(two.number), NOW)).rejects.toBeInstanceOf(AppError);
    await expectTotalsAreReal(w);
    // A date bound is counted for real over the range, the other filters still apply.
    expect((await listTransfers(t.database, w.tenant.id, { transferDateFrom: '2026-11-22', fromLocationId: a.id }, FIRST)).total).toBe(2);
    expect((await listTransfers(t.database, w.tenant.id, { transferDateTo: '2026-11-21' }, FIRST)).total).toBe(0);
  }, 60_000);

  it('inbound: create, partial and full receipt, cancel', async () => {
    const w = await world();
    const create = (locationId: number) =>
      createInbound(t.database, { tenantId: w.tenant.id, locationId, sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: '4' }] }, NOW);
    const receive = (id: number, itemId: number, quantity: string) => receiveInbound(t.database, { tenantId: w.tenant.id, id, actor: w.actor, receipts: [{ itemId, quantity }] }, NOW);
    const one = await create(w.locations[0].id);
    const two = await create(w.locations[1].id);
    await create(w.locations[0].id);
    await expectTotalsAreReal(w);
    await receive(one.id, one.details[0]!.id, '1');
    await expectTotalsAreReal(w);
    await receive(one.id, one.details[0]!.id, '1'); // partial stays partial
    await expectTotalsAreReal(w);
    await receive(one.id, one.details[0]!.id, '2');
    await expectTotalsAreReal(w);
    await cancelInbound(t.database, { tenantId: w.tenant.id, id: two.id, actor: 'ops' }, NOW);
    await expect(receive(two.id, two.details[0]!.id, '1')).rejects.toBeInstanceOf(AppError);
    await expectTotalsAreReal(w);
  }, 60_000);

  it('concurrent creates, approvals and rejections from several connections end with the real counts', async () => {
    const w = await world('1000');
    const pools: Database[] = capabilitiesOf(dialect).hasRowLocks ? [t.database, t.connectAgain(), t.connectAgain()] : [t.database];
    const pool = (i: number) => pools[i % pools.length]!;
    const [a, b] = w.locations;
    // Every write races with the others: creations at both locations and of both types, then
    // approvals and rejections of the same documents (each decided once, the losers refused),
    // with transfers and inbound receipts in between.
    const created = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        createAdjustment(
          pool(i),
          { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: (i % 2 ? a : b).id, type: i % 3 ? 'increase' : 'decrease', stockSource: 'good', reason: `r${i}`, items: [{ productId: w.products[i % 3]!.id, quantity: 1, unitCost: 1 }] },
          NOW,
        ),
      ),
    );
    const transfers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        createTransfer(pool(i), { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, fromLocationId: a.id, toLocationId: b.id, transferDate: '2026-11-22', items: [{ productId: w.products[i % 3]!.id, quantity: 1 }] }, NOW),
      ),
    );
    const inbound = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        createInbound(pool(i), { tenantId: w.tenant.id, locationId: (i % 2 ? a : b).id, sourceType: 'purchase', sourceId: i, sourceCode: `PO-${i}`, createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: '2' }] }, NOW),
      ),
    );
    const act = (number: string) => ({ tenantId: w.tenant.id, number, actor: w.actor });
    const outcomes = await Promise.allSettled([
      ...created.flatMap((adj, i) => [
        approveAdjustment(pool(i), act(adj.number), NOW),
        rejectAdjustment(pool(i + 1), { ...act(adj.number), reason: 'race' }, NOW),
      ]),
      ...transfers.flatMap((trf, i) => [approveTransfer(pool(i), act(trf.number), NOW), rejectTransfer(pool(i + 1), { ...act(trf.number), reason: 'race' }, NOW)]),
      ...inbound.flatMap((s, i) => [
        receiveInbound(pool(i), { tenantId: w.tenant.id, id: s.id, actor: w.actor, receipts: [{ itemId: s.details[0]!.id, quantity: '1' }] }, NOW),
        receiveInbound(pool(i + 1), { tenantId: w.tenant.id, id: s.id, actor: w.actor, receipts: [{ itemId: s.details[0]!.id, quantity: '1' }] }, NOW),
        cancelInbound(pool(i + 2), { tenantId: w.tenant.id, id: s.id, actor: 'ops' }, NOW),
      ]),
    ]);
    const unexpected = outcomes.flatMap((o) => (o.status === 'rejected' && !(o.reason instanceof AppError) ? [o.reason] : []));
    expect(unexpected).toEqual([]);
    // Every adjustment and transfer was decided exactly once.
    const decided = await t.database.db.selectFrom('adjustments').select('status').where('tenant_id', '=', w.tenant.id).where('status', '=', 'pending').execute();
    expect(decided).toEqual([]);
    await expectTotalsAreReal(w);
    expect((await listAdjustments(t.database, w.tenant.id, {}, FIRST)).total).toBe(40);
  }, 60_000);

  it('counts writes made around the repositories too: the database keeps the totals (migration 014)', async () => {
    const w = await world();
    const [a, b] = w.locations;
    const adjust = () =>
      createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: a.id, type: 'increase', stockSource: 'good', reason: 'x', items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW);
    const rejected = await adjust();
    const moved = await adjust();
    const deleted = await adjust();
    await createTransfer(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, fromLocationId: a.id, toLocationId: b.id, transferDate: '2026-11-22', items: [{ productId: w.products[0]!.id, quantity: 1 }] }, NOW);
    await createInbound(t.database, { tenantId: w.tenant.id, locationId: a.id, sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: '1' }] }, NOW);
    await expectTotalsAreReal(w);
    const { db } = t.database;
    // A status change, a move to another location (a key column that is not the status), a delete,
    // and an update that leaves the key alone: each as plain SQL, as a repair script would write it.
    await db.updateTable('adjustments').set({ status: 'rejected' }).where('id', '=', rejected.id).execute();
    await db.updateTable('adjustments').set({ location_id: b.id }).where('id', '=', moved.id).execute();
    await db.updateTable('adjustments').set({ reason: 'y' }).where('id', '=', moved.id).execute();
    await db.deleteFrom('adjustment_items').where('adjustment_id', '=', deleted.id).execute();
    await db.deleteFrom('adjustments').where('id', '=', deleted.id).execute();
    await db.updateTable('transfers').set({ status: 'rejected' }).where('tenant_id', '=', w.tenant.id).execute();
    await db.updateTable('inbound_shipments').set({ status: 'cancelled' }).where('tenant_id', '=', w.tenant.id).execute();
    await expectTotalsAreReal(w);
    expect((await listAdjustments(t.database, w.tenant.id, {}, FIRST)).total).toBe(2);
    expect((await listAdjustments(t.database, w.tenant.id, { locationId: b.id }, FIRST)).total).toBe(1);
    expect((await listTransfers(t.database, w.tenant.id, { status: 'rejected' }, FIRST)).total).toBe(1);
  });

  it('repairListCounts rebuilds the counts that drifted, and findListCountMismatches names them', async () => {
    const w = await world();
    const untouched = await world();
    await createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: w.locations[0].id, type: 'increase', stockSource: 'good', reason: 'x', items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW);
    // What a process from before migration 014 would leave: its own +1 on top of the trigger's.
    await t.database.db.updateTable('adjustment_list_counts').set((eb) => ({ count: eb('count', '+', 1) })).where('tenant_id', '=', w.tenant.id).execute();
    const drift = [{ list: 'adjustments', key: { status: 'pending', location_id: w.locations[0].id, type: 'increase' }, kept: 2, actual: 1 }];
    expect(await findListCountMismatches(t.database, w.tenant.id)).toEqual(drift);
    const repair = await repairListCounts(t.database);
    expect(repair.repaired).toEqual([{ tenantId: w.tenant.id, mismatches: drift }]);
    expect(repair.tenants).toBeGreaterThanOrEqual(2);
    await expectTotalsAreReal(w);
    await expectTotalsAreReal(untouched);
    expect((await repairListCounts(t.database)).repaired).toEqual([]);
    await recountListCounts(t.database, w.tenant.id);
    await expectTotalsAreReal(w);
  });

  it('deep pages: every page equals the plain ORDER BY … LIMIT … OFFSET page, with and without filters', async () => {
    const w = await world();
    const [a, b] = w.locations;
    for (let i = 0; i < 23; i += 1) {
      const at = new Date(NOW.getTime() + (i % 4) * 1000); // equal timestamps: id breaks the tie
      await createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: (i % 3 ? a : b).id, type: i % 2 ? 'decrease' : 'increase', stockSource: 'good', reason: `p${i}`, items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, at);
      await createTransfer(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, fromLocationId: (i % 3 ? a : b).id, toLocationId: (i % 3 ? b : a).id, transferDate: '2026-11-22', items: [{ productId: w.products[0]!.id, quantity: 1 }] }, at);
      await createInbound(t.database, { tenantId: w.tenant.id, locationId: (i % 3 ? a : b).id, sourceType: 'purchase', sourceId: i, sourceCode: `PO-${i}`, createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: '1' }] }, at);
    }
    const { db } = t.database;
    const perPage = 4;
    for (let page = 1; page <= 7; page += 1) {
      const offset = (page - 1) * perPage;
      const plainAdjustments = await db.selectFrom('adjustments').select('number').where('tenant_id', '=', w.tenant.id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(perPage).offset(offset).execute();
      expect((await listAdjustments(t.database, w.tenant.id, {}, { page, perPage })).rows.map((r) => r.number)).toEqual(plainAdjustments.map((r) => r.number));
      const plainFiltered = await db.selectFrom('adjustments').select('number').where('tenant_id', '=', w.tenant.id).where('location_id', '=', a.id).where('type', '=', 'increase').orderBy('created_at', 'desc').orderBy('id', 'desc').limit(2).offset((page - 1) * 2).execute();
      expect((await listAdjustments(t.database, w.tenant.id, { locationId: a.id, type: 'increase' }, { page, perPage: 2 })).rows.map((r) => r.number)).toEqual(plainFiltered.map((r) => r.number));
      const plainTransfers = await db.selectFrom('transfers').select('number').where('tenant_id', '=', w.tenant.id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(perPage).offset(offset).execute();
      expect((await listTransfers(t.database, w.tenant.id, {}, { page, perPage })).rows.map((r) => r.number)).toEqual(plainTransfers.map((r) => r.number));
      const plainInbound = await db.selectFrom('inbound_shipments').select('id').where('tenant_id', '=', w.tenant.id).where('location_id', '=', a.id).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(perPage).offset(offset).execute();
      expect((await listInbounds(t.database, w.tenant.id, { locationId: a.id }, { page, perPage })).rows.map((r) => r.id)).toEqual(plainInbound.map((r) => r.id));
    }
    // Past the end: no rows, the total still right.
    expect(await listAdjustments(t.database, w.tenant.id, {}, { page: 99, perPage })).toEqual({ rows: [], total: 23 });
  });
});

describe.each(dialects)('[%s] migration 007 counts the documents written before it', (dialect) => {
  it('backfills every list from the rows already there', async () => {
    const t = await openTestDatabase(dialect);
    try {
      const w = await seedTenantWorld(t.database, { openingGood: '10', label: 'Before' });
      const [a, b] = w.locations;
      const adj = await createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: a.id, type: 'increase', stockSource: 'good', reason: 'x', items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW);
      await approveAdjustment(t.database, { tenantId: w.tenant.id, number: adj.number, actor: w.actor }, NOW);
      await createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: b.id, type: 'decrease', stockSource: 'good', reason: 'y', items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW);
      await createTransfer(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, fromLocationId: a.id, toLocationId: b.id, transferDate: '2026-11-22', items: [{ productId: w.products[0]!.id, quantity: 1 }] }, NOW);
      await createInbound(t.database, { tenantId: w.tenant.id, locationId: b.id, sourceType: 'purchase', sourceId: 1, sourceCode: 'PO-1', createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: '1' }] }, NOW);
      // Back to before 007 (its tables dropped, the documents kept), then forward again.
      expect((await migrateTo(t.database, '005-installation-grants')).error).toBeUndefined();
      expect((await migrateToLatest(t.database)).error).toBeUndefined();
      expect(await findListCountMismatches(t.database, w.tenant.id)).toEqual([]);
      expect((await listAdjustments(t.database, w.tenant.id, {}, FIRST)).total).toBe(2);
      expect((await listAdjustments(t.database, w.tenant.id, { status: 'approved', locationId: a.id, type: 'increase' }, FIRST)).total).toBe(1);
      expect((await listTransfers(t.database, w.tenant.id, { toLocationId: b.id }, FIRST)).total).toBe(1);
      expect((await listInbounds(t.database, w.tenant.id, { status: 'pending', locationId: b.id }, FIRST)).total).toBe(1);
      // 014's triggers went down with it and came back: a write after is counted once.
      await createAdjustment(t.database, { tenantId: w.tenant.id, partnerId: w.partner.id, actor: w.actor, locationId: b.id, type: 'decrease', stockSource: 'good', reason: 'z', items: [{ productId: w.products[0]!.id, quantity: 1, unitCost: 1 }] }, NOW);
      expect(await findListCountMismatches(t.database, w.tenant.id)).toEqual([]);
      expect((await listAdjustments(t.database, w.tenant.id, { status: 'pending' }, FIRST)).total).toBe(2);
    } finally {
      await t.cleanup();
    }
  });
});
