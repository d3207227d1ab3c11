// The opening-stock import's batch on both databases: rows refused one by one with the file's
// column names, the rest recorded with their lots, and a balance recorded once however often it
// is imported (docs/lots.md#lines-name-their-lot).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createProduct } from '../repositories/product-repository.js';
import { listStockLevels, listStockLots, listStockMovements } from '../repositories/stock-read-repository.js';
import { verifyStock } from '../repositories/stock-verification.js';
import { type TestDatabase, type TenantWorld, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { type OpeningStockImportRow, importOpeningStockBatch, openingImportReference } from './stock-import-operations.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T11:00:00.000Z');

const row = (location_code: string, sku: string, good: string, lot: Partial<Pick<OpeningStockImportRow, 'lot_number' | 'expiry_date' | 'production_date'>> = {}): OpeningStockImportRow => ({
  location_code,
  sku,
  lot_number: lot.lot_number ?? null,
  expiry_date: lot.expiry_date ?? null,
  production_date: lot.production_date ?? null,
  good,
});

describe.each(dialects)('[%s] importing opening stock', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let other: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    w = await seedTenantWorld(t.database, { products: 1 });
    other = await seedTenantWorld(t.database, { products: 0, label: 'Other' });
    await createProduct(t.database, w.tenant.id, { sku: 'MADU', name: 'Madu', productionBatch: true, outboundExpired: 30 }, 'seed', NOW);
    await createProduct(t.database, w.tenant.id, { sku: 'KERUPUK', name: 'Kerupuk', productionBatch: true }, 'seed', NOW);
    await createProduct(t.database, other.tenant.id, { sku: 'THEIRS', name: 'Theirs' }, 'seed', NOW);
  });
  afterAll(() => t.cleanup());

  const run = (rows: OpeningStockImportRow[], dryRun = false) => importOpeningStockBatch(t.database, w.tenant.id, rows, { now: NOW, actor: 'importer', dryRun });

  it('records the rows it can, refuses the others on their columns, and a second run records nothing twice', async () => {
    const rows = [
      row('WH-JKT', 'SKU-1', '12.5'),
      row('WH-JKT', 'MADU', '10', { lot_number: 'M-1', expiry_date: '2027-06-30', production_date: '2026-06-30' }),
      // The lot the row above creates, named again at another location without its dates.
      row('WH-SBY', 'MADU', '4', { lot_number: 'M-1' }),
      row('WH-SBY', 'KERUPUK', '3', { lot_number: 'K-1' }),
      row('WH-BDG', 'SKU-1', '1'),
      row('WH-JKT', 'THEIRS', '1'),
      row('WH-JKT', 'MADU', '1'),
      row('WH-JKT', 'MADU', '1', { lot_number: 'M-2' }),
      row('WH-JKT', 'SKU-1', '1', { lot_number: 'X-1' }),
      row('WH-SBY', 'MADU', '1', { lot_number: 'M-1', expiry_date: '2027-07-01' }),
      row('WH-JKT', 'MADU', '1', { lot_number: 'M-3', expiry_date: '2027-01-01', production_date: '2027-02-01' }),
      row('WH-JKT', 'SKU-1', '2'),
    ];
    expect(await run(rows, true)).toMatchObject({ inserted: 4, unchanged: 0 });
    expect((await listStockLevels(t.database, w.tenant.id, {}, { page: 1, perPage: 20 })).total).toBe(0);

    const first = await run(rows);
    expect(first).toEqual({
      inserted: 4,
      unchanged: 0,
      refused: [
        { index: 4, issues: [{ field: 'location_code', reason: 'no location of this tenant has the code WH-BDG' }] },
        { index: 5, issues: [{ field: 'sku', reason: 'no product of this tenant has the SKU THEIRS' }] },
        { index: 6, issues: [{ field: 'lot_number', reason: 'is required: the product is lot-tracked' }] },
        { index: 7, issues: [{ field: 'expiry_date', reason: 'is required for a new lot: the product has a shelf-life minimum' }] },
        { index: 8, issues: [{ field: 'lot_number', reason: 'must not be given: the product is not lot-tracked' }] },
        { index: 9, issues: [{ field: 'expiry_date', reason: 'lot M-1 already exists and has expiry date 2027-06-30' }] },
        { index: 10, issues: [{ field: 'production_date', reason: 'must not be after the expiry date, 2027-01-01' }] },
        { index: 11, issues: [{ field: 'lot_number', reason: 'this location, product and lot are already on an earlier row of the file' }] },
      ],
    });
    const levels = await listStockLevels(t.database, w.tenant.id, {}, { page: 1, perPage: 20 });
    expect(levels.rows.map((l) => [l.locationId, l.sku, l.good.toFixed()])).toEqual([
      [w.locations[0].id, 'SKU-1', '12.5'],
      [w.locations[0].id, 'MADU', '10'],
      [w.locations[1].id, 'MADU', '4'],
      [w.locations[1].id, 'KERUPUK', '3'],
    ]);
    const lots = await listStockLots(t.database, w.tenant.id, {}, { page: 1, perPage: 20 });
    expect(lots.rows.map((l) => [l.locationId, l.sku, l.lotNumber, l.expiryDate, l.productionDate, l.good.toFixed()])).toEqual([
      [w.locations[0].id, 'MADU', 'M-1', '2027-06-30', '2026-06-30', '10'],
      [w.locations[1].id, 'MADU', 'M-1', '2027-06-30', '2026-06-30', '4'],
      [w.locations[1].id, 'KERUPUK', 'K-1', null, null, '3'],
    ]);
    const madu = levels.rows[1]!;
    const movements = await listStockMovements(t.database, w.tenant.id, { locationId: madu.locationId, productId: madu.productId }, { limit: 10 });
    expect(movements.rows.map((m) => [m.causeType, m.causeId, m.actor, m.lotNumber, m.change.toFixed()])).toEqual([
      ['opening', openingImportReference(madu.locationId, madu.productId, 'M-1'), 'importer', 'M-1', '10'],
    ]);

    // Again: every recorded balance is unchanged, and the refused rows are refused the same way.
    const again = await run(rows);
    expect(again).toEqual({ ...first, inserted: 0, unchanged: 4 });
    expect(await listStockLevels(t.database, w.tenant.id, {}, { page: 1, perPage: 20 })).toEqual(levels);
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('refuses a balance imported before with other good units, naming what was recorded', async () => {
    expect(await run([row('WH-JKT', 'SKU-1', '13'), row('WH-SBY', 'MADU', '4', { lot_number: 'M-1' })])).toEqual({
      inserted: 0,
      unchanged: 1,
      refused: [{ index: 0, issues: [{ field: 'good', reason: 'this balance was imported before with good 12.5; correct it with an adjustment or a stock count' }] }],
    });
  });

  it('two runs of the same rows at once record each balance once', async () => {
    const rows = [row('WH-SBY', 'SKU-1', '7'), row('WH-JKT', 'KERUPUK', '2', { lot_number: 'K-2' })];
    const results = await Promise.all([run(rows), run(rows)]);
    expect(results.map((r) => r.inserted).sort()).toEqual([0, 2]);
    expect(results.map((r) => r.unchanged).sort()).toEqual([0, 2]);
    const levels = await listStockLevels(t.database, w.tenant.id, { locationId: w.locations[1].id, skus: ['SKU-1'] }, { page: 1, perPage: 20 });
    expect(levels.rows.map((l) => l.good.toFixed())).toEqual(['7']);
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });
});
