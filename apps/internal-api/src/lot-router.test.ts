import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '@pits/domain';
import { databaseToday } from '@pits/persistence';
import { testDialects } from '@pits/persistence/testing';
import { type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] lots.list (docs/lots.md#internal-api-and-importer)', (dialect) => {
  let api: TestApi;
  let tenantId: string;
  let otherTenantId: string;
  let jakarta: number;
  let surabaya: number;
  let madu: number;
  let kerupuk: number;
  let today: string;
  beforeAll(async () => {
    api = await openTestApi(dialect);
    // Lot days are counted from the database's clock (WIB), not the callers' test clock.
    today = await databaseToday(api.t.database);
    tenantId = (await api.caller.tenants.create({ name: 'Honey House' })).id;
    otherTenantId = (await api.caller.tenants.create({ name: 'Someone Else' })).id;
    jakarta = (await api.caller.locations.create({ tenantId, code: 'WH-JKT', name: 'Jakarta' })).id;
    surabaya = (await api.caller.locations.create({ tenantId, code: 'WH-SBY', name: 'Surabaya' })).id;
    madu = (await api.caller.products.create({ tenantId, sku: 'MADU-500', name: 'Madu 500 g', productionBatch: true, outboundExpired: 30 })).id;
    kerupuk = (await api.caller.products.create({ tenantId, sku: 'KERUPUK', name: 'Kerupuk', productionBatch: true })).id;
    const gula = (await api.caller.products.create({ tenantId, sku: 'GULA-1KG', name: 'Gula 1 kg' })).id;
    const open = (locationId: number, productId: number, good: string, lotNumber?: string, daysLeft?: number) =>
      api.caller.stock.recordOpening({
        tenantId,
        locationId,
        productId,
        good,
        reference: 'OPEN',
        ...(lotNumber === undefined ? {} : { lotNumber }),
        ...(daysLeft === undefined ? {} : { expiryDate: addDays(today, daysLeft) }),
      });
    await open(jakarta, madu, '10', 'M-LATE', 100);
    await open(jakarta, madu, '5', 'M-SOON', 20);
    await open(surabaya, madu, '3', 'M-LATE');
    await open(jakarta, kerupuk, '7', 'K-1');
    await open(jakarta, gula, '50');
    const theirs = await api.caller.locations.create({ tenantId: otherTenantId, code: 'WH-X', name: 'Theirs' });
    const theirMadu = await api.caller.products.create({ tenantId: otherTenantId, sku: 'MADU-500', name: 'Their Madu', productionBatch: true });
    await api.caller.stock.recordOpening({ tenantId: otherTenantId, locationId: theirs.id, productId: theirMadu.id, good: '1', reference: 'OPEN', lotNumber: 'M-LATE' });
  });
  afterAll(() => api.t.cleanup());

  it("lists the tenant's lots across locations, first expiring first (lots without an expiry date last), then by lot number and location", async () => {
    const page = await api.caller.lots.list({ tenantId });
    expect(page.lots).toEqual([
      { locationId: jakarta, productId: madu, sku: 'MADU-500', lotNumber: 'M-SOON', expiryDate: addDays(today, 20), productionDate: null, good: '5', damaged: '0', reserved: '0', available: '0', daysLeft: 20, sellable: false },
      { locationId: jakarta, productId: madu, sku: 'MADU-500', lotNumber: 'M-LATE', expiryDate: addDays(today, 100), productionDate: null, good: '10', damaged: '0', reserved: '0', available: '10', daysLeft: 100, sellable: true },
      { locationId: surabaya, productId: madu, sku: 'MADU-500', lotNumber: 'M-LATE', expiryDate: addDays(today, 100), productionDate: null, good: '3', damaged: '0', reserved: '0', available: '3', daysLeft: 100, sellable: true },
      { locationId: jakarta, productId: kerupuk, sku: 'KERUPUK', lotNumber: 'K-1', expiryDate: null, productionDate: null, good: '7', damaged: '0', reserved: '0', available: '7', daysLeft: null, sellable: true },
    ]);
    expect(page.pagination).toEqual({ page: 1, perPage: 20, total: 4, lastPage: 1, from: 1, to: 4, hasMorePages: false });
    const second = await api.caller.lots.list({ tenantId, page: 2, perPage: 3 });
    expect(second.lots.map((l) => l.lotNumber)).toEqual(['K-1']);
    expect(second.pagination).toEqual({ page: 2, perPage: 3, total: 4, lastPage: 2, from: 4, to: 4, hasMorePages: false });
    expect((await api.caller.lots.list({ tenantId: otherTenantId })).lots.map((l) => [l.sku, l.lotNumber, l.good])).toEqual([['MADU-500', 'M-LATE', '1']]);
  });

  it('filters by location, product, exact SKU, expiry before a day and sellability; every filter given must match', async () => {
    const lots = async (filters: Omit<Parameters<typeof api.caller.lots.list>[0], 'tenantId'>) =>
      (await api.caller.lots.list({ tenantId, ...filters })).lots.map((l) => `${l.locationId === jakarta ? 'JKT' : 'SBY'}:${l.lotNumber}`);
    expect(await lots({ locationId: surabaya })).toEqual(['SBY:M-LATE']);
    expect(await lots({ productId: kerupuk })).toEqual(['JKT:K-1']);
    expect(await lots({ sku: 'MADU-500' })).toEqual(['JKT:M-SOON', 'JKT:M-LATE', 'SBY:M-LATE']);
    expect(await lots({ sku: 'madu-500' })).toEqual([]);
    expect(await lots({ expiringBefore: addDays(today, 100) })).toEqual(['JKT:M-SOON']);
    expect(await lots({ expiringBefore: addDays(today, 101) })).toEqual(['JKT:M-SOON', 'JKT:M-LATE', 'SBY:M-LATE']);
    expect(await lots({ sellable: false })).toEqual(['JKT:M-SOON']);
    expect(await lots({ sellable: true, locationId: jakarta })).toEqual(['JKT:M-LATE', 'JKT:K-1']);
    expect(await lots({ sellable: true, expiringBefore: addDays(today, 365), productId: madu })).toEqual(['JKT:M-LATE', 'SBY:M-LATE']);
  });

  it("a new outboundExpired on the product moves its lots' sellability at once", async () => {
    await api.caller.products.update({ tenantId, id: madu, changes: { outboundExpired: 10 } });
    try {
      expect((await api.caller.lots.list({ tenantId, sellable: false })).lots).toEqual([]);
      expect((await api.caller.lots.list({ tenantId, sku: 'MADU-500' })).lots[0]).toMatchObject({ lotNumber: 'M-SOON', available: '5', sellable: true });
    } finally {
      await api.caller.products.update({ tenantId, id: madu, changes: { outboundExpired: 30 } });
    }
    expect((await api.caller.lots.list({ tenantId, sellable: false })).lots.map((l) => l.lotNumber)).toEqual(['M-SOON']);
  });

  it('refuses bad filters on their field; an unknown tenant is NOT_FOUND on tenantId; without the token UNAUTHORIZED', async () => {
    for (const [input, field] of [
      [{ tenantId, expiringBefore: '2027-02-30' }, 'expiringBefore'],
      [{ tenantId, expiringBefore: '1899-12-31' }, 'expiringBefore'],
      [{ tenantId, sellable: 'yes' }, 'sellable'],
      [{ tenantId, perPage: 101 }, 'perPage'],
      [{ tenantId, locationId: 0 }, 'locationId'],
      [{ tenantId, lotNumber: 'M-1' }, 'lotNumber'],
    ] as const) {
      expect(await refusal(api.caller.lots.list(input as never)), field).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field });
    }
    expect(await refusal(api.caller.lots.list({ tenantId: randomUUID() }))).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'tenantId' });
    expect(await refusal(api.anonymous.lots.list({ tenantId }))).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
  });
});
