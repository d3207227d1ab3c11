import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NamedStatementClient } from './postgres-named-statements.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';

describe('statement names', () => {
  const client = new NamedStatementClient();
  it('names data statements by their text, the same text the same name, and leaves others unnamed', () => {
    const a = client.statementName('select * from tenants where id = $1');
    expect(a).toMatch(/^k[\w-]{22}$/);
    expect(client.statementName('select * from tenants where id = $1')).toBe(a);
    expect(client.statementName('select * from tenants where id = $2')).not.toBe(a);
    expect(client.statementName('create table x (a int)')).toBeUndefined();
    expect(client.statementName(`select '${'x'.repeat(9000)}'`)).toBeUndefined();
  });
  it('stops naming new texts at the per-connection bound, but keeps the names it gave', () => {
    const bounded = new NamedStatementClient();
    const first = bounded.statementName('select 0');
    for (let i = 1; i < 400; i += 1) bounded.statementName(`select ${i}`);
    expect(bounded.statementName('select 1000')).toBeUndefined();
    expect(bounded.statementName('select 0')).toBe(first);
  });
});

const postgres = (await testDialects()).filter((d) => d === 'postgres');

describe.each(postgres)('[%s] named statements on a real connection', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect, { poolSize: 1 });
  });
  afterAll(() => t.cleanup());

  it('prepares a repeated query once per connection and still returns fresh results', async () => {
    for (let i = 0; i < 3; i += 1) {
      await t.database.db.insertInto('tenants').values({ id: `00000000-0000-4000-8000-00000000000${i}`, name: `T${i}`, tenant_type: 'live', created_at: new Date().toISOString(), updated_at: new Date().toISOString() }).execute();
      const rows = await t.database.db.selectFrom('tenants').select('name').orderBy('name').execute();
      expect(rows.map((r) => r.name)).toEqual(Array.from({ length: i + 1 }, (_, k) => `T${k}`));
    }
    const { rows } = await import('kysely').then(({ sql }) => sql<{ n: number }>`select count(*)::int as n from pg_prepared_statements where name like 'k%'`.execute(t.database.db));
    expect(rows[0]!.n).toBeGreaterThanOrEqual(2);
  });
});
