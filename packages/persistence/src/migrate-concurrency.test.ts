// Several processes started at once on a new database all migrate it
// (docs/operating-guarantees.md#start-up-and-readiness): here, separate connections (a Database
// each, all opened on one new throwaway database) call migrateToLatest together. Each must succeed,
// each migration must have run exactly once, and the schema must end at the latest migration. One
// that waits for another's migration longer than its statement deadline waits on; one that waits
// longer than its lock wait says which database it waited for; and a run that fails leaves none of
// its migrations behind.
import { type Kysely, type MigrationLockOptions, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type Database, createDatabase } from './create-database.js';
import type { DatabaseConfig } from './database-config.js';
import { dialectNamed } from './dialects/dialect-registry.js';
import type { ThrowawayDatabase } from './dialects/sql-dialect.js';
import { kyselyOverSession } from './execution/kysely-bridge.js';
import { MigrationLockTimeoutError, migrateToLatest, migrationStatus } from './migrate.js';
import { MIGRATIONS } from './migrations/index.js';
import { testDialects } from './testing/index.js';

const dialects = await testDialects();

const ROUNDS = 8;
const CONNECTIONS = 3;

/** Kysely's lock table and row (the Migrator's defaults; an adapter that locks otherwise ignores them). */
const LOCK: MigrationLockOptions = { lockTable: 'kysely_migration_lock', lockRowId: 'migration_lock' };

/**
 * Takes the migration lock on one session of `database` the way Kysely's Migrator does, through the
 * adapter's public hooks (and, where the adapter runs migrations in a transaction, that
 * transaction), and holds it until `release` is called.
 */
async function holdMigrationLock(database: Database): Promise<{ release: () => Promise<void> }> {
  let letGo!: () => void;
  const released = new Promise<void>((resolve) => (letGo = resolve));
  let taken!: () => void;
  const held = new Promise<void>((resolve) => (taken = resolve));
  const adapter = database.dialect.queryDialect.createAdapter();
  const hold = async (): Promise<void> => {
    taken();
    await released;
  };
  const done = database.runner.session((session) =>
    kyselyOverSession<unknown>(session, database.dialect.queryDialect)
      .connection()
      .execute(async (connection: Kysely<unknown>) => {
        await adapter.acquireMigrationLock(connection, LOCK);
        try {
          if (adapter.supportsTransactionalDdl) await connection.transaction().execute(hold);
          else await hold();
        } finally {
          await adapter.releaseMigrationLock(connection, LOCK);
        }
      }),
  );
  await Promise.race([held, done]);
  return {
    release: async () => {
      letGo();
      await done;
    },
  };
}

describe.each(dialects)('[%s] migrations started together', (name) => {
  let throwaway: ThrowawayDatabase<DatabaseConfig> | undefined;
  let databases: Database[] = [];

  afterEach(async () => {
    await Promise.all(databases.map((d) => d.destroy()));
    databases = [];
    await throwaway?.drop();
    throwaway = undefined;
  });

  it(
    `${CONNECTIONS} connections migrating one new database at once all succeed, ${ROUNDS} times over`,
    async () => {
      const latest = Object.keys(MIGRATIONS);
      for (let round = 1; round <= ROUNDS; round += 1) {
        throwaway = await dialectNamed(name).testing.createThrowaway(process.env, { shared: true, poolSize: 2 });
        databases = Array.from({ length: CONNECTIONS }, () => createDatabase(throwaway!.config));
        const outcomes = await Promise.all(databases.map((database) => migrateToLatest(database)));

        const errors = outcomes.map((o) => (o.error === undefined ? undefined : String((o.error as Error).message ?? o.error)));
        expect(errors, `round ${round}`).toEqual(Array.from({ length: CONNECTIONS }, () => undefined));
        // Each migration ran once, by whichever connection got there first; the others found nothing to do.
        const applied = outcomes.flatMap((o) => (o.results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName)).sort();
        expect(applied, `round ${round}`).toEqual(latest);
        for (const database of databases) {
          const status = await migrationStatus(database);
          expect(status.map((s) => [s.name, s.executedAt instanceof Date]), `round ${round}`).toEqual(latest.map((m) => [m, true]));
        }

        await Promise.all(databases.map((d) => d.destroy()));
        databases = [];
        await throwaway.drop();
        throwaway = undefined;
      }
    },
    ROUNDS * 60_000,
  );

  it('waits for the lock longer than its own statement deadline, then migrates', async () => {
    throwaway = await dialectNamed(name).testing.createThrowaway(process.env, { shared: true, poolSize: 2 });
    const holder = createDatabase(throwaway.config);
    // Its statement deadline bounds each wait for the lock: the migration waits more than four of them.
    const impatient = createDatabase({ ...throwaway.config, deadlines: { statementTimeoutMs: 400 } });
    databases = [holder, impatient];
    const lock = await holdMigrationLock(holder);
    const waiting = migrateToLatest(impatient);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await lock.release();
    const { error, results = [] } = await waiting;
    expect(error).toBeUndefined();
    expect(results.map((r) => [r.migrationName, r.status])).toEqual(Object.keys(MIGRATIONS).map((m) => [m, 'Success']));
  }, 60_000);

  it('gives up after its lock wait with an error that names the database, and migrates once the lock is free', async () => {
    throwaway = await dialectNamed(name).testing.createThrowaway(process.env, { shared: true, poolSize: 2 });
    const holder = createDatabase(throwaway.config);
    const impatient = createDatabase({ ...throwaway.config, deadlines: { statementTimeoutMs: 200 } });
    databases = [holder, impatient];
    const lock = await holdMigrationLock(holder);
    let outcome;
    try {
      outcome = await migrateToLatest(impatient, { lockWaitMs: 1000 });
    } finally {
      await lock.release();
    }
    expect(outcome.error).toBeInstanceOf(MigrationLockTimeoutError);
    expect((outcome.error as Error).message).toContain(`could not take the migration lock of ${impatient.description} within 1 s`);
    expect(impatient.description).not.toBe('');
    expect(outcome.results ?? []).toEqual([]);
    expect((await migrateToLatest(impatient)).error).toBeUndefined();
    expect((await migrationStatus(impatient)).every((m) => m.executedAt instanceof Date)).toBe(true);
  }, 60_000);

  it('a run that fails leaves none of its migrations behind', async () => {
    throwaway = await dialectNamed(name).testing.createThrowaway(process.env, { shared: true, poolSize: 2 });
    const database = createDatabase(throwaway.config);
    databases = [database];
    // 011 creates this table after it has created others and added columns: it fails halfway.
    await sql`create table calendar_shift (id integer)`.execute(database.db);
    const failed = await migrateToLatest(database);
    expect(String((failed.error as Error | undefined)?.message)).toMatch(/calendar_shift/);
    expect(failed.results?.find((r) => r.status === 'Error')?.migrationName).toBe('011-lots');
    const tables = (await database.db.introspection.getTables()).map((t) => t.name);
    expect(tables).not.toContain('partners');
    expect(tables).not.toContain('lots');
    expect((await migrationStatus(database)).filter((m) => m.executedAt !== undefined)).toEqual([]);
    await sql`drop table calendar_shift`.execute(database.db);
    expect((await migrateToLatest(database)).error).toBeUndefined();
  }, 60_000);
});
