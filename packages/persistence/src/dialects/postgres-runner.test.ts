// The PostgreSQL runner's own behaviour: fixed-shape statements are named, prepared once per
// connection and then only executed; the names a connection holds are bounded.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execute } from '../execution/execute.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';
import { withTransaction } from '../transaction.js';
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
