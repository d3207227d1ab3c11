import { AppError, type ErrorKind } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCredentialCipher } from '../credential-cipher.js';
import { listInbounds } from '../repositories/inbound-repository.js';
import { findLedgerMismatches, readStockLevels } from '../repositories/stock-repository.js';
import { createWebhookEndpoint } from '../repositories/webhook-endpoint-repository.js';
import { type TestDatabase, capabilitiesOf, type TenantWorld, connectTenant, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { cancelInbound, createInbound, receiveInbound } from './inbound-operations.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T12:00:00.000Z');
const cipher = createCredentialCipher('e'.repeat(64));

async function refusal(promise: Promise<unknown>): Promise<{ kind: ErrorKind; field: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AppError) return { kind: error.kind, field: error.error.details.field };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe.each(dialects)('[%s] inbound operations', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let n = 0;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  async function shipment(quantities: string[] = ['10', '5']) {
    n += 1;
    w = await seedTenantWorld(t.database, { label: `In${n}` });
    await connectTenant(t.database, { partnerId: w.partner.id, tenantId: w.tenant.id, daysConnected: 1, installationType: 'custom' }, NOW);
    await createWebhookEndpoint(t.database, cipher, w.partner.id, { url: 'http://127.0.0.1:9/hook', eventTypes: ['inbound.status_changed'] }, NOW);
    return createInbound(t.database, {
      tenantId: w.tenant.id, locationId: w.locations[0].id, sourceType: 'purchase', sourceId: 77, sourceCode: 'PO-77', createdBy: 'ops',
      lines: quantities.map((q, i) => ({ productId: w.products[i]!.id, expectedQuantity: q })),
    }, NOW);
  }
  const receive = (id: number, receipts: { itemId?: number; sku?: string; quantity: string; condition?: 'good' | 'damaged'; gridId?: string }[], now = NOW) =>
    receiveInbound(t.database, { tenantId: w.tenant.id, id, actor: w.actor, receipts }, now);
  const good = async (productIndex: number) =>
    (await readStockLevels(t.database, [{ locationId: w.locations[0].id, productId: w.products[productIndex]!.id }])).values().next().value;

  it('creates a pending shipment numbered INB-… with its lines priced at cost', async () => {
    const s = await shipment();
    expect(s).toMatchObject({ code: 'INB-20261122-000001', status: 'pending', sourceType: 'purchase', sourceId: 77, sourceCode: 'PO-77', locationId: w.locations[0].id });
    expect(s.details.map((d) => [d.expectedQuantity.toString(), d.unitPrice.toString(), d.product.sku])).toEqual([['10', '1.5', 'SKU-1'], ['5', '2.5', 'SKU-2']]);
    expect(s.location.code).toBe('WH-JKT');
  });

  it('a partial receipt then the rest: partial, then received, stock and ledger in step, one event per change', async () => {
    const s = await shipment();
    const [a, b] = s.details.map((d) => d.id) as [number, number];
    const first = await receive(s.id, [{ itemId: a, quantity: '4' }, { itemId: b, quantity: '1', condition: 'damaged', gridId: 'G-7' }]);
    expect(first.shipment.status).toBe('partial');
    expect(first.touched).toEqual([a, b]);
    expect(first.shipment.details.map((d) => [d.receivedGood.toString(), d.receivedDamaged.toString(), d.gridId, d.receivedBy])).toEqual([['4', '0', 'RCV-01', w.partner.name], ['0', '1', 'G-7', w.partner.name]]);
    expect((await good(0))?.good.toString()).toBe('4');
    expect((await good(1))?.damaged.toString()).toBe('1');
    const second = await receive(s.id, [{ itemId: a, quantity: '6' }, { itemId: b, quantity: '4' }]);
    expect(second.shipment.status).toBe('received');
    expect(second.shipment.receivedAt).toBe(NOW.toISOString());
    expect(await findLedgerMismatches(t.database, w.tenant.id)).toEqual([]);
    const events = await t.database.db.selectFrom('event_outbox').select(['type', 'payload']).where('tenant_id', '=', w.tenant.id).orderBy('id').execute();
    expect(events.map((e) => (JSON.parse(e.payload) as { data: { status: string } }).data.status)).toEqual(['partial', 'received']);
    expect(await refusal(receive(s.id, [{ itemId: a, quantity: '1' }]))).toMatchObject({ kind: 'INVALID_STATE' });
  });

  it('refuses over-receipt and unknown items whole, naming the line', async () => {
    const s = await shipment();
    const [a] = s.details.map((d) => d.id) as [number];
    expect(await refusal(receive(s.id, [{ itemId: a, quantity: '3' }, { itemId: a, quantity: '8' }]))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[1].received_quantity' });
    expect(await refusal(receive(s.id, [{ itemId: 999_999, quantity: '1' }]))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[0].item_id' });
    expect((await good(0))?.good.toString() ?? '0').toBe('0');
    expect(await refusal(receiveInbound(t.database, { tenantId: (await seedTenantWorld(t.database, { label: `X${n}` })).tenant.id, id: s.id, actor: w.actor, receipts: [{ itemId: a, quantity: '1' }] }, NOW))).toMatchObject({ kind: 'NOT_FOUND' });
  });

  it('receives lines named by SKU; a SKU the shipment lacks, or a line named twice, is refused on that line', async () => {
    const s = await shipment();
    const [a, b] = s.details.map((d) => d.id) as [number, number];
    expect(await refusal(receive(s.id, [{ sku: 'SKU-3', quantity: '1' }]))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[0].sku' });
    expect(await refusal(receive(s.id, [{ itemId: a, quantity: '1' }, { sku: 'SKU-1', quantity: '1' }]))).toEqual({ kind: 'VALIDATION_ERROR', field: 'items[1].sku' });
    const got = await receive(s.id, [{ sku: 'SKU-2', quantity: '2' }, { itemId: a, quantity: '1' }]);
    expect(got.touched).toEqual([b, a]);
    expect(got.shipment.details.map((d) => [d.receivedGood.toString()])).toEqual([['1'], ['2']]);
    expect((await good(1))?.good.toString()).toBe('2');
  });

  it('cancels only a pending shipment', async () => {
    const s = await shipment();
    const cancelled = await cancelInbound(t.database, { tenantId: w.tenant.id, id: s.id, actor: 'ops' }, NOW);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelledAt: NOW.toISOString() });
    expect(await refusal(receive(s.id, [{ itemId: s.details[0]!.id, quantity: '1' }]))).toMatchObject({ kind: 'INVALID_STATE' });
    const other = await shipment();
    await receive(other.id, [{ itemId: other.details[0]!.id, quantity: '1' }]);
    expect(await refusal(cancelInbound(t.database, { tenantId: w.tenant.id, id: other.id, actor: 'ops' }, NOW))).toMatchObject({ kind: 'INVALID_STATE' });
  });

  it('20 concurrent receipts of the same remaining quantity never over-receive', async () => {
    const s = await shipment(['7']);
    const item = s.details[0]!.id;
    const pools = capabilitiesOf(dialect).hasRowLocks ? [t.database, t.connectAgain()] : [t.database];
    const outcomes = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => receiveInbound(pools[i % pools.length]!, { tenantId: w.tenant.id, id: s.id, actor: w.actor, receipts: [{ itemId: item, quantity: '7' }] }, NOW)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    expect((await good(0))?.good.toString()).toBe('7');
    expect(await findLedgerMismatches(t.database, w.tenant.id)).toEqual([]);
  });

  it('lists newest first with status and location filters', async () => {
    const s = await shipment();
    await createInbound(t.database, { tenantId: w.tenant.id, locationId: w.locations[1].id, sourceType: 'return', sourceId: 1, sourceCode: 'R-1', createdBy: 'ops', lines: [{ productId: w.products[0]!.id, expectedQuantity: 1 }] }, new Date(NOW.getTime() + 1000));
    const all = await listInbounds(t.database, w.tenant.id, {}, { page: 1, perPage: 10 });
    expect(all.total).toBe(2);
    expect(all.rows.map((r) => r.sourceCode)).toEqual(['R-1', 'PO-77']);
    expect((await listInbounds(t.database, w.tenant.id, { locationId: w.locations[0].id }, { page: 1, perPage: 10 })).rows.map((r) => r.id)).toEqual([s.id]);
    expect((await listInbounds(t.database, w.tenant.id, { status: 'received' }, { page: 1, perPage: 10 })).total).toBe(0);
  });
});
