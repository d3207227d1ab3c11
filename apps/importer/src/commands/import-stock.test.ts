// `pits-import stock` on every dialect: good rows recorded with their lots, bad rows in the
// report with their reasons (the file's checks and the database's), a re-run adding nothing, and
// the data team's loop through the command line: fix the report, import it, done.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProduct, listStockLevels, listStockLots, listStockMovements, verifyStock } from '@pits/persistence';
import { type TestDatabase, type TenantWorld, childDatabaseUrl, openTestDatabase, seedTenantWorld, testDialects } from '@pits/persistence/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliIo, EXIT_FATAL, EXIT_OK, EXIT_REJECTED, runCli } from '../cli.js';
import { testContext } from '../testing/importer-fixtures.js';
import { FatalImportError } from './import-run.js';
import { importStockFile } from './import-stock.js';

const dialects = await testDialects();
const dir = mkdtempSync(join(tmpdir(), 'pits-import-stock-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const HEADER = 'location_code,sku,lot_number,expiry_date,production_date,good';
const GOOD_ROWS = [
  'WH-JKT,SKU-1,,,,12.5',
  'WH-JKT,MADU,M-1,2027-06-30,2026-06-30,10',
  // The lot the row above creates, at another location, without its dates.
  'WH-SBY,MADU,M-1,,,4',
  // A lot-tracked product without a shelf-life minimum: a lot may have no expiry date.
  'WH-SBY,KERUPUK,K-1,,,3',
];
const BAD_ROWS = [
  'WH-BDG,SKU-1,,,,1',
  'WH-JKT,NOPE,,,,1',
  'WH-JKT,MADU,M-2,2027-02-30,,1',
  'WH-JKT,MADU,,,,1',
  'WH-SBY,SKU-1,X-1,,,1',
  'WH-SBY,KERUPUK,K-2,,,-3',
  'WH-SBY,KERUPUK,K-3,,,ten',
  'WH-JKT,MADU,M-3,,,1',
  'WH-JKT,SKU-1,,,,0',
  'WH-JKT,SKU-1,,,,2',
];
const CSV = [HEADER, ...GOOD_ROWS, ...BAD_ROWS].join('\n');

describe.each(dialects)('[%s] importing opening stock', (dialect) => {
  let t: TestDatabase;
  let w: TenantWorld;
  let cli: (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { file: true });
    w = await seedTenantWorld(t.database, { products: 1 });
    const now = new Date('2026-11-22T08:00:00.000Z');
    await createProduct(t.database, w.tenant.id, { sku: 'MADU', name: 'Madu', productionBatch: true, outboundExpired: 30 }, 'seed', now);
    await createProduct(t.database, w.tenant.id, { sku: 'KERUPUK', name: 'Kerupuk', productionBatch: true }, 'seed', now);
    const env = { DATABASE_URL: await childDatabaseUrl(t.database) };
    cli = async (args) => {
      const out: string[] = [];
      const err: string[] = [];
      const io: CliIo = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: (s: string) => err.push(s) }, env, cwd: dir };
      const code = await runCli(args, io);
      return { code, stdout: out.join(''), stderr: err.join('') };
    };
  });
  afterAll(() => t.cleanup());

  const levels = async () => (await listStockLevels(t.database, w.tenant.id, {}, { page: 1, perPage: 100 })).rows.map((l) => [l.locationId, l.sku, l.good.toFixed(), l.damaged.toFixed()]);
  const lots = async () => (await listStockLots(t.database, w.tenant.id, {}, { page: 1, perPage: 100 })).rows.map((l) => [l.locationId, l.sku, l.lotNumber, l.expiryDate, l.productionDate, l.good.toFixed()]);

  it('loads the good rows, reports every bad one with its reason, and a re-run loads nothing twice', async () => {
    const path = join(dir, `${dialect}.csv`);
    writeFileSync(path, CSV);
    const [jkt, sby] = [w.locations[0].id, w.locations[1].id];

    const dry = await importStockFile(testContext(t.database, join(dir, `${dialect}-dry.rejected.csv`), { dryRun: true }), w.tenant.id, path);
    expect(dry).toMatchObject({ read: 14, inserted: 4, unchanged: 0, rejected: 10, dryRun: true });
    expect(await levels()).toEqual([]);

    // Batches of 2: the lot line 3 creates is known to line 4, in the next batch.
    const context = testContext(t.database, join(dir, `${dialect}.rejected.csv`), { batchSize: 2 });
    expect(await importStockFile(context, w.tenant.id, path)).toMatchObject({ command: 'stock', read: 14, inserted: 4, updated: 0, unchanged: 0, rejected: 10 });
    await context.report.close();
    const report = readFileSync(join(dir, `${dialect}.rejected.csv`), 'utf8').trim().split('\n');
    const file = `${dialect}.csv`;
    const goodIssue = 'good: must be a plain number above 0 with at most 4 decimal places (such as 12.5)';
    // Rows the file's checks refuse are reported as they are read, rows the database refuses when their batch is written.
    expect(report).toEqual([
      `${HEADER},error`,
      `WH-BDG,SKU-1,,,,1,location_code: no location of this tenant has the code WH-BDG (${file} line 6)`,
      `WH-JKT,NOPE,,,,1,sku: no product of this tenant has the SKU NOPE (${file} line 7)`,
      `WH-JKT,MADU,M-2,2027-02-30,,1,expiry_date: must be a real calendar date in YYYY-MM-DD form (${file} line 8)`,
      `WH-JKT,MADU,,,,1,lot_number: is required: the product is lot-tracked (${file} line 9)`,
      `WH-SBY,SKU-1,X-1,,,1,lot_number: must not be given: the product is not lot-tracked (${file} line 10)`,
      `WH-SBY,KERUPUK,K-2,,,-3,${goodIssue} (${file} line 11)`,
      `WH-SBY,KERUPUK,K-3,,,ten,${goodIssue} (${file} line 12)`,
      `WH-JKT,SKU-1,,,,0,${goodIssue} (${file} line 14)`,
      `WH-JKT,SKU-1,,,,2,location WH-JKT and SKU SKU-1 are already on line 2 (${file} line 15)`,
      `WH-JKT,MADU,M-3,,,1,expiry_date: is required for a new lot: the product has a shelf-life minimum (${file} line 13)`,
    ]);
    const loaded = await levels();
    expect(loaded).toEqual([
      [jkt, 'SKU-1', '12.5', '0'],
      [jkt, 'MADU', '10', '0'],
      [sby, 'MADU', '4', '0'],
      [sby, 'KERUPUK', '3', '0'],
    ]);
    expect(await lots()).toEqual([
      [jkt, 'MADU', 'M-1', '2027-06-30', '2026-06-30', '10'],
      [sby, 'MADU', 'M-1', '2027-06-30', '2026-06-30', '4'],
      [sby, 'KERUPUK', 'K-1', null, null, '3'],
    ]);
    const movements = await listStockMovements(t.database, w.tenant.id, { locationId: jkt, productId: w.products[0]!.id }, { limit: 10 });
    expect(movements.rows.map((m) => [m.causeType, m.causeId, m.actor, m.change.toFixed()])).toEqual([['opening', `stock-import/L${jkt}/P${w.products[0]!.id}`, 'importer', '12.5']]);

    const again = testContext(t.database, join(dir, `${dialect}-again.rejected.csv`));
    expect(await importStockFile(again, w.tenant.id, path)).toMatchObject({ read: 14, inserted: 0, unchanged: 4, rejected: 10 });
    await again.report.close();
    expect(await levels()).toEqual(loaded);
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('through the command line: exit 1 with the report, the fixed report imports with exit 0, and the whole file again changes nothing', async () => {
    const path = join(dir, `${dialect}-cli.csv`);
    writeFileSync(path, [HEADER, 'WH-SBY,SKU-1,,,,5', 'WH-SBY,MADU,M-9,,,2', 'WH-JKT,KERUPUK,K-1,,,1.25'].join('\n'));
    const first = await cli(['stock', '--tenant', w.tenant.id, path]);
    expect(first).toMatchObject({ code: EXIT_REJECTED, stdout: expect.stringMatching(/^stock: 3 rows read: 2 inserted, 0 updated, 0 unchanged, 1 rejected in/) });
    const reportPath = join(dir, `${dialect}-cli.rejected.csv`);
    expect(first.stdout).toContain(`rejected rows: ${reportPath}\n`);
    const report = readFileSync(reportPath, 'utf8');
    expect(report).toBe(`${HEADER},error\nWH-SBY,MADU,M-9,,,2,expiry_date: is required for a new lot: the product has a shelf-life minimum (${dialect}-cli.csv line 3)\n`);
    writeFileSync(reportPath, report.replace('M-9,,,2', 'M-9,2027-01-31,,2'));
    expect(await cli(['stock', '--tenant', w.tenant.id, reportPath])).toMatchObject({ code: EXIT_OK, stdout: expect.stringMatching(/^stock: 1 rows read: 1 inserted, 0 updated, 0 unchanged, 0 rejected in/) });
    // The original file once more: every balance is in, the fixed one included (its lot is known now, so its row needs no dates).
    expect(await cli(['stock', '--tenant', w.tenant.id, path])).toMatchObject({ code: EXIT_OK, stdout: expect.stringMatching(/^stock: 3 rows read: 0 inserted, 0 updated, 3 unchanged, 0 rejected in/) });
    // Another quantity for a balance already loaded is refused: stock is corrected with an adjustment or a count, not a second opening.
    const changed = join(dir, `${dialect}-changed.csv`);
    writeFileSync(changed, [HEADER, 'WH-SBY,SKU-1,,,,6'].join('\n'));
    expect((await cli(['stock', '--tenant', w.tenant.id, changed])).code).toBe(EXIT_REJECTED);
    expect(readFileSync(join(dir, `${dialect}-changed.rejected.csv`), 'utf8')).toContain('good: this balance was imported before with good 5; correct it with an adjustment or a stock count');
    expect((await listStockLots(t.database, w.tenant.id, { skus: ['MADU'], locationId: w.locations[1].id }, { page: 1, perPage: 10 })).rows.map((l) => [l.lotNumber, l.good.toFixed()])).toEqual([
      ['M-9', '2'],
      ['M-1', '4'],
    ]);
    expect(await verifyStock(t.database, w.tenant.id)).toEqual([]);
  });

  it('stops on an unknown tenant, a header that is not the stock columns, or a missing --tenant', async () => {
    const path = join(dir, `${dialect}-bad.csv`);
    writeFileSync(path, 'location,sku,good\nWH-JKT,SKU-1,1\n');
    const context = testContext(t.database, join(dir, `${dialect}-bad.rejected.csv`));
    await expect(importStockFile(context, '00000000-0000-4000-8000-000000000000', path)).rejects.toThrow(FatalImportError);
    await expect(importStockFile(context, w.tenant.id, path)).rejects.toThrow(/wrong header: unknown column "location" \(did you mean "location_code"\?\); missing column "location_code"/);
    expect(await cli(['stock', path])).toMatchObject({ code: EXIT_FATAL, stderr: expect.stringMatching(/--tenant <id> is required/) });
    expect(await cli(['stock', '--tenant', w.tenant.id, '--format', 'jsonl', path])).toMatchObject({ code: EXIT_FATAL, stderr: expect.stringMatching(/--format must be csv for stock/) });
  });
});

describe('pits-import stock --help', () => {
  it('names the columns and the rule that makes a re-run add nothing', async () => {
    const out: string[] = [];
    const io: CliIo = { stdout: { write: (s: string) => out.push(s) }, stderr: { write: () => true }, env: {}, cwd: dir };
    expect(await runCli(['stock', '--help'], io)).toBe(EXIT_OK);
    const help = out.join('');
    expect(help).toMatch(/^Usage: pits-import stock --tenant <id> <file>/);
    expect(help).toContain('location_code,sku,lot_number,expiry_date,production_date,good');
    expect(help).toContain('stock-import/L<location id>/P<product id>[/<lot number>]');
    const main: string[] = [];
    await runCli(['--help'], { ...io, stdout: { write: (s: string) => main.push(s) } });
    expect(main.join('')).toContain('stock --tenant <id> <file>');
  });
});
