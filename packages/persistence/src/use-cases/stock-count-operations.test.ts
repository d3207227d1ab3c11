// Stock counts through the repository layer, on every dialect: the compare-and-set, the approved
// adjustment it writes, and races between counts made from the same read.
import { AppError, type ErrorKind } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../create-database.js';
import { createCredentialCipher } from '../credential-cipher.js';
import { createWebhookEndpoint } from '../repositories/webhook-endpoint-repository.js';
import { findAdjustment, listAdjustments } from '../repositories/adjustment-repository.js';
import { findLedgerMismatches, readStockLevels } from '../repositories/stock-repository.js';
import { type TestDatabase, type TenantWorld, capabilitiesOf, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { type StockCountInput, recordStockCount } from './adjustment-operations.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-23T08:00:00.000Z');

async function refusal(promise: Promise<unknown>): Promise<{ kind: ErrorKind; field: string; message: string; issues?: unknown }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { kind: error.kind, field: error.error.details.field, message: error.message, issues: error.error.issues };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(dialects)('[%s] stock counts', (dialect) => {
  let t: TestDatabase;
  let connections: Database[];
  let n = 0;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    connections = capabilitiesOf(dialect).hasRowLocks ? [t.database, t.connectAgain(), t.connectAgain()] : [t.database];
  });
  afterAll(() => t.cleanup());

  /** A tenant with 10 good of each of 3 products at its first location. */
  async function world(): Promise<TenantWorld> {
    n += 1;
    return seedTenantWorld(t.database, { products: 3, openingGood: '10', label: `Count${n}` });
  }
  const count = (w: TenantWorld, items: StockCountInput['items'], stockSource: 'good' | 'damaged' = 'good'): StockCountInput => ({
    tenantId: w.tenant.id,
    partnerId: w.partner.id,
    actor: w.actor,
    locationId: w.locations[0].id,
    stockSource,
    items,
  });
  const good = async (w: TenantWorld) => {
    const levels = await readStockLevels(t.database, w.products.map((p) => ({ locationId: w.locations[0].id, productId: p.id })));
    return w.products.map((p) => levels.get(`${w.locations[0].id}:${p.id}`)?.good.toString());
  };
  const events = (w: TenantWorld) => t.database.db.selectFrom('event_outbox').select(['type', 'payload']).where('tenant_id', '=', w.tenant.id).orderBy('id').execute();

  it('writes the differences as one approved adjustment: a line per changed product with its own sign, ledger rows, one event', async () => {
    const w = await world();
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, NOW);
    await createWebhookEndpoint(t.database, createCredentialCipher('e'.repeat(64)), w.partner.id, { url: 'http://127.0.0.1:9/hook', eventTypes: ['adjustment.status_changed'] }, NOW);
    const [a, b, c] = w.products as [TenantWorld['products'][0], TenantWorld['products'][0], TenantWorld['products'][0]];
    const { adjustment, levels } = await recordStockCount(t.database, count(w, [
      { productId: a.id, counted: 12, expected: 10 },
      { sku: b.sku, counted: '7.5', expected: '10' },
      { productId: c.id, counted: 10, expected: null },
    ]), NOW);
    expect(adjustment).toMatchObject({ status: 'approved', reason: 'stock count', type: 'decrease', stockSource: 'good', itemCount: 2, approvedBy: w.actor, approvedAt: NOW.toISOString() });
    expect(adjustment.items.map((i) => [i.productId, i.sku, i.type, i.quantity.toString(), i.unitCost.toString(), i.totalCost.toString()])).toEqual([
      [a.id, a.sku, 'increase', '2', '1.5', '3'],
      [b.id, b.sku, 'decrease', '2.5', '2.5', '6.25'],
    ]);
    expect(adjustment.totalAmount.toString()).toBe('9.25');
    expect([...levels.values()].map((l) => l.good.toString())).toEqual(['12', '7.5', '10']);
    expect(await good(w)).toEqual(['12', '7.5', '10']);
    expect(await findLedgerMismatches(t.database, w.tenant.id)).toEqual([]);
    const stored = await findAdjustment(t.database, w.tenant.id, adjustment.number);
    expect(stored?.items.map((i) => i.type)).toEqual(['increase', 'decrease']);
    const ledger = await t.database.db.selectFrom('stock_ledger').select(['product_id', 'delta', 'document_number']).where('cause_id', '=', adjustment.number).where('tenant_id', '=', w.tenant.id).orderBy('product_id').execute();
    expect(ledger).toEqual([
      { product_id: a.id, delta: 20000, document_number: adjustment.number },
      { product_id: b.id, delta: -25000, document_number: adjustment.number },
    ]);
    const sent = await events(w);
    expect(sent.map((e) => [e.type, (JSON.parse(e.payload) as { data: { status: string; adjustment_number: string } }).data])).toEqual([
      ['adjustment.status_changed', { adjustment_number: adjustment.number, previous_status: 'pending', status: 'approved' }],
    ]);
  });

  it('refuses the whole count with STALE_QUANTITY naming every stale line, and writes nothing', async () => {
    const w = await world();
    const refused = await refusal(recordStockCount(t.database, count(w, [
      { productId: w.products[0]!.id, counted: 3, expected: 9 },
      { productId: w.products[1]!.id, counted: 3, expected: 10 },
      { productId: w.products[2]!.id, counted: 3, expected: 11 },
    ]), NOW));
    expect(refused).toMatchObject({ kind: 'STALE_QUANTITY', field: 'items[0].expected' });
    expect(refused.issues).toEqual([
      { field: 'items[0].expected', issue: 'is 9 but the current quantity is 10' },
      { field: 'items[2].expected', issue: 'is 11 but the current quantity is 10' },
    ]);
    expect(await good(w)).toEqual(['10', '10', '10']);
    expect((await listAdjustments(t.database, w.tenant.id, {}, { page: 1, perPage: 10 })).total).toBe(0);
    expect(await events(w)).toEqual([]);
  });

  it('counts a bucket with no stock row as 0, and the damaged bucket on its own', async () => {
    const w = await world();
    const { adjustment } = await recordStockCount(t.database, count(w, [{ productId: w.products[0]!.id, counted: 2, expected: 0 }], 'damaged'), NOW);
    expect(adjustment).toMatchObject({ type: 'increase', stockSource: 'damaged' });
    const other = { ...count(w, [{ productId: w.products[1]!.id, counted: 4, expected: 0 }]), locationId: w.locations[1].id };
    expect((await recordStockCount(t.database, other, NOW)).adjustment.items[0]!.quantity.toString()).toBe('4');
    expect(await good(w)).toEqual(['10', '10', '10']);
  });

  it('refuses a count that changes nothing (422), an unknown SKU on its line, and a good count below what is reserved', async () => {
    const w = await world();
    expect(await refusal(recordStockCount(t.database, count(w, [{ productId: w.products[0]!.id, counted: 10, expected: 10 }]), NOW))).toMatchObject({
      kind: 'VALIDATION_ERROR',
      message: 'the count matches the stock',
    });
    expect(await refusal(recordStockCount(t.database, count(w, [{ productId: w.products[0]!.id, counted: 1, expected: 10 }, { sku: 'NOPE', counted: 1, expected: null }]), NOW))).toMatchObject({
      kind: 'VALIDATION_ERROR',
      field: 'items[1].sku',
    });
    await t.database.db.updateTable('stock_levels').set({ reserved: 40000 }).where('tenant_id', '=', w.tenant.id).where('product_id', '=', w.products[2]!.id).execute();
    expect(await refusal(recordStockCount(t.database, count(w, [{ productId: w.products[2]!.id, counted: 3, expected: 10 }]), NOW))).toMatchObject({
      kind: 'INSUFFICIENT_STOCK',
      field: 'items[0].counted',
    });
    expect(await good(w)).toEqual(['10', '10', '10']);
  });

  it('two counts from the same read at once: exactly one passes, the other is STALE_QUANTITY, and the stock is the winner\'s count', async () => {
    for (let round = 0; round < 5; round += 1) {
      const w = await world();
      const product = w.products[0]!;
      const outcomes = await Promise.allSettled(
        [4, 6].map((counted, i) => recordStockCount(connections[i % connections.length]!, count(w, [{ productId: product.id, counted, expected: 10 }]), NOW)),
      );
      const passed = outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []));
      const refused = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : []));
      expect(passed).toHaveLength(1);
      expect(refused).toHaveLength(1);
      expect(refused[0]).toBeInstanceOf(AppError);
      expect((refused[0] as AppError).kind).toBe('STALE_QUANTITY');
      const winner = passed[0]!.adjustment.items[0]!;
      const expectedGood = winner.type === 'decrease' ? 10 - Number(winner.quantity) : 10 + Number(winner.quantity);
      expect((await good(w))[0]).toBe(String(expectedGood));
      expect(await findLedgerMismatches(t.database, w.tenant.id)).toEqual([]);
    }
  });

  it('ten concurrent counts from the same read over several connections: one adjustment, the rest stale', async () => {
    const w = await world();
    const product = w.products[1]!;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 10 }, (_, i) => recordStockCount(connections[i % connections.length]!, count(w, [{ sku: product.sku, counted: i + 11, expected: 10 }]), NOW)),
    );
    const passed = outcomes.filter((o) => o.status === 'fulfilled');
    expect(passed).toHaveLength(1);
    const counted = 11 + outcomes.findIndex((o) => o.status === 'fulfilled');
    expect((await good(w))[1]).toBe(String(counted));
    expect((await listAdjustments(t.database, w.tenant.id, {}, { page: 1, perPage: 20 })).total).toBe(1);
  });
});
