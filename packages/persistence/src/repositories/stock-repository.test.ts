// writeStockRows on every dialect: each stock row's levels and version, and the newest ledger row of
// each bucket it names, whether the ledger and the levels went as one statement or as several.
import { type LotChange, type StockChange, applyStockChanges, dec, stockKey, unwrap } from '@pits/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../execution/execute.js';
import { type TenantWorld, type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { type Tx, withTransaction } from '../transaction.js';
import { type StockCause, type StockWrite, lockStockLevels, writeStockRows } from './stock-repository.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-29T08:00:00.000Z');
const CAUSE: StockCause = { type: 'opening', id: 'test', documentNumber: null, actor: 'test' };

describe.each(dialects)('[%s] writeStockRows', (name) => {
  let t: TestDatabase;
  let w: TenantWorld;
  beforeAll(async () => {
    t = await openTestDatabase(name);
    w = await seedTenantWorld(t.database, { products: 320 });
  });
  afterAll(() => t.cleanup());

  const location = () => w.locations[0].id;

  /** Applies `changes` (and the lots' split of them) under lock; returns the rows written and the statements the write itself took. */
  async function write(changes: StockChange[], lots?: LotChange[]) {
    let writeStatements = 0;
    const written = await withTransaction(t.database, async (tx) => {
      const levels = await lockStockLevels(tx, w.tenant.id, changes, NOW);
      const outcome = unwrap(applyStockChanges(levels, changes));
      // The same transaction, its statements counted.
      const counted: Tx = { ...tx, runner: { run: (compiled) => ((writeStatements += 1), tx.runner.run(compiled)) } };
      return writeStockRows(counted, [{ tenantId: w.tenant.id, outcome, cause: CAUSE, lots } satisfies StockWrite], NOW);
    });
    return { written, writeStatements };
  }

  /** Each stock row's named ledger ids, and the newest ledger id of each bucket the ledger holds for it. */
  async function ledgerIds(productIds: number[]) {
    const db = t.database.db;
    const levels = await execute(
      t.database,
      db.selectFrom('stock_levels').select(['product_id', 'version', 'good_ledger_id', 'damaged_ledger_id', 'reserved_ledger_id']).where('location_id', '=', location()).where('product_id', 'in', productIds),
    );
    const ledger = await execute(
      t.database,
      db
        .selectFrom('stock_ledger')
        .select((eb) => ['product_id', 'bucket', eb.fn.max('id').as('id')])
        .where('location_id', '=', location())
        .where('product_id', 'in', productIds)
        .groupBy(['product_id', 'bucket']),
    );
    const newest = (productId: number, bucket: string) => {
      const row = ledger.find((l) => l.product_id === productId && l.bucket === bucket);
      return row ? Number(row.id) : null;
    };
    return productIds.map((productId) => {
      const level = levels.find((l) => l.product_id === productId)!;
      return {
        productId,
        version: Number(level.version),
        named: [level.good_ledger_id, level.damaged_ledger_id, level.reserved_ledger_id].map((id) => (id === null ? null : Number(id))),
        newest: ['good', 'damaged', 'reserved'].map((bucket) => newest(productId, bucket)),
      };
    });
  }

  it('names the newest ledger row of each bucket it moved, keeps the others, and steps each version once', async () => {
    const [a, b] = [w.products[0]!.id, w.products[1]!.id];
    const key = (productId: number) => ({ locationId: location(), productId });
    const first = await write([
      { ...key(a), bucket: 'good', delta: dec(5) },
      { ...key(a), bucket: 'good', delta: dec(2) },
      { ...key(b), bucket: 'damaged', delta: dec(3) },
    ]);
    // One statement where the dialect takes the ledger insert in a WITH of the levels' upsert.
    expect(first.writeStatements).toBe(t.database.dialect.insertsInWith ? 1 : 2);
    expect(first.written.map((r) => [stockKey(r.level), r.level.good.toFixed(), r.level.damaged.toFixed(), r.version])).toEqual([
      [stockKey(key(a)), '7', '0', 1],
      [stockKey(key(b)), '0', '3', 1],
    ]);
    let rows = await ledgerIds([a, b]);
    for (const row of rows) expect(row.named).toEqual(row.newest);
    expect(rows.map((r) => r.named.map((id) => id !== null))).toEqual([
      [true, false, false],
      [false, true, false],
    ]);
    const goodOfA = rows[0]!.named[0];

    await write([{ ...key(a), bucket: 'damaged', delta: dec(1) }]);
    rows = await ledgerIds([a, b]);
    for (const row of rows) expect(row.named).toEqual(row.newest);
    // The good bucket was left alone: it still names the ledger row it had.
    expect(rows[0]!.named[0]).toBe(goodOfA);
    expect(rows.map((r) => r.version)).toEqual([2, 1]);
  });

  it('names the last of a lot-tracked movement’s ledger rows, one per lot', async () => {
    const product = w.products[2]!.id;
    const key = { locationId: location(), productId: product };
    const lots: LotChange[] = [
      { ...key, bucket: 'good', delta: dec(4), lotNumber: 'L-EARLY', expiryDate: null },
      { ...key, bucket: 'good', delta: dec(6), lotNumber: 'L-LATE', expiryDate: null },
    ];
    const { writeStatements } = await write([{ ...key, bucket: 'good', delta: dec(10) }], lots);
    expect(writeStatements).toBe(t.database.dialect.insertsInWith ? 1 : 2);
    const ledger = await execute(t.database, t.database.db.selectFrom('stock_ledger').select(['id', 'lot_number', 'quantity_after']).where('product_id', '=', product).orderBy('id'));
    expect(ledger.map((r) => [r.lot_number, Number(r.quantity_after)])).toEqual([
      ['L-EARLY', 40_000],
      ['L-LATE', 100_000],
    ]);
    const [row] = await ledgerIds([product]);
    expect(row!.named).toEqual([Number(ledger[1]!.id), null, null]);
  });

  it('past one batch of ledger rows, writes them in several statements and still names the newest', async () => {
    const products = w.products.slice(5, 320).map((p) => p.id);
    const { written, writeStatements } = await write(products.map((productId) => ({ locationId: location(), productId, bucket: 'good' as const, delta: dec(1) })));
    // 315 ledger rows: two ledger statements (300 and 15), then the levels.
    expect(writeStatements).toBe(3);
    expect(written).toHaveLength(315);
    const rows = await ledgerIds(products);
    for (const row of rows) {
      expect(row.named).toEqual(row.newest);
      expect(row.named[0]).not.toBeNull();
    }
  });
});
