// The one way statements run: every scope's runner, whichever way a statement was written (a
// prepared query, a builder run with execute(scope, …), Kysely's own executor on database.db).
// A read must never run on a connection while another caller's transaction holds it (it would see
// that transaction's uncommitted rows); inside its own transaction it runs there. An embedded
// database answers at once (synchronously) when that overtakes no one.
import { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, createDatabase } from '../create-database.js';
import { dialectNamed } from '../dialects/dialect-registry.js';
import { migrateOrThrow } from '../migrate.js';
import { type ParamRef, preparedQuery } from '../parameterised-query.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';
import { withTransaction } from '../transaction.js';
import { execute, executeTakeFirst, executeWrite } from './execute.js';
import { BUILD_ONLY_MESSAGE } from './kysely-bridge.js';

const dialects = await testDialects();
const embedded = dialects.filter((name) => dialectNamed(name).capabilities.embedded);
const servers = dialects.filter((name) => !dialectNamed(name).capabilities.embedded);
const AT = '2026-11-23T00:00:00.000Z';

const tenantNamed = preparedQuery({
  build: (scope, param: ParamRef<{ id: string }>) => scope.db.selectFrom('tenants').select(['id', 'name']).where('id', '=', param('id')),
});
const insertTenant = preparedQuery({
  build: (scope, param: ParamRef<{ id: string; name: string }>) =>
    scope.db.insertInto('tenants').values({ id: param('id'), name: param('name'), tenant_type: 'live', created_at: AT, updated_at: AT }),
});
const row = (id: string, name: string) => ({ id, name, tenant_type: 'live' as const, created_at: AT, updated_at: AT });

/**
 * A migrated database of `dialect` for one describe block, opened before its tests and closed
 * after them; the statements it sends (`seen`) and those that fail (`reported`) are recorded.
 */
function watchedDatabase(dialect: Parameters<typeof openTestDatabase>[0]): { readonly database: Database; readonly reported: unknown[]; readonly seen: string[] } {
  let t: TestDatabase;
  const watched = { database: undefined as unknown as Database, reported: [] as unknown[], seen: [] as string[] };
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    watched.database = createDatabase(t.config, { onQueryError: (error) => watched.reported.push(error), onQuery: (text) => watched.seen.push(text) });
    await migrateOrThrow(watched.database);
  });
  afterAll(async () => {
    await watched.database.destroy();
    await t.cleanup();
  });
  return watched;
}

const firstWords = (texts: readonly string[]) => texts.map((text) => text.split(' ')[0]!.toLowerCase());

describe.each(dialects)('[%s] a read beside another caller’s transaction', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('never sees the transaction’s uncommitted rows, and sees them once committed', async () => {
    let releaseWriter!: () => void;
    const writerMayFinish = new Promise<void>((resolve) => {
      releaseWriter = resolve;
    });
    let readDuringWrite: Promise<unknown> | undefined;
    let builtDuringWrite: Promise<unknown> | undefined;
    const writer = withTransaction(t.database, async (tx) => {
      await executeWrite(tx, insertTenant.with({ id: 'tenant-in-flight', name: 'In flight' }));
      expect(await executeTakeFirst(tx, tenantNamed.with({ id: 'tenant-in-flight' }))).toEqual({ id: 'tenant-in-flight', name: 'In flight' });
      readDuringWrite = executeTakeFirst(t.database, tenantNamed.with({ id: 'tenant-in-flight' }));
      builtDuringWrite = t.database.db.selectFrom('tenants').select('id').where('id', '=', 'tenant-in-flight').executeTakeFirst();
      await writerMayFinish;
      throw new Error('roll back');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    releaseWriter();
    await expect(writer).rejects.toThrow('roll back');
    expect(await readDuringWrite).toBeUndefined();
    expect(await builtDuringWrite).toBeUndefined();

    await withTransaction(t.database, (tx) => executeWrite(tx, insertTenant.with({ id: 'tenant-committed', name: 'Committed' })));
    expect(await executeTakeFirst(t.database, tenantNamed.with({ id: 'tenant-committed' }))).toEqual({ id: 'tenant-committed', name: 'Committed' });
  });

  it('fails loudly when a builder of tx.db is executed by itself inside a transaction, instead of running outside it', async () => {
    const attempt = withTransaction(t.database, async (tx) => {
      await tx.db.insertInto('tenants').values(row('tenant-outside', 'Outside')).execute();
    });
    await expect(attempt).rejects.toThrow(BUILD_ONLY_MESSAGE);
    expect(BUILD_ONLY_MESSAGE).toMatch(/execute\(tx, query\)/);
    expect(await executeTakeFirst(t.database, tenantNamed.with({ id: 'tenant-outside' }))).toBeUndefined();
  });

  it('runs Kysely’s own transactions on database.db through the same runner (the Migrator uses them)', async () => {
    await t.database.db.transaction().execute(async (trx) => {
      await trx.insertInto('tenants').values(row('tenant-kysely-tx', 'Kysely')).execute();
    });
    expect(await executeTakeFirst(t.database, tenantNamed.with({ id: 'tenant-kysely-tx' }))).toEqual({ id: 'tenant-kysely-tx', name: 'Kysely' });
    const failed = t.database.db.transaction().execute(async (trx) => {
      await trx.insertInto('tenants').values(row('tenant-kysely-gone', 'Gone')).execute();
      throw new Error('changed my mind');
    });
    await expect(failed).rejects.toThrow('changed my mind');
    expect(await executeTakeFirst(t.database, tenantNamed.with({ id: 'tenant-kysely-gone' }))).toBeUndefined();
  });
});

describe.each(embedded)('[%s] statements run at once', (dialect) => {
  const watched = watchedDatabase(dialect);
  const { reported, seen } = watched;

  const compiled = (id: string): CompiledQuery => tenantNamed.compile(watched.database, { id });

  it('answers synchronously while the connection is free, defers while another’s transaction holds it, and answers at once inside its own', async () => {
    const { runner } = watched.database;
    expect(runner.run(compiled('nobody'))).toEqual({ rows: [] });
    expect(seen.at(-1)).toBe(compiled('nobody').sql);

    let deferred: unknown;
    await withTransaction(watched.database, async (tx) => {
      await executeWrite(tx, insertTenant.with({ id: 'tenant-direct', name: 'Direct' }));
      // Another caller: must wait for the connection, and then sees the committed row.
      deferred = runner.run(compiled('tenant-direct'));
      expect(deferred).toBeInstanceOf(Promise);
      // This transaction: runs in it at once, seeing its own row.
      expect(tx.runner.run(compiled('tenant-direct'))).toEqual({ rows: [{ id: 'tenant-direct', name: 'Direct' }] });
    });
    expect(await deferred).toEqual({ rows: [{ id: 'tenant-direct', name: 'Direct' }] });
    expect(runner.run(compiled('tenant-direct'))).toEqual({ rows: [{ id: 'tenant-direct', name: 'Direct' }] });
  });

  it('refuses a statement sent to a transaction that has ended', async () => {
    let ended: Database['runner'] | undefined;
    await withTransaction(watched.database, async (tx) => {
      ended = tx.runner as Database['runner'];
    });
    expect(() => ended!.run(compiled('nobody'))).toThrow(/transaction has ended/);
  });

  it('runs transactions one at a time, committing or rolling back whole, builder statements included', async () => {
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const first = withTransaction(watched.database, async (tx) => {
      order.push('first begins');
      await executeWrite(tx, tx.db.insertInto('tenants').values(row('tenant-first', 'First')));
      await firstMayCommit;
      order.push('first commits');
    });
    const second = withTransaction(watched.database, async (tx) => {
      order.push('second begins');
      return executeTakeFirst(tx, tx.db.selectFrom('tenants').select('name').where('id', '=', 'tenant-first'));
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    releaseFirst();
    await first;
    expect(await second).toEqual({ name: 'First' });
    expect(order).toEqual(['first begins', 'first commits', 'second begins']);

    const failed = withTransaction(watched.database, async (tx) => {
      await executeWrite(tx, tx.db.insertInto('tenants').values(row('tenant-rolled-back', 'Gone')));
      throw new Error('changed my mind');
    });
    await expect(failed).rejects.toThrow('changed my mind');
    expect(await executeTakeFirst(watched.database, tenantNamed.with({ id: 'tenant-rolled-back' }))).toBeUndefined();
  });

  it('reports a failing builder statement inside a transaction once, and rolls it back', async () => {
    const before = reported.length;
    const twice = withTransaction(watched.database, async (tx) => {
      await executeWrite(tx, tx.db.insertInto('tenants').values(row('tenant-kysely-twice', 'Twice')));
      await executeWrite(tx, tx.db.insertInto('tenants').values(row('tenant-kysely-twice', 'Twice')));
    });
    await expect(twice).rejects.toSatisfy((error: unknown) => watched.database.dialect.errors.isUniqueViolation(error));
    expect(reported.length).toBe(before + 1);
    expect(await executeTakeFirst(watched.database, tenantNamed.with({ id: 'tenant-kysely-twice' }))).toBeUndefined();
  });
});

describe.each(dialects)('[%s] every way of writing a statement ends in the runner', (dialect) => {
  const watched = watchedDatabase(dialect);
  const { reported, seen } = watched;

  it('answers a prepared query, a builder and Kysely’s own executor alike, reporting each statement once', async () => {
    seen.length = 0;
    const insert = await executeWrite(watched.database, insertTenant.with({ id: 'tenant-same', name: 'Same' }));
    expect(insert.affectedRows).toBe(1);
    const read = tenantNamed.compile(watched.database, { id: 'tenant-same' });
    const viaRunner = await watched.database.runner.run(read);
    expect(viaRunner.rows).toEqual([{ id: 'tenant-same', name: 'Same' }]);
    expect((await watched.database.db.executeQuery(read)).rows).toEqual(viaRunner.rows);
    expect(await execute(watched.database, watched.database.db.selectFrom('tenants').select(['id', 'name']).where('id', '=', 'tenant-same'))).toEqual(viaRunner.rows);
    expect(await watched.database.db.selectFrom('tenants').select(['id', 'name']).where('id', '=', 'tenant-same').execute()).toEqual(viaRunner.rows);
    expect(firstWords(seen)).toEqual(['insert', 'select', 'select', 'select', 'select']);
  });

  it('throws the driver’s own error and reports it as a failed statement, once', async () => {
    await executeWrite(watched.database, insertTenant.with({ id: 'tenant-twice', name: 'Once' }));
    const before = reported.length;
    const failure = await executeWrite(watched.database, insertTenant.with({ id: 'tenant-twice', name: 'Twice' })).catch((error: unknown) => error);
    expect(watched.database.dialect.errors.isUniqueViolation(failure)).toBe(true);
    expect(reported.length).toBe(before + 1);
    expect(reported.at(-1)).toBe(failure);
    const viaKysely = await watched.database.db.insertInto('tenants').values(row('tenant-twice', 'Again')).execute().catch((error: unknown) => error);
    expect(watched.database.dialect.errors.isUniqueViolation(viaKysely)).toBe(true);
    expect(reported.length).toBe(before + 2);
  });

  it('reports BEGIN, the statements and COMMIT or ROLLBACK of a transaction', async () => {
    seen.length = 0;
    const failed = withTransaction(watched.database, async (tx) => {
      await executeWrite(tx, insertTenant.with({ id: 'tx-gone-prepared', name: 'Gone' }));
      await executeWrite(tx, tx.db.insertInto('tenants').values(row('tx-gone-built', 'Gone')));
      throw new Error('changed my mind');
    });
    await expect(failed).rejects.toThrow('changed my mind');
    expect(firstWords(seen)).toEqual(['begin', 'insert', 'insert', 'rollback']);
    expect(await executeTakeFirst(watched.database, tenantNamed.with({ id: 'tx-gone-prepared' }))).toBeUndefined();
    expect(await executeTakeFirst(watched.database, tenantNamed.with({ id: 'tx-gone-built' }))).toBeUndefined();

    seen.length = 0;
    await withTransaction(watched.database, (tx) => executeWrite(tx, insertTenant.with({ id: 'tx-kept', name: 'Kept' })));
    expect(firstWords(seen)).toEqual(['begin', 'insert', 'commit']);
  });

  it('is used by isDatabaseReachable, which reports its probe like any statement', async () => {
    seen.length = 0;
    const { isDatabaseReachable } = await import('../create-database.js');
    expect(await isDatabaseReachable(watched.database)).toBe(true);
    expect(seen).toEqual(['select 1']);
    expect(await watched.database.runner.run(CompiledQuery.raw('select 1 as n'))).toMatchObject({ rows: [{ n: 1 }] });
  });
});

describe.each(servers)('[%s] transactions on a pooled connection', (dialect) => {
  const watched = watchedDatabase(dialect);
  const { reported } = watched;

  it('runs each transaction on a connection of its own: its statements see its rows, nobody else does before the commit, and other transactions run meanwhile', async () => {
    let release!: () => void;
    const mayCommit = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const first = withTransaction(watched.database, async (tx) => {
      // The transaction's scope carries a runner of its own, bound to its connection.
      expect(tx.runner).not.toBe(watched.database.runner);
      await executeWrite(tx, insertTenant.with({ id: 'tx-prepared', name: 'Prepared' }));
      expect((await tx.runner.run(tenantNamed.compile(tx, { id: 'tx-prepared' }))).rows).toEqual([{ id: 'tx-prepared', name: 'Prepared' }]);
      await executeWrite(tx, tx.db.insertInto('tenants').values(row('tx-built', 'Built')));
      expect(await executeTakeFirst(tx, tenantNamed.with({ id: 'tx-built' }))).toEqual({ id: 'tx-built', name: 'Built' });
      expect(await executeTakeFirst(tx, tx.db.selectFrom('tenants').select('name').where('id', '=', 'tx-prepared'))).toEqual({ name: 'Prepared' });
      written();
      await mayCommit;
    });
    await wrote;
    expect(await executeTakeFirst(watched.database, tenantNamed.with({ id: 'tx-prepared' }))).toBeUndefined();
    expect(await watched.database.db.selectFrom('tenants').select('name').where('id', '=', 'tx-built').executeTakeFirst()).toBeUndefined();
    // The first still holds its connection: this one commits on another.
    await withTransaction(watched.database, (tx) => executeWrite(tx, insertTenant.with({ id: 'tx-beside', name: 'Beside' })));
    expect(await executeTakeFirst(watched.database, tenantNamed.with({ id: 'tx-beside' }))).toEqual({ id: 'tx-beside', name: 'Beside' });
    release();
    await first;
    expect(await executeTakeFirst(watched.database, tenantNamed.with({ id: 'tx-prepared' }))).toEqual({ id: 'tx-prepared', name: 'Prepared' });
    expect(await executeTakeFirst(watched.database, tenantNamed.with({ id: 'tx-built' }))).toEqual({ id: 'tx-built', name: 'Built' });
  });

  it('throws a failing statement’s own error, reports it once, and the pool serves the next transactions', async () => {
    const before = reported.length;
    const twice = withTransaction(watched.database, async (tx) => {
      await executeWrite(tx, tx.db.insertInto('tenants').values(row('tx-twice', 'Twice')));
      await executeWrite(tx, insertTenant.with({ id: 'tx-twice', name: 'Twice' }));
    });
    await expect(twice).rejects.toSatisfy((error: unknown) => watched.database.dialect.errors.isUniqueViolation(error));
    expect(reported.length).toBe(before + 1);
    expect(await executeTakeFirst(watched.database, tenantNamed.with({ id: 'tx-twice' }))).toBeUndefined();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => withTransaction(watched.database, (tx) => executeWrite(tx, insertTenant.with({ id: `tx-after-${i}`, name: 'After' })))));
    expect(results).toHaveLength(12);
    const { total, idle } = watched.database.connections();
    expect(total - idle).toBe(0);
  });
});

describe.each(dialects)('[%s] closing a database', (dialect) => {
  it('closes its connections even when no statement went through Kysely, and twice is harmless', async () => {
    const t = await openTestDatabase(dialect, { file: true });
    try {
      const database = createDatabase(t.config);
      expect(await executeTakeFirst(database, tenantNamed.with({ id: 'nobody' }))).toBeUndefined();
      await database.destroy();
      await database.destroy();
      await expect(Promise.resolve().then(() => database.runner.run(tenantNamed.compile(database, { id: 'nobody' })))).rejects.toThrow();
    } finally {
      await t.cleanup();
    }
  });
});
