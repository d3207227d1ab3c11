// Every operation of every dialect, on a real database of that dialect: what it returns, what it
// locks, what errors it recognises, and what its test support gives.
import { randomUUID } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Database, createDatabase } from '../create-database.js';
import type { DatabaseConfig } from '../database-config.js';
import { classifyDatabaseError, isDatabaseUnavailable } from '../database-errors.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { type TestDatabase, openTestDatabase, seedTenantWorld, testDialects } from '../testing/index.js';
import { REGISTERED_DIALECTS, areaStoreOf, dialectNamed, dialectOf } from './dialect-registry.js';
import { execute, executeTakeFirst, executeWrite } from '../execution/execute.js';

const dialects = await testDialects();
const NOW = '2026-11-22T00:00:00.000Z';

async function caught(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

/** Resolves after `ms`, for checking that something is still waiting. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A promise and whether it has settled yet. */
function watched<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let done = false;
  const tracked = promise.finally(() => (done = true));
  return { promise: tracked, settled: () => done };
}

/** Opens a transaction on `database` and keeps it open until `release` is called. */
function holdTransaction(database: Database, work: (tx: Tx) => Promise<unknown>) {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  let ready!: (value: unknown) => void;
  const started = new Promise((resolve) => (ready = resolve));
  const done = withTransaction(database, async (tx) => {
    ready(await work(tx));
    await held;
  });
  return { started, release, done };
}

async function tenantRow(scope: Scope, name: string): Promise<string> {
  const id = randomUUID();
  await executeWrite(scope, scope.db.insertInto('tenants').values({ id, name, tenant_type: 'live', created_at: NOW, updated_at: NOW }));
  return id;
}

describe('the dialect registry', () => {
  it('has one dialect per configuration name, and refuses a name it does not know', () => {
    for (const dialect of REGISTERED_DIALECTS) expect(dialectNamed(dialect.name)).toBe(dialect);
    expect(new Set(REGISTERED_DIALECTS.map((d) => d.name)).size).toBe(REGISTERED_DIALECTS.length);
    expect(() => dialectNamed('oracle')).toThrow(/unknown database dialect "oracle"/);
    expect(() => dialectNamed('')).toThrow(/unknown database dialect/);
    expect(() => dialectNamed('toString')).toThrow(/unknown database dialect/);
    expect(() => dialectOf({ dialect: 'mysql', url: 'mysql://x' } as unknown as DatabaseConfig)).toThrow(/unknown database dialect "mysql"/);
  });

  it('declares every operation of the interface on every dialect', () => {
    for (const dialect of REGISTERED_DIALECTS) {
      // Each dialect's area search and import live with the area repository, one store per dialect name.
      const areas = areaStoreOf({ dialect });
      const operations = [
        dialect.open, dialect.lockRows, dialect.lockRowsSkipLocked, dialect.insertReturningAll, dialect.insertReturning,
        dialect.updateReturningAll, dialect.insertIgnoringDuplicates, dialect.upsert, dialect.containsLowerCase,
        dialect.migrations.idColumn, dialect.migrations.migratorOptions, dialect.migrations.lostCatalogRace,
        dialect.migrations.ddl.makeLedgerImmutable, dialect.migrations.ddl.createAreaSubstringIndexes, dialect.migrations.ddl.dropAreaSubstringIndexes,
        areas.matchRegions, areas.matchVillageCodes, areas.existingAreas, areas.insertAreas,
        areas.updateAreas, areas.insertRegions, areas.updateRegions,
        dialect.errors.isUniqueViolation, dialect.errors.isCheckViolation, dialect.errors.isTransientConflict, dialect.errors.isUnavailable,
        dialect.errors.isTimeout, dialect.open, dialect.queryDialect.createAdapter, dialect.queryDialect.createQueryCompiler, dialect.queryDialect.createIntrospector,
        dialect.url.parse, dialect.url.describe, dialect.url.identity,
        dialect.testing.availability, dialect.testing.createThrowaway, dialect.testing.childDatabaseUrl, dialect.testing.holdWriteLock,
      ];
      expect(operations.every((op) => typeof op === 'function')).toBe(true);
      expect(Number.isInteger(areas.shortestIndexedNeedle)).toBe(true);
    }
  });
});

describe.each(dialects)('[%s] dialect operations', (name) => {
  const dialect = dialectNamed(name);
  let t: TestDatabase;
  let other: Database;
  beforeAll(async () => {
    t = await openTestDatabase(name, { file: true });
    other = t.connectAgain();
  });
  afterAll(() => t.cleanup());

  it('opens with the value types every dialect returns, through the migrations’ column types', async () => {
    const db = t.database.db as unknown as Kysely<unknown>;
    const { columnTypes: c, idColumn } = dialect.migrations;
    await db.schema
      .createTable('dialect_values')
      .addColumn('id', c.id, idColumn)
      .addColumn('n', c.bigint)
      .addColumn('q', c.quantity)
      .addColumn('m', c.money)
      .addColumn('ts', c.timestamp)
      .addColumn('d', c.date)
      .addColumn('b', c.boolean)
      .addColumn('f', c.boolean)
      .addColumn('j', c.json)
      .addColumn('t', c.text)
      .execute();
    const values = { n: Number.MAX_SAFE_INTEGER, q: 1234567, m: '39.98', ts: '2026-01-31T08:15:30.123Z', d: '2026-01-31', b: 1, f: 0, j: '{"a":[1,"x"]}', t: 'text' };
    await sql`insert into dialect_values (n, q, m, ts, d, b, f, j, t) values (${sql.join(Object.values(values))})`.execute(db);
    await sql`insert into dialect_values (n, q, m, ts, d, b, f, j, t) values (${sql.join(Object.values(values))})`.execute(db);
    const { rows } = await sql<Record<string, unknown>>`select * from dialect_values order by id`.execute(db);
    expect(rows.map((r) => r.id)).toEqual([1, 2]);
    const row = rows[0]!;
    expect({ ...row, id: undefined, m: Number(row.m), j: JSON.parse(row.j as string) as unknown }).toEqual({ ...values, id: undefined, m: 39.98, j: { a: [1, 'x'] } });
    expect(typeof row.m).toBe('string');
    await db.schema.dropTable('dialect_values').execute();
  });

  it('gives timestamps back as the ISO strings they were written as, whatever their fraction', async () => {
    const db = t.database.db as unknown as Kysely<unknown>;
    await db.schema.createTable('dialect_times').addColumn('ts', dialect.migrations.columnTypes.timestamp).execute();
    const written = ['2026-01-31T08:15:30.000Z', '2026-01-31T08:15:30.100Z', '2026-01-31T08:15:30.120Z', '2026-12-31T23:59:59.999Z', '1999-02-28T00:00:00.001Z'];
    for (const ts of written) await sql`insert into dialect_times (ts) values (${ts})`.execute(db);
    const { rows } = await sql<{ ts: unknown }>`select ts from dialect_times order by ts`.execute(db);
    expect(rows.map((r) => r.ts)).toEqual([...written].sort());
    await db.schema.dropTable('dialect_times').execute();
  });

  it('lockRows: a row one transaction locked is read under lock by another only after the first ends', async () => {
    const id = await tenantRow(t.database, 'locked');
    const lockTenant = (scope: Scope) => executeTakeFirst(scope, scope.dialect.lockRows(scope.db.selectFrom('tenants').select('name').where('id', '=', id)));
    const first = holdTransaction(t.database, async (tx) => {
      await lockTenant(tx);
      await executeWrite(tx, tx.db.updateTable('tenants').set({ name: 'changed by the first' }).where('id', '=', id));
    });
    await first.started;
    const second = watched(withTransaction(other, lockTenant));
    await pause(300);
    expect(second.settled()).toBe(false);
    first.release();
    await first.done;
    expect(await second.promise).toEqual({ name: 'changed by the first' });
  });

  it('lockRowsSkipLocked: leaves out the rows another transaction holds, and reads the rest', async () => {
    const ids = [await tenantRow(t.database, 'skip-a'), await tenantRow(t.database, 'skip-b')];
    const lockAll = (scope: Scope) =>
      execute(scope, scope.dialect.lockRowsSkipLocked(scope.db.selectFrom('tenants').select('id').where('id', 'in', ids).orderBy('id')));
    const first = holdTransaction(t.database, (tx) => execute(tx, tx.dialect.lockRows(tx.db.selectFrom('tenants').select('id').where('id', '=', ids[0]!))));
    await first.started;
    const second = watched(withTransaction(other, lockAll));
    await pause(300);
    if (dialect.capabilities.hasRowLocks) {
      // Only the row the first holds is skipped, at once.
      expect(second.settled()).toBe(true);
      expect((await second.promise).map((r) => r.id)).toEqual([ids[1]]);
    } else {
      // The first transaction holds the whole database: the second waits, then finds nothing held.
      expect(second.settled()).toBe(false);
    }
    first.release();
    await first.done;
    if (!dialect.capabilities.hasRowLocks) expect((await second.promise).map((r) => r.id)).toEqual([...ids].sort());
  });

  it('insertReturningAll, insertReturning and updateReturningAll return what they wrote', async () => {
    const id = randomUUID();
    const inserted = await dialect.insertReturningAll(t.database.db.insertInto('tenants').values({ id, name: 'r', tenant_type: 'live', created_at: NOW, updated_at: NOW })).executeTakeFirstOrThrow();
    expect(inserted).toEqual({ id, name: 'r', tenant_type: 'live', created_at: NOW, updated_at: NOW });
    const partner = await dialect
      .insertReturning(t.database.db.insertInto('partners').values({ name: 'p', email: 'e', tier: 'small', app_id: randomUUID(), app_key: 'k', created_at: NOW, updated_at: NOW }), ['id', 'tier'])
      .executeTakeFirstOrThrow();
    expect(partner).toEqual({ id: expect.any(Number) as number, tier: 'small' });
    const updated = await dialect.updateReturningAll(t.database.db.updateTable('tenants').set({ name: 'renamed' }).where('id', '=', id)).execute();
    expect(updated).toEqual([{ ...inserted, name: 'renamed' }]);
    expect(await dialect.updateReturningAll(t.database.db.updateTable('tenants').set({ name: 'x' }).where('id', '=', randomUUID())).execute()).toEqual([]);
  });

  it('insertsInWith tells whether an insert runs in a WITH of the statement that reads its rows', async () => {
    const tenantId = await tenantRow(t.database, 'with-insert');
    const db = t.database.db;
    const statement = db
      .with('added', (qc) => dialect.insertReturning(qc.insertInto('document_sequences').values({ tenant_id: tenantId, prefix: 'WITH', last_value: 4 }), ['last_value']))
      .selectFrom('added')
      .select((eb) => eb(eb.ref('last_value'), '+', 1).as('next'));
    if (dialect.insertsInWith) {
      expect(await execute(t.database, statement)).toEqual([{ next: 5 }]);
      expect(await execute(t.database, db.selectFrom('document_sequences').select('last_value').where('tenant_id', '=', tenantId))).toEqual([{ last_value: 4 }]);
    } else {
      // Refused, and nothing written: the stock writes must send the insert on its own.
      await expect(execute(t.database, statement)).rejects.toThrow();
      expect(await execute(t.database, db.selectFrom('document_sequences').select('last_value').where('tenant_id', '=', tenantId))).toEqual([]);
    }
  });

  it('insertIgnoringDuplicates skips a taken key; upsert updates the row that holds it', async () => {
    const tenantId = await tenantRow(t.database, 'sequences');
    const insert = (last: number) => t.database.db.insertInto('document_sequences').values({ tenant_id: tenantId, prefix: 'ADJ', last_value: last });
    await dialect.insertIgnoringDuplicates(insert(5), ['tenant_id', 'prefix']).execute();
    await dialect.insertIgnoringDuplicates(insert(9), ['tenant_id', 'prefix']).execute();
    const read = () => t.database.db.selectFrom('document_sequences').select('last_value').where('tenant_id', '=', tenantId).execute();
    expect(await read()).toEqual([{ last_value: 5 }]);
    const next = () =>
      dialect
        .insertReturning(dialect.upsert(insert(1), ['tenant_id', 'prefix'], (eb) => ({ last_value: eb('document_sequences.last_value', '+', 1) })), ['last_value'])
        .executeTakeFirstOrThrow();
    expect(await next()).toEqual({ last_value: 6 });
    expect(await next()).toEqual({ last_value: 7 });
    expect(await read()).toEqual([{ last_value: 7 }]);
  });

  it('containsLowerCase matches a substring, with LIKE wildcards taken literally', async () => {
    const hit = async (text: string, needle: string) => {
      const { rows } = await sql<{ hit: number }>`select case when ${dialect.containsLowerCase(sql<string>`${text}`, needle)} then 1 else 0 end as hit`.execute(t.database.db);
      return Number(rows[0]?.hit);
    };
    expect(await hit('kota 50% bandung_x', '50%')).toBe(1);
    expect(await hit('kota 50x bandung', '50%')).toBe(0);
    expect(await hit('a_b', 'a_b')).toBe(1);
    expect(await hit('axb', 'a_b')).toBe(0);
    expect(await hit('c:\\dir', '\\d')).toBe(1);
  });

  it('areas: matches regions and villages by substring, quotes and all', async () => {
    const area = (code: string, village: string) => ({
      country: 'Indonesia', country_code: 'ID', state: 'Jawa "Barat"', state_code: '32', city: 'Kota Bandung', city_code: '32.73',
      district: 'Coblong', district_code: '32.73.02', subdistrict: village, subdistrict_code: code, postcode: '40132', latitude: '-6.9', longitude: '107.6',
    });
    const { upsertAreaBatch } = await import('../repositories/areas/area-repository.js');
    await upsertAreaBatch(t.database, [area('32.73.02.1001', 'Dago'), area('32.73.02.1002', 'Lebak "Siliwangi"')], { now: new Date(NOW) });
    expect(await areaStoreOf(t.database).matchVillageCodes(t.database, 'k "sil')).toEqual(['32.73.02.1002']);
    expect(await areaStoreOf(t.database).matchVillageCodes(t.database, 'dag')).toEqual(['32.73.02.1001']);
    expect(await areaStoreOf(t.database).matchRegions(t.database, ['province'], 'a "bar')).toEqual([{ level: 'province', code: '32', area_count: 2 }]);
    expect(await areaStoreOf(t.database).matchRegions(t.database, ['city', 'district'], 'xyz')).toEqual([]);
  });

  it('recognises a unique violation and a CHECK violation from the driver, and nothing else as one', async () => {
    const id = await tenantRow(t.database, 'unique');
    const duplicate = await caught(t.database.db.insertInto('tenants').values({ id, name: 'dup', tenant_type: 'live', created_at: NOW, updated_at: NOW }).execute());
    expect(dialect.errors.isUniqueViolation(duplicate)).toBe(true);
    expect(dialect.errors.isCheckViolation(duplicate)).toBe(false);
    const check = await caught(
      t.database.db.insertInto('partners').values({ name: 'p', email: 'e', tier: 'huge' as 'small', app_id: 'a', app_key: 'k', created_at: NOW, updated_at: NOW }).execute(),
    );
    expect(dialect.errors.isCheckViolation(check)).toBe(true);
    expect(dialect.errors.isUniqueViolation(check)).toBe(false);
    for (const error of [duplicate, check, new Error('plain'), null, 'text']) {
      expect(dialect.errors.isTransientConflict(error)).toBe(false);
      expect(dialect.errors.isUnavailable(error)).toBe(false);
      expect(dialect.errors.isTimeout(error)).toBe(false);
    }
    expect([duplicate, check, new Error('plain')].map(classifyDatabaseError)).toEqual(['constraint', 'constraint', 'other']);
  });

  it('reports how its connections are used: a pool lends and takes back, an embedded database has its one handle', async () => {
    const before = t.database.connections();
    expect(before.total).toBeGreaterThanOrEqual(1);
    expect(before.waiting).toBe(0);
    const holder = holdTransaction(t.database, async () => t.database.connections());
    try {
      const during = (await holder.started) as ReturnType<Database['connections']>;
      if (dialect.capabilities.embedded) expect(during).toEqual({ total: 1, idle: 1, waiting: 0 });
      else expect(during.total - during.idle).toBeGreaterThanOrEqual(1);
    } finally {
      holder.release();
      await holder.done;
    }
    const after = t.database.connections();
    expect(after.total - after.idle).toBe(0);
  });

  it('recognises a lock wait that ran out as unavailable (the write lock held through holdWriteLock)', async () => {
    const reported: unknown[] = [];
    const impatient = createDatabase({ ...t.config, deadlines: { statementTimeoutMs: 300, connectTimeoutMs: 1000 } }, { onQueryError: (e) => reported.push(e) });
    const holder = holdTransaction(t.database, (tx) => tx.dialect.testing.holdWriteLock(tx, 'tenants'));
    try {
      await holder.started;
      const error = await caught(withTransaction(impatient, (tx) => tenantRow(tx, 'blocked')));
      expect(dialect.errors.isUnavailable(error)).toBe(true);
      expect(dialect.errors.isTimeout(error)).toBe(true);
      expect(classifyDatabaseError(error)).toBe('timeout');
      // The statement that waited was reported to the database's events, as metrics count it.
      expect(reported.map(classifyDatabaseError)).toContain('timeout');
      expect(isDatabaseUnavailable(error)).toBe(true);
      expect(dialect.errors.isUniqueViolation(error)).toBe(false);
    } finally {
      holder.release();
      await holder.done;
      await impatient.destroy();
    }
    // The wait ran out; the database itself serves on.
    expect(await withTransaction(other, (tx) => tenantRow(tx, 'free again'))).toEqual(expect.any(String));
  });

  it('keeps stock_ledger rows immutable (the migrations’ makeLedgerImmutable)', async () => {
    await seedTenantWorld(t.database, { products: 1, openingGood: '3', label: 'Ledger' });
    const [row] = await t.database.db.selectFrom('stock_ledger').select('id').execute();
    expect(row).toBeDefined();
    expect(String(await caught(sql`update stock_ledger set actor = 'someone else' where id = ${row!.id}`.execute(t.database.db)))).toMatch(/immutable/);
    expect(String(await caught(sql`delete from stock_ledger where id = ${row!.id}`.execute(t.database.db)))).toMatch(/immutable/);
  });

  it('gives migrator options that find this database’s own bookkeeping', async () => {
    const options = await dialect.migrations.migratorOptions(t.database.db as unknown as Kysely<unknown>);
    const { Migrator } = await import('kysely');
    const migrator = new Migrator({ db: t.database.db as unknown as Kysely<unknown>, provider: { getMigrations: async () => ({}) }, ...options });
    const { error } = await migrator.migrateToLatest();
    // Every listed migration ran already and none is listed here: Kysely finds its own table and complains of that.
    expect(String(error)).toMatch(/corrupted migrations/);
    expect(dialect.migrations.lostCatalogRace(new Error('plain'))).toBe(false);
    expect(dialect.migrations.lockWaitRanOut(new Error('plain'))).toBe(false);
  });

  it('test support: a throwaway database another process can reach by URL, dropped afterwards', async () => {
    expect(await dialect.testing.availability(process.env)).toEqual({ available: true });
    const throwaway = await dialect.testing.createThrowaway(process.env, { shared: true, poolSize: 2 });
    expect(throwaway.url).toEqual(expect.any(String));
    const first = createDatabase(throwaway.config);
    await sql`create table probe (n integer)`.execute(first.db);
    await sql`insert into probe (n) values (7)`.execute(first.db);
    const url = await dialect.testing.childDatabaseUrl(first.db, process.env);
    expect(url).toBe(throwaway.url);
    const { parseDatabaseUrl } = await import('../database-config.js');
    const child = createDatabase(parseDatabaseUrl(url));
    expect((await sql<{ n: number }>`select n from probe`.execute(child.db)).rows).toEqual([{ n: 7 }]);
    await child.destroy();
    await first.destroy();
    await throwaway.drop();
    const after = createDatabase(throwaway.config);
    expect(await caught(sql`select n from probe`.execute(after.db))).toBeInstanceOf(Error);
    await after.destroy();
    await throwaway.drop();
  });
});
