import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays } from '@pits/domain';
import { databaseToday } from '@pits/persistence';
import { testDialects } from '@pits/persistence/testing';
import { TEST_NOW, type TestApi, openTestApi, refusal } from './testing/test-api.js';

const dialects = await testDialects();

describe.each(dialects)('[%s] stock', (dialect) => {
  let api: TestApi;
  let clock = TEST_NOW.getTime();
  let tenantId: string;
  let otherTenantId: string;
  let jakarta: number;
  let surabaya: number;
  let kopi: number;
  let teh: number;
  let foreignLocation: number;
  let foreignProduct: number;
  beforeAll(async () => {
    api = await openTestApi(dialect, { now: () => new Date(clock) });
    tenantId = (await api.caller.tenants.create({ name: 'Coffee Roaster' })).id;
    otherTenantId = (await api.caller.tenants.create({ name: 'Someone Else' })).id;
    jakarta = (await api.caller.locations.create({ tenantId, code: 'WH-JKT', name: 'Jakarta' })).id;
    surabaya = (await api.caller.locations.create({ tenantId, code: 'WH-SBY', name: 'Surabaya' })).id;
    kopi = (await api.caller.products.create({ tenantId, sku: 'KOPI-250', name: 'Kopi 250 g' })).id;
    teh = (await api.caller.products.create({ tenantId, sku: 'TEH-100', name: 'Teh 100 g' })).id;
    foreignLocation = (await api.caller.locations.create({ tenantId: otherTenantId, code: 'WH-X', name: 'Theirs' })).id;
    foreignProduct = (await api.caller.products.create({ tenantId: otherTenantId, sku: 'KOPI-250', name: 'Their Kopi' })).id;
  });
  afterAll(() => api.t.cleanup());

  it('records opening stock; the levels show it and the ledger shows opening rows', async () => {
    const level = await api.caller.stock.recordOpening({ tenantId, locationId: jakarta, productId: kopi, good: '10.5', damaged: 2, reference: 'STOCK-TAKE-2026-11' });
    expect(level).toEqual({
      locationId: jakarta,
      productId: kopi,
      sku: 'KOPI-250',
      productName: 'Kopi 250 g',
      good: '10.5',
      damaged: '2',
      reserved: '0',
      reservedForTransfers: '0',
      reservedForOrders: '0',
      available: '10.5',
      version: 1,
    });
    const levels = await api.caller.stock.levels({ tenantId });
    expect(levels.levels).toEqual([level]);
    expect(levels.pagination).toMatchObject({ page: 1, perPage: 20, total: 1 });
    const ledger = await api.caller.stock.ledger({ tenantId, locationId: jakarta, productId: kopi });
    expect(ledger.nextCursor).toBeNull();
    expect(ledger.movements.map((m) => [m.bucket, m.before, m.change, m.after]).sort()).toEqual([
      ['damaged', '0', '2', '2'],
      ['good', '0', '10.5', '10.5'],
    ]);
    for (const m of ledger.movements) {
      expect(m).toMatchObject({ locationId: jakarta, productId: kopi, sku: 'KOPI-250', causeType: 'opening', causeId: 'STOCK-TAKE-2026-11', documentNumber: null, actor: 'internal-api', occurredAt: TEST_NOW.toISOString() });
    }
  });

  it('a second count adds to the first; the ledger pages newest first by cursor', async () => {
    clock += 60_000;
    const level = await api.caller.stock.recordOpening({ tenantId, locationId: jakarta, productId: kopi, good: 0.1, reference: 'RECOUNT' });
    expect(level).toMatchObject({ good: '10.6', damaged: '2', available: '10.6', version: 2 });
    const first = await api.caller.stock.ledger({ tenantId, locationId: jakarta, productId: kopi, limit: 1 });
    expect(first.movements).toHaveLength(1);
    expect(first.movements[0]).toMatchObject({ bucket: 'good', before: '10.5', change: '0.1', after: '10.6', causeId: 'RECOUNT', occurredAt: new Date(clock).toISOString() });
    expect(first.nextCursor).toEqual(expect.any(String));
    const seen = [...first.movements];
    let cursor = first.nextCursor;
    while (cursor !== null) {
      const page = await api.caller.stock.ledger({ tenantId, locationId: jakarta, productId: kopi, limit: 1, cursor });
      seen.push(...page.movements);
      cursor = page.nextCursor;
    }
    const ids = seen.map((m) => m.id);
    expect(ids).toHaveLength(3);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(await refusal(api.caller.stock.ledger({ tenantId, locationId: jakarta, productId: kopi, cursor: 'not-a-cursor' }))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'cursor' });
  });

  it('levels filter by location, product and exact sku, page by location then product, and never show another tenant', async () => {
    await api.caller.stock.recordOpening({ tenantId, locationId: surabaya, productId: kopi, good: '4', reference: 'OPEN' });
    await api.caller.stock.recordOpening({ tenantId, locationId: jakarta, productId: teh, damaged: '1.2345', reference: 'OPEN' });
    await api.caller.stock.recordOpening({ tenantId: otherTenantId, locationId: foreignLocation, productId: foreignProduct, good: '99', reference: 'OPEN' });
    const all = await api.caller.stock.levels({ tenantId });
    expect(all.levels.map((l) => [l.locationId, l.sku, l.good, l.damaged])).toEqual([
      [jakarta, 'KOPI-250', '10.6', '2'],
      [jakarta, 'TEH-100', '0', '1.2345'],
      [surabaya, 'KOPI-250', '4', '0'],
    ]);
    expect((await api.caller.stock.levels({ tenantId, sku: 'KOPI-250' })).levels.map((l) => l.locationId)).toEqual([jakarta, surabaya]);
    expect((await api.caller.stock.levels({ tenantId, locationId: surabaya })).levels.map((l) => l.productId)).toEqual([kopi]);
    expect((await api.caller.stock.levels({ tenantId, productId: teh })).levels.map((l) => l.damaged)).toEqual(['1.2345']);
    expect((await api.caller.stock.levels({ tenantId, sku: 'NOPE' })).levels).toEqual([]);
    const page2 = await api.caller.stock.levels({ tenantId, page: 2, perPage: 2 });
    expect(page2.levels.map((l) => l.locationId)).toEqual([surabaya]);
    expect(page2.pagination).toEqual({ page: 2, perPage: 2, total: 3, lastPage: 2, from: 3, to: 3, hasMorePages: false });
    expect((await api.caller.stock.levels({ tenantId: otherTenantId })).levels.map((l) => l.good)).toEqual(['99']);
  });

  it("refuses another tenant's location or product with BAD_REQUEST on that field, and writes nothing", async () => {
    const before = await api.caller.stock.levels({ tenantId, perPage: 100 });
    expect(await refusal(api.caller.stock.recordOpening({ tenantId, locationId: foreignLocation, productId: kopi, good: 1, reference: 'X' }))).toMatchObject({
      code: 'BAD_REQUEST',
      kind: 'VALIDATION_ERROR',
      field: 'locationId',
    });
    expect(await refusal(api.caller.stock.recordOpening({ tenantId, locationId: jakarta, productId: foreignProduct, good: 1, reference: 'X' }))).toMatchObject({
      code: 'BAD_REQUEST',
      kind: 'VALIDATION_ERROR',
      field: 'productId',
    });
    expect(await refusal(api.caller.stock.recordOpening({ tenantId, locationId: jakarta, productId: 999_999, good: 1, reference: 'X' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'productId' });
    expect(await refusal(api.caller.stock.ledger({ tenantId, locationId: foreignLocation, productId: kopi }))).toMatchObject({ code: 'BAD_REQUEST', field: 'locationId' });
    expect(await refusal(api.caller.stock.ledger({ tenantId, locationId: jakarta, productId: foreignProduct }))).toMatchObject({ code: 'BAD_REQUEST', field: 'productId' });
    expect(await api.caller.stock.levels({ tenantId, perPage: 100 })).toEqual(before);
    expect((await api.caller.stock.levels({ tenantId: otherTenantId })).levels.map((l) => l.good)).toEqual(['99']);
  });

  it('refuses quantities that are absent, not above zero or too precise, naming the field', async () => {
    const base = { tenantId, locationId: jakarta, productId: kopi, reference: 'X' };
    expect(await refusal(api.caller.stock.recordOpening(base))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'good' });
    expect(await refusal(api.caller.stock.recordOpening({ ...base, good: 0 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'good' });
    expect(await refusal(api.caller.stock.recordOpening({ ...base, damaged: '-1' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'damaged' });
    expect(await refusal(api.caller.stock.recordOpening({ ...base, good: '1.23456' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'good' });
    expect(await refusal(api.caller.stock.recordOpening({ ...base, good: 'ten' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'good' });
    expect(await refusal(api.caller.stock.recordOpening({ ...base, good: 1, reference: ' ' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'reference' });
    expect(await refusal(api.caller.stock.levels({ tenantId, perPage: 0 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'perPage' });
    expect(await refusal(api.caller.stock.ledger({ tenantId, locationId: jakarta, productId: kopi, limit: 101 }))).toMatchObject({ code: 'BAD_REQUEST', field: 'limit' });
  });

  it('an unknown tenant is NOT_FOUND on tenantId', async () => {
    const ghost = randomUUID();
    for (const call of [
      () => api.caller.stock.recordOpening({ tenantId: ghost, locationId: jakarta, productId: kopi, good: 1, reference: 'X' }),
      () => api.caller.stock.levels({ tenantId: ghost }),
      () => api.caller.stock.ledger({ tenantId: ghost, locationId: jakarta, productId: kopi }),
      () => api.caller.stock.checkLedger({ tenantId: ghost }),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'NOT_FOUND', kind: 'NOT_FOUND', field: 'tenantId' });
    }
  });

  it('checkLedger and verify report balanced books, and name the stock row whose balance drifted from its ledger', async () => {
    expect(await api.caller.stock.checkLedger()).toEqual({ balanced: true, mismatches: [] });
    expect(await api.caller.stock.verify()).toEqual([]);
    expect(await api.caller.stock.checkLedger({ tenantId })).toEqual({ balanced: true, mismatches: [] });
    const db = api.t.database.db;
    // A balance changed behind the ledger's back (what the check exists to catch).
    await db.updateTable('stock_levels').set({ good: 50_000 }).where('location_id', '=', surabaya).where('product_id', '=', kopi).execute();
    try {
      const drifted = { balanced: false, mismatches: [{ locationId: surabaya, productId: kopi, bucket: 'good', balance: '5', ledgerSum: '4' }] };
      expect(await api.caller.stock.checkLedger({ tenantId })).toEqual(drifted);
      expect(await api.caller.stock.checkLedger()).toEqual(drifted);
      expect(await api.caller.stock.checkLedger({ tenantId: otherTenantId })).toEqual({ balanced: true, mismatches: [] });
      const verified = [{ tenantId, locationId: surabaya, productId: kopi, check: 'ledger_good', recorded: '5', expected: '4' }];
      expect(await api.caller.stock.verify({ tenantId })).toEqual(verified);
      expect(await api.caller.stock.verify()).toEqual(verified);
      expect(await api.caller.stock.verify({ tenantId: otherTenantId })).toEqual([]);
    } finally {
      await db.updateTable('stock_levels').set({ good: 40_000 }).where('location_id', '=', surabaya).where('product_id', '=', kopi).execute();
    }
    expect((await api.caller.stock.checkLedger()).balanced).toBe(true);
    expect(await api.caller.stock.verify()).toEqual([]);
  });

  it('without the service token every stock procedure is UNAUTHORIZED, and nothing is recorded', async () => {
    const before = await api.caller.stock.levels({ tenantId, perPage: 100 });
    for (const call of [
      () => api.anonymous.stock.recordOpening({ tenantId, locationId: jakarta, productId: kopi, good: 1, reference: 'X' }),
      () => api.anonymous.stock.levels({ tenantId }),
      () => api.anonymous.stock.ledger({ tenantId, locationId: jakarta, productId: kopi }),
      () => api.anonymous.stock.checkLedger(),
      () => api.anonymous.stock.verify(),
    ]) {
      expect(await refusal(call())).toMatchObject({ code: 'UNAUTHORIZED', kind: 'UNAUTHORIZED' });
    }
    expect(await api.caller.stock.levels({ tenantId, perPage: 100 })).toEqual(before);
  });

  it('names the product by sku instead of productId: exactly one of the two; an unknown SKU is BAD_REQUEST on sku', async () => {
    const level = await api.caller.stock.recordOpening({ tenantId, locationId: surabaya, sku: 'TEH-100', good: '3', reference: 'BY-SKU' });
    expect(level).toMatchObject({ locationId: surabaya, productId: teh, good: '3' });
    expect(await refusal(api.caller.stock.recordOpening({ tenantId, locationId: surabaya, sku: 'TEH-100', productId: teh, good: '1', reference: 'X' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'sku' });
    expect(await refusal(api.caller.stock.recordOpening({ tenantId, locationId: surabaya, good: '1', reference: 'X' }))).toMatchObject({ code: 'BAD_REQUEST', field: 'productId' });
    expect(await refusal(api.caller.stock.recordOpening({ tenantId, locationId: surabaya, sku: 'teh-100', good: '1', reference: 'X' }))).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field: 'sku' });
  });
});

describe.each(dialects)('[%s] stock of lot-tracked products (docs/lots.md#internal-api-and-importer)', (dialect) => {
  let api: TestApi;
  let tenantId: string;
  let jakarta: number;
  let madu: number;
  let kerupuk: number;
  let gula: number;
  let today: string;
  beforeAll(async () => {
    api = await openTestApi(dialect);
    today = await databaseToday(api.t.database);
    tenantId = (await api.caller.tenants.create({ name: 'Honey House' })).id;
    jakarta = (await api.caller.locations.create({ tenantId, code: 'WH-JKT', name: 'Jakarta' })).id;
    madu = (await api.caller.products.create({ tenantId, sku: 'MADU-500', name: 'Madu 500 g', productionBatch: true, outboundExpired: 30 })).id;
    kerupuk = (await api.caller.products.create({ tenantId, sku: 'KERUPUK', name: 'Kerupuk', productionBatch: true })).id;
    gula = (await api.caller.products.create({ tenantId, sku: 'GULA-1KG', name: 'Gula 1 kg' })).id;
  });
  afterAll(() => api.t.cleanup());

  const base = () => ({ tenantId, locationId: jakarta, reference: 'MIGRATION-2026-11' });

  it('records opening stock into the lot it names, creating the lot with its dates; a known lot needs no dates', async () => {
    const expiryDate = addDays(today, 100);
    const productionDate = addDays(today, -20);
    const level = await api.caller.stock.recordOpening({ ...base(), productId: madu, good: '10', lotNumber: 'MD-2611/A', expiryDate, productionDate });
    expect(level).toMatchObject({ productId: madu, good: '10', available: '10' });
    expect(await api.caller.stock.recordOpening({ ...base(), sku: 'MADU-500', good: '2.5', damaged: '1', lotNumber: 'MD-2611/A' })).toMatchObject({ good: '12.5', damaged: '1' });
    // Without a shelf-life minimum a lot may have no expiry date.
    await api.caller.stock.recordOpening({ ...base(), productId: kerupuk, good: '4', lotNumber: 'KR-1' });
    const { lots } = await api.caller.lots.list({ tenantId, locationId: jakarta });
    expect(lots).toEqual([
      { locationId: jakarta, productId: madu, sku: 'MADU-500', lotNumber: 'MD-2611/A', expiryDate, productionDate, good: '12.5', damaged: '1', reserved: '0', available: '12.5', daysLeft: 100, sellable: true },
      { locationId: jakarta, productId: kerupuk, sku: 'KERUPUK', lotNumber: 'KR-1', expiryDate: null, productionDate: null, good: '4', damaged: '0', reserved: '0', available: '4', daysLeft: null, sellable: true },
    ]);
    const ledger = await api.caller.stock.ledger({ tenantId, locationId: jakarta, productId: madu });
    expect(ledger.movements.map((m) => [m.bucket, m.change, m.causeType, m.causeId])).toEqual([
      ['damaged', '1', 'opening', 'MIGRATION-2026-11'],
      ['good', '2.5', 'opening', 'MIGRATION-2026-11'],
      ['good', '10', 'opening', 'MIGRATION-2026-11'],
    ]);
    expect(await api.caller.stock.verify({ tenantId })).toEqual([]);
  });

  it("refuses a lot the rules of a line refuse, on this input's own field names, and records nothing", async () => {
    const before = await api.caller.stock.levels({ tenantId, perPage: 100 });
    const cases: [Parameters<typeof api.caller.stock.recordOpening>[0], string, string][] = [
      [{ ...base(), productId: madu, good: 1 }, 'lotNumber', 'is required: the product is lot-tracked'],
      [{ ...base(), productId: gula, good: 1, lotNumber: 'G-1' }, 'lotNumber', 'must not be given: the product is not lot-tracked'],
      [{ ...base(), productId: madu, good: 1, lotNumber: 'MD-NEW' }, 'expiryDate', 'is required for a new lot: the product has a shelf-life minimum'],
      [{ ...base(), productId: madu, good: 1, lotNumber: 'MD-2611/A', expiryDate: addDays(today, 101) }, 'expiryDate', `lot MD-2611/A already exists and has expiry date ${addDays(today, 100)}`],
      [{ ...base(), productId: madu, good: 1, lotNumber: 'MD 1', expiryDate: addDays(today, 50) }, 'lotNumber', 'must be 1 to 64 characters of letters, digits, ".", "_", "/" and "-"'],
      [{ ...base(), productId: madu, good: 1, lotNumber: 'MD-2', expiryDate: '2027-02-30' }, 'expiryDate', ''],
      [{ ...base(), productId: madu, good: 1, lotNumber: 'MD-2', expiryDate: '2027-02-01', productionDate: '2027-02-02' }, 'productionDate', 'must not be after the expiry date, 2027-02-01'],
    ];
    for (const [input, field, issue] of cases) {
      const r = await refusal(api.caller.stock.recordOpening(input));
      expect(r, JSON.stringify(input)).toMatchObject({ code: 'BAD_REQUEST', kind: 'VALIDATION_ERROR', field });
      if (issue !== '') expect(r.issues[0]?.issue).toBe(issue);
    }
    expect(await api.caller.stock.levels({ tenantId, perPage: 100 })).toEqual(before);
    expect((await api.caller.lots.list({ tenantId })).lots.map((l) => l.lotNumber)).toEqual(['MD-2611/A', 'KR-1']);
  });

  it('stock.verify lists a row whose lots do not add up, and a lot whose reserved units no hold or transfer took', async () => {
    expect(await api.caller.stock.verify({ tenantId })).toEqual([]);
    const db = api.t.database.db;
    const lot = await db.selectFrom('lots').select('id').where('product_id', '=', madu).where('lot_number', '=', 'MD-2611/A').executeTakeFirstOrThrow();
    // The lot's units changed behind the row's back (what the checks exist to catch): good 12.5 -> 11, reserved 0 -> 1.
    await db.updateTable('lot_stock').set({ good: 110_000, reserved: 10_000 }).where('location_id', '=', jakarta).where('lot_id', '=', lot.id).execute();
    try {
      const place = { tenantId, locationId: jakarta, productId: madu };
      expect(await api.caller.stock.verify({ tenantId })).toEqual([
        { ...place, check: 'lot_allocations', recorded: '1', expected: '0', lotNumber: 'MD-2611/A' },
        { ...place, check: 'lots_good', recorded: '12.5', expected: '11' },
        { ...place, check: 'lots_reserved', recorded: '0', expected: '1' },
      ]);
      expect(await api.caller.stock.verify()).toHaveLength(3);
    } finally {
      await db.updateTable('lot_stock').set({ good: 125_000, reserved: 0 }).where('location_id', '=', jakarta).where('lot_id', '=', lot.id).execute();
    }
    expect(await api.caller.stock.verify()).toEqual([]);
  });
});
