// The SQLite runner's rows: built from better-sqlite3's arrays, they must be the objects its own
// row mode gave (keys in column order, a repeated name at its first place with its last value,
// every value as SQLite returned it), for narrow and wide rows alike.
import Database from 'better-sqlite3';
import { CompiledQuery } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteRunner } from './sqlite-runner.js';

const WIDE = 45;
const wideColumns = Array.from({ length: WIDE }, (_, i) => `column_${i}`);

describe('SqliteRunner rows', () => {
  let raw: Database.Database;
  let runner: SqliteRunner;

  beforeEach(() => {
    raw = new Database(':memory:');
    raw.exec(`create table wide (id integer primary key, ${wideColumns.map((c) => `${c} text`).join(', ')})`);
    raw.exec('create table mixed (id integer primary key, label text, amount real, data blob, gone text)');
    runner = new SqliteRunner(raw, 1000, {});
  });
  afterEach(() => raw.close());

  const run = (text: string, ...parameters: unknown[]) => runner.run<Record<string, unknown>>(CompiledQuery.raw(text, parameters));

  it('gives a wide row every column, in order, as better-sqlite3 gives objects', async () => {
    const values = wideColumns.map((_, i) => `value ${i}`);
    await run(`insert into wide values (1, ${wideColumns.map(() => '?').join(', ')})`, ...values);
    await run(`insert into wide (id) values (2)`);
    const text = 'select * from wide order by id';
    const { rows } = await run(text);
    expect(rows).toEqual(raw.prepare(text).all());
    expect(Object.keys(rows[0]!)).toEqual(['id', ...wideColumns]);
    expect(rows[0]!['column_44']).toBe('value 44');
    expect(rows[1]!['column_0']).toBeNull();
  });

  it('keeps each value as SQLite returned it: integers, reals, text, blobs and nulls', async () => {
    await run('insert into mixed values (?, ?, ?, ?, ?)', 7, 'seven', 7.5, Buffer.from([1, 2, 3]), null);
    const text = 'select * from mixed';
    const { rows } = await run(text);
    expect(rows).toEqual(raw.prepare(text).all());
    expect(rows[0]).toEqual({ id: 7, label: 'seven', amount: 7.5, data: Buffer.from([1, 2, 3]), gone: null });
  });

  it('gives a name that comes twice its first place and its last value, as better-sqlite3 does', async () => {
    await run("insert into mixed (id, label) values (1, 'one')");
    const text = "select label as x, id, 'last' as x from mixed";
    const { rows } = await run(text);
    expect(rows).toEqual(raw.prepare(text).all());
    expect(Object.keys(rows[0]!)).toEqual(['x', 'id']);
    expect(rows[0]!['x']).toBe('last');
  });

  it('takes any column name as a plain key: quotes, backslashes, line breaks, code, __proto__', async () => {
    await run("insert into mixed (id, label) values (1, 'one')");
    const names = ['a"b', "c'd", 'e\\f', 'g\nh', 'i\u2028j', '"}; throw new Error("x"); ({"', '__proto__', 'constructor'];
    const text = `select ${names.map((name, i) => `${i} as "${name.replace(/"/g, '""')}"`).join(', ')} from mixed`;
    const { rows } = await run(text);
    expect(Object.keys(rows[0]!)).toEqual(names);
    expect(Object.values(rows[0]!)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(rows[0], '__proto__')?.value).toBe(6);
  });

  it('follows a statement whose columns change (select * after a column is added)', async () => {
    await run("insert into mixed (id, label) values (1, 'one')");
    expect((await run('select * from mixed')).rows).toEqual([{ id: 1, label: 'one', amount: null, data: null, gone: null }]);
    await run("alter table mixed add column extra text default 'new'");
    expect((await run('select * from mixed')).rows).toEqual([{ id: 1, label: 'one', amount: null, data: null, gone: null, extra: 'new' }]);
  });

  it('gives rows from a write that returns them, and counts from one that does not', async () => {
    const inserted = await run("insert into mixed (id, label) values (3, 'three') returning id, label");
    expect(inserted.rows).toEqual([{ id: 3, label: 'three' }]);
    const updated = await run("update mixed set label = 'tres' where id = 3");
    expect(updated.rows).toEqual([]);
    expect(updated.numAffectedRows).toBe(1n);
  });

  it('gives no rows, not a blank one, when nothing matches', async () => {
    const { rows } = await run('select * from wide where id = ?', 99);
    expect(rows).toEqual([]);
  });

  it('builds rows afresh: changing one row never shows in the next', async () => {
    await run("insert into mixed (id, label) values (1, 'one'), (2, 'two')");
    const first = await run('select id, label from mixed order by id');
    first.rows[0]!['label'] = 'changed';
    const second = await run('select id, label from mixed order by id');
    expect(second.rows).toEqual([
      { id: 1, label: 'one' },
      { id: 2, label: 'two' },
    ]);
  });
});
