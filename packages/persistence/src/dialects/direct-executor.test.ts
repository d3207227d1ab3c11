// Statements run at once (DirectExecutor): an embedded database answers a prepared statement
// without Kysely's asynchronous executor, but only when that overtakes no one. A read must never
// run on the one connection while another caller's transaction holds it (it would see that
// transaction's uncommitted rows); inside its own transaction it runs there.
import type { CompiledQuery } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, createDatabase } from '../create-database.js';
import { migrateOrThrow } from '../migrate.js';
import { type ParamRef, preparedQuery } from '../parameterised-query.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';
import { withTransaction } from '../transaction.js';
import { dialectNamed } from './dialect-registry.js';

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

describe.each(dialects)('[%s] a prepared read beside another caller’s transaction', (dialect) => {
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
    const writer = withTransaction(t.database, async (tx) => {
      await insertTenant.run(tx, { id: 'tenant-in-flight', name: 'In flight' });
      expect(await tenantNamed.takeFirst(tx, { id: 'tenant-in-flight' })).toEqual({ id: 'tenant-in-flight', name: 'In flight' });
      readDuringWrite = tenantNamed.takeFirst(t.database, { id: 'tenant-in-flight' });
      await writerMayFinish;
      throw new Error('roll back');
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    releaseWriter();
    await expect(writer).rejects.toThrow('roll back');
    expect(await readDuringWrite).toBeUndefined();

    await withTransaction(t.database, (tx) => insertTenant.run(tx, { id: 'tenant-committed', name: 'Committed' }));
    expect(await tenantNamed.takeFirst(t.database, { id: 'tenant-committed' })).toEqual({ id: 'tenant-committed', name: 'Committed' });
  });
});

describe.each(embedded)('[%s] statements run at once', (dialect) => {
  const watched = watchedDatabase(dialect);
  const { reported, seen } = watched;

  const compiled = (id: string): CompiledQuery => tenantNamed.compile(watched.database, { id });

  it('answers synchronously while the connection is free, and defers while a transaction holds it', async () => {
    const direct = watched.database.direct!;
    expect(direct).toBeDefined();
    expect(direct.run(compiled('nobody'), false)).toEqual({ rows: [] });
    expect(seen.at(-1)).toBe(compiled('nobody').sql);

    await withTransaction(watched.database, async (tx) => {
      await insertTenant.run(tx, { id: 'tenant-direct', name: 'Direct' });
      // Another caller: must wait for the connection.
      expect(direct.run(compiled('tenant-direct'), false)).toBeUndefined();
      // This transaction: runs in it, seeing its own row.
      expect(direct.run(compiled('tenant-direct'), true)).toEqual({ rows: [{ id: 'tenant-direct', name: 'Direct' }] });
    });
    // Outside any transaction a caller never claims to be inside one.
    expect(direct.run(compiled('tenant-direct'), true)).toBeUndefined();
    expect(direct.run(compiled('tenant-direct'), false)).toEqual({ rows: [{ id: 'tenant-direct', name: 'Direct' }] });
  });

  it('runs transactions one at a time, committing or rolling back whole, Kysely-built statements included', async () => {
    const order: string[] = [];
    let releaseFirst!: () => void;
    const firstMayCommit = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const first = withTransaction(watched.database, async (tx) => {
      expect(tx.db.isTransaction).toBe(true);
      order.push('first begins');
      await tx.db.insertInto('tenants').values({ id: 'tenant-first', name: 'First', tenant_type: 'live', created_at: AT, updated_at: AT }).execute();
      await firstMayCommit;
      order.push('first commits');
    });
    const second = withTransaction(watched.database, async (tx) => {
      order.push('second begins');
      return tx.db.selectFrom('tenants').select('name').where('id', '=', 'tenant-first').executeTakeFirst();
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    releaseFirst();
    await first;
    expect(await second).toEqual({ name: 'First' });
    expect(order).toEqual(['first begins', 'first commits', 'second begins']);

    const failed = withTransaction(watched.database, async (tx) => {
      await tx.db.insertInto('tenants').values({ id: 'tenant-rolled-back', name: 'Gone', tenant_type: 'live', created_at: AT, updated_at: AT }).execute();
      throw new Error('changed my mind');
    });
    await expect(failed).rejects.toThrow('changed my mind');
    expect(await tenantNamed.takeFirst(watched.database, { id: 'tenant-rolled-back' })).toBeUndefined();
  });

  it('reports a failing Kysely-built statement inside a transaction', async () => {
    const before = reported.length;
    const twice = withTransaction(watched.database, async (tx) => {
      const row = { id: 'tenant-kysely-twice', name: 'Twice', tenant_type: 'live', created_at: AT, updated_at: AT };
      await tx.db.insertInto('tenants').values(row).execute();
      await tx.db.insertInto('tenants').values(row).execute();
    });
    await expect(twice).rejects.toSatisfy((error: unknown) => watched.database.dialect.errors.isUniqueViolation(error));
    expect(reported.length).toBe(before + 1);
    expect(await tenantNamed.takeFirst(watched.database, { id: 'tenant-kysely-twice' })).toBeUndefined();
  });

});

describe.each(dialects)('[%s] statements straight on the driver', (dialect) => {
  const watched = watchedDatabase(dialect);
  const { reported } = watched;

  it('answers outside a transaction with what Kysely’s executor answers, and leaves a transaction’s statements to it', async () => {
    const direct = watched.database.direct!;
    expect(direct).toBeDefined();
    const insert = insertTenant.compile(watched.database, { id: 'tenant-same', name: 'Same' });
    const viaDirect = await direct.run(insert, false);
    expect(viaDirect).toEqual({ rows: [], numAffectedRows: 1n, ...(viaDirect && 'insertId' in viaDirect ? { insertId: viaDirect.insertId } : {}) });
    const read = tenantNamed.compile(watched.database, { id: 'tenant-same' });
    expect((await direct.run(read, false))?.rows).toEqual((await watched.database.db.executeQuery(read)).rows);
    expect((await direct.run(read, false))?.rows).toEqual([{ id: 'tenant-same', name: 'Same' }]);
    await withTransaction(watched.database, async (tx) => {
      // Claiming to be inside a transaction, a statement runs on the one connection (embedded); a
      // server's transactions each have a connection of their own, reached through their scope.
      const inside = direct.run(read, true);
      if (inside !== undefined) expect((await inside).rows).toEqual([{ id: 'tenant-same', name: 'Same' }]);
      expect(await tenantNamed.takeFirst(tx, { id: 'tenant-same' })).toEqual({ id: 'tenant-same', name: 'Same' });
    });
  });

  it('throws the driver’s own error and reports it as a failed statement', async () => {
    await insertTenant.run(watched.database, { id: 'tenant-twice', name: 'Once' });
    const before = reported.length;
    const failure = await insertTenant.run(watched.database, { id: 'tenant-twice', name: 'Twice' }).catch((error: unknown) => error);
    expect(watched.database.dialect.errors.isUniqueViolation(failure)).toBe(true);
    expect(reported.length).toBe(before + 1);
    expect(reported.at(-1)).toBe(failure);
  });
});

describe.each(servers)('[%s] transactions straight on a pooled connection', (dialect) => {
  const watched = watchedDatabase(dialect);
  const { reported, seen } = watched;

  const row = (id: string, name: string) => ({ id, name, tenant_type: 'live' as const, created_at: AT, updated_at: AT });

  it('runs each transaction on a connection of its own: its prepared and Kysely-built statements see its rows, nobody else does before the commit, and other transactions run meanwhile', async () => {
    let release!: () => void;
    const mayCommit = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => (written = resolve));
    const first = withTransaction(watched.database, async (tx) => {
      // The transaction's scope carries an executor of its own, bound to its connection: the
      // database's would leave a transaction's statement to Kysely.
      expect(watched.database.direct!.transaction).toBeDefined();
      expect(tx.direct).toBeDefined();
      expect(tx.direct).not.toBe(watched.database.direct);
      expect(watched.database.direct!.run(tenantNamed.compile(tx, { id: 'tx-prepared' }), true)).toBeUndefined();
      await insertTenant.run(tx, { id: 'tx-prepared', name: 'Prepared' });
      expect((await tx.direct!.run(tenantNamed.compile(tx, { id: 'tx-prepared' }), true))?.rows).toEqual([{ id: 'tx-prepared', name: 'Prepared' }]);
      await tx.db.insertInto('tenants').values(row('tx-built', 'Built')).execute();
      expect(await tenantNamed.takeFirst(tx, { id: 'tx-built' })).toEqual({ id: 'tx-built', name: 'Built' });
      expect(await tx.db.selectFrom('tenants').select('name').where('id', '=', 'tx-prepared').executeTakeFirst()).toEqual({ name: 'Prepared' });
      written();
      await mayCommit;
    });
    await wrote;
    expect(await tenantNamed.takeFirst(watched.database, { id: 'tx-prepared' })).toBeUndefined();
    expect(await watched.database.db.selectFrom('tenants').select('name').where('id', '=', 'tx-built').executeTakeFirst()).toBeUndefined();
    // The first still holds its connection: this one commits on another.
    await withTransaction(watched.database, (tx) => insertTenant.run(tx, { id: 'tx-beside', name: 'Beside' }));
    expect(await tenantNamed.takeFirst(watched.database, { id: 'tx-beside' })).toEqual({ id: 'tx-beside', name: 'Beside' });
    release();
    await first;
    expect(await tenantNamed.takeFirst(watched.database, { id: 'tx-prepared' })).toEqual({ id: 'tx-prepared', name: 'Prepared' });
    expect(await tenantNamed.takeFirst(watched.database, { id: 'tx-built' })).toEqual({ id: 'tx-built', name: 'Built' });
  });

  it('rolls back whole when the work throws, and reports BEGIN, the statements and COMMIT or ROLLBACK as Kysely’s log would', async () => {
    seen.length = 0;
    const failed = withTransaction(watched.database, async (tx) => {
      await insertTenant.run(tx, { id: 'tx-gone-prepared', name: 'Gone' });
      await tx.db.insertInto('tenants').values(row('tx-gone-built', 'Gone')).execute();
      throw new Error('changed my mind');
    });
    await expect(failed).rejects.toThrow('changed my mind');
    expect(await tenantNamed.takeFirst(watched.database, { id: 'tx-gone-prepared' })).toBeUndefined();
    expect(await tenantNamed.takeFirst(watched.database, { id: 'tx-gone-built' })).toBeUndefined();
    expect(seen.slice(0, 4).map((text) => text.split(' ')[0]!.toLowerCase())).toEqual(['begin', 'insert', 'insert', 'rollback']);

    seen.length = 0;
    await withTransaction(watched.database, (tx) => insertTenant.run(tx, { id: 'tx-kept', name: 'Kept' }));
    expect(seen.map((text) => text.split(' ')[0]!.toLowerCase())).toEqual(['begin', 'insert', 'commit']);
  });

  it('throws a failing statement’s own error, reports it once, and the pool serves the next transaction', async () => {
    const before = reported.length;
    const twice = withTransaction(watched.database, async (tx) => {
      await tx.db.insertInto('tenants').values(row('tx-twice', 'Twice')).execute();
      await insertTenant.run(tx, { id: 'tx-twice', name: 'Twice' });
    });
    await expect(twice).rejects.toSatisfy((error: unknown) => watched.database.dialect.errors.isUniqueViolation(error));
    expect(reported.length).toBe(before + 1);
    expect(await tenantNamed.takeFirst(watched.database, { id: 'tx-twice' })).toBeUndefined();
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => withTransaction(watched.database, (tx) => insertTenant.run(tx, { id: `tx-after-${i}`, name: 'After' }))));
    expect(results).toHaveLength(12);
  });
});

