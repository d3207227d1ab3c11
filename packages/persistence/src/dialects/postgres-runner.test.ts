// The PostgreSQL runner's own behaviour: fixed-shape statements are named, prepared once per
// connection and then only executed; the names a connection holds are bounded. A session runs
// several statements, and the transactions begun in it, on one pooled connection.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute, executeWrite } from '../execution/execute.js';
import type { Scope } from '../execution/scope.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';
import { withSession, withSnapshot, withTransaction } from '../transaction.js';
import { StatementNames } from './postgres-runner.js';

describe('statement names', () => {
  it('names data statements by their text, the same text the same name, and leaves others unnamed', () => {
    const names = new StatementNames();
    const connection = {};
    const a = names.statementName(connection, 'select * from tenants where id = $1');
    expect(a).toMatch(/^k[\w-]{22}$/);
    expect(names.statementName(connection, 'select * from tenants where id = $1')).toBe(a);
    expect(names.statementName({}, 'select * from tenants where id = $1')).toBe(a);
    expect(names.statementName(connection, 'select * from tenants where id = $2')).not.toBe(a);
    expect(names.statementName(connection, 'create table x (a int)')).toBeUndefined();
    expect(names.statementName(connection, 'begin')).toBeUndefined();
    expect(names.statementName(connection, `select '${'x'.repeat(9000)}'`)).toBeUndefined();
  });

  it('stops naming new texts at the per-connection bound, but keeps the names it gave; another connection has room of its own', () => {
    const names = new StatementNames();
    const bounded = {};
    const first = names.statementName(bounded, 'select 0');
    for (let i = 1; i < 400; i += 1) names.statementName(bounded, `select ${i}`);
    expect(names.statementName(bounded, 'select 1000')).toBeUndefined();
    expect(names.statementName(bounded, 'select 0')).toBe(first);
    expect(names.statementName({}, 'select 1000')).toMatch(/^k/);
  });
});

const postgres = (await testDialects()).filter((d) => d === 'postgres');

describe.each(postgres)('[%s] named statements on a real connection', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { poolSize: 1 });
  });
  afterAll(() => t.cleanup());

  it('prepares a repeated query once per connection and still returns fresh results, in and out of transactions', async () => {
    const names = () => t.database.db.selectFrom('tenants').select('name').orderBy('name');
    for (let i = 0; i < 3; i += 1) {
      const at = new Date().toISOString();
      await t.database.db.insertInto('tenants').values({ id: `00000000-0000-4000-8000-00000000000${i}`, name: `T${i}`, tenant_type: 'live', created_at: at, updated_at: at }).execute();
      const expected = Array.from({ length: i + 1 }, (_, k) => `T${k}`);
      expect((await execute(t.database, names())).map((r) => r.name)).toEqual(expected);
      expect((await withTransaction(t.database, (tx) => execute(tx, names()))).map((r) => r.name)).toEqual(expected);
    }
    // One connection in the pool: its session holds each text once, under its name.
    const text = names().compile().sql;
    const { rows } = await sql<{ name: string; n: number }>`select name, count(*)::int as n from pg_prepared_statements where statement = ${text} group by name`.execute(t.database.db);
    expect(rows).toEqual([{ name: expect.stringMatching(/^k/) as string, n: 1 }]);
    const { rows: all } = await sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where name like 'k%'`.execute(t.database.db);
    expect(all[0]!.n).toBeGreaterThanOrEqual(3);
  });
});

describe.each(postgres)('[%s] a session: one pooled connection for several statements', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    // One connection: a session that asked the pool for a second one would wait forever.
    t = await openTestDatabase(dialect, { poolSize: 1 });
  });
  afterAll(() => t.cleanup());

  const backend = async (scope: Scope): Promise<number> => (await execute(scope, sql<{ pid: number }>`select pg_backend_pid() as pid`))[0]!.pid;

  it('runs its statements, and a transaction and a snapshot begun in it, on its one connection, then gives it back', async () => {
    const pids = await withSession(t.database, async (session) => [
      await backend(session),
      await withTransaction(session, (tx) => backend(tx)),
      await withSnapshot(session, (snapshot) => backend(snapshot)),
      await backend(session),
    ]);
    expect(new Set(pids).size).toBe(1);
    expect(t.database.runner.connections()).toEqual({ total: 1, idle: 1, waiting: 0 });
  });

  it('holds a statement sent while its transaction is open until that transaction ends, so it never runs inside it', async () => {
    const id = '00000000-0000-4000-8000-0000000000aa';
    const count = sql<{ n: number }>`select count(*)::int as n from tenants where id = ${id}`;
    const seen = await withSession(t.database, async (session) => {
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      let inserted!: () => void;
      const written = new Promise<void>((resolve) => (inserted = resolve));
      const rolledBack = withTransaction(session, async (tx) => {
        const at = new Date().toISOString();
        await executeWrite(tx, tx.db.insertInto('tenants').values({ id, name: 'Session', tenant_type: 'live', created_at: at, updated_at: at }));
        inserted();
        await released;
        throw new Error('roll back');
      }).catch((error: unknown) => error);
      await written;
      // Sent while the transaction is open, after its insert: inside it, it would count the uncommitted row.
      const counted = execute(session, count);
      release();
      expect(await rolledBack).toEqual(new Error('roll back'));
      return (await counted)[0]!.n;
    });
    expect(seen).toBe(0);
  });

  it('gives its connection back when its work throws, and the pool of one serves the next', async () => {
    await expect(withSession(t.database, async (session) => {
      await backend(session);
      throw new Error('work failed');
    })).rejects.toThrow('work failed');
    expect(await withSession(t.database, (session) => backend(session))).toBeGreaterThan(0);
    expect(t.database.runner.connections()).toEqual({ total: 1, idle: 1, waiting: 0 });
  });
});

describe.each(postgres)('[%s] rows built from arrays', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('gives a wide row every column in order, with the values pg parsed', async () => {
    const columns = Array.from({ length: 45 }, (_, i) => `column_${i}`);
    const { rows } = await sql.raw<Record<string, unknown>>(`select ${columns.map((c, i) => (i % 2 ? `'text ${i}' as ${c}` : `${i}::int as ${c}`)).join(', ')}`).execute(t.database.db);
    expect(rows).toHaveLength(1);
    expect(Object.keys(rows[0]!)).toEqual(columns);
    expect(rows[0]!['column_0']).toBe(0);
    expect(rows[0]!['column_43']).toBe('text 43');
    expect(rows[0]!['column_44']).toBe(44);
  });

  it('gives a name that comes twice its first place and its last value, and __proto__ as a plain key', async () => {
    const { rows } = await sql.raw<Record<string, unknown>>(`select 1 as x, 2 as id, 3 as x, 4 as "__proto__"`).execute(t.database.db);
    expect(Object.keys(rows[0]!)).toEqual(['x', 'id', '__proto__']);
    expect(rows[0]!['x']).toBe(3);
    expect(Object.getPrototypeOf(rows[0])).toBe(Object.prototype);
  });

  it('follows a statement whose columns change (select * after a column is added)', async () => {
    await sql`create table row_builder_probe (a int)`.execute(t.database.db);
    await sql`insert into row_builder_probe values (1)`.execute(t.database.db);
    // Longer than a named statement may be, so PostgreSQL plans it afresh and the new column shows.
    const text = `select * from row_builder_probe /* ${'x'.repeat(8100)} */`;
    expect((await sql.raw(text).execute(t.database.db)).rows).toEqual([{ a: 1 }]);
    await sql`alter table row_builder_probe add column b text default 'new'`.execute(t.database.db);
    expect((await sql.raw(text).execute(t.database.db)).rows).toEqual([{ a: 1, b: 'new' }]);
  });

  it('gives no rows for a statement that returns none, and rows for one that returns some', async () => {
    await sql`create table row_builder_writes (id int primary key, label text)`.execute(t.database.db);
    const inserted = await sql<{ id: number; label: string }>`insert into row_builder_writes values (1, 'one') returning id, label`.execute(t.database.db);
    expect(inserted.rows).toEqual([{ id: 1, label: 'one' }]);
    const updated = await sql`update row_builder_writes set label = 'uno' where id = 1`.execute(t.database.db);
    expect(updated.rows).toEqual([]);
    expect(updated.numAffectedRows).toBe(1n);
  });
});
