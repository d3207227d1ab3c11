// The bare routes' statements must come from the gateway's repositories, never from a copy kept
// here: a column the schema gains reaches the bench's inserts with no edit to the bench.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, migrateOrThrow } from '@pits/persistence';
import { openSqlite } from '@pits/persistence/bench';
import { type SeedRow, openBulkWriter } from './inventory-seed.js';
import { plannedStatements } from './inventory-sql.js';

// Every insert of a statement: one, or two where a WITH inserts the ledger rows the levels name.
const inserts = (sql: string) => [...sql.matchAll(/(?:^|\(|\) )insert into "(\w+)" \(([^)]*)\)/g)];

describe('the inventory bench takes its SQL from the repositories', () => {
  let dir: string;
  let location: string;
  const tableColumns = (table: string) => {
    const db = openSqlite(location);
    try {
      return (db.prepare(`pragma table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pits-bench-sql-'));
    location = join(dir, 'schema.sqlite');
    const database = createDatabase({ dialect: 'sqlite', location });
    await migrateOrThrow(database);
    await database.destroy();
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // Left to the database's default: the generated id, and a hold line's has_lots (0 until the line
  // takes lots, when markLinesWithLots sets it).
  const defaulted = (table: string, column: string) => column === 'id' || (table === 'reservation_items' && column === 'has_lots');

  it('inserts every column of the migrated tables but those left to their defaults, on both dialects', () => {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const plans = [plannedStatements('count', dialect, 2), plannedStatements('approve', dialect, 2), plannedStatements('reserve', dialect, 2), plannedStatements('reserve-lots', dialect, 2)];
      const written = plans.flat().flatMap((sql) => inserts(sql).map((match) => ({ table: match[1]!, columns: match[2]!.split(', ').map((c) => c.replace(/"/g, '')) })));
      const tables = new Set(written.map((i) => i.table));
      expect([...tables].sort()).toEqual([
        'adjustment_items', 'adjustments', 'document_sequences', 'lot_allocations', 'lot_stock', 'reservation_items', 'reservations', 'stock_ledger', 'stock_levels',
      ]);
      for (const table of ['adjustments', 'adjustment_items', 'reservations', 'reservation_items', 'stock_ledger', 'stock_levels', 'lot_allocations', 'lot_stock']) {
        const all = tableColumns(table).filter((c) => !defaulted(table, c)).sort();
        for (const insert of written.filter((i) => i.table === table)) {
          // The lock creates a missing stock row empty, its ledger ids null until writeStock names them.
          const lock = all.filter((c) => !c.endsWith('_ledger_id'));
          expect(table === 'stock_levels' ? [all, lock] : [all], `${dialect} ${table}`).toContainEqual([...insert.columns].sort());
        }
        expect(written.some((i) => i.table === table && [...i.columns].sort().join() === all.join()), `${dialect} ${table} written whole`).toBe(true);
      }
    }
  });

  it('keeps no SQL text in the bare server or its plan', () => {
    for (const file of ['bare-inventory-server.ts', 'inventory-sql.ts']) {
      const source = readFileSync(join(import.meta.dirname, file), 'utf8');
      expect(source.match(/['"`]\s*(select|insert into|update|delete from|with)\s+["\w(]/gi) ?? [], file).toEqual([]);
    }
  });

  it('seeds rows keyed by column, and refuses a row that lacks one', async () => {
    const writer = await openBulkWriter({ dialect: 'sqlite', location });
    try {
      const tenant = (id: string): SeedRow => ({ id, name: `Tenant ${id}`, tenant_type: 'store', created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' });
      await writer.insert('tenants', [tenant('t1'), tenant('t2')]);
      expect(await writer.query<{ id: string }>('select id from tenants order by id')).toEqual([{ id: 't1' }, { id: 't2' }]);
      const { name: _dropped, ...lacking } = tenant('t3');
      await expect(writer.insert('tenants', [tenant('t4'), lacking])).rejects.toThrow(/lacks column name/);
    } finally {
      await writer.close();
    }
  });
});
