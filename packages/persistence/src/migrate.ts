// Runs the migrations with Kysely's Migrator. Like the Migrator, it never throws for a failed
// migration: it returns every migration's status and the error, for the caller to report.
//
// Any number of processes may migrate one database at once (they start together): the Migrator
// runs on one session of the database, where the dialect's Kysely adapter takes a lock that
// serialises migrations across processes (each dialect's module says which lock, and how a wait
// for it that ran out reads: `migrations.lockWaitRanOut`). A process that waits finds, once it
// holds the lock, that nothing is left to do. See docs/operating-guarantees.md#start-up-and-readiness.
import { setTimeout as sleep } from 'node:timers/promises';
import { type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely';
import type { Database } from './create-database.js';
import { isDatabaseUnavailable } from './database-errors.js';
import { kyselyOverSession } from './execution/kysely-bridge.js';
import { migrationContext } from './migrations/migration-context.js';
import { MIGRATIONS } from './migrations/index.js';

/**
 * How long a migration waits for the one another process is running (the migration lock) before
 * it gives up: far longer than migrating a new database takes, short enough that a stuck process
 * is reported rather than waited for without end.
 */
export const MIGRATION_LOCK_WAIT_MS = 120_000;

export interface MigrateOptions {
  /** How long to wait for another process's migration; default MIGRATION_LOCK_WAIT_MS. */
  lockWaitMs?: number;
  /** Stops waiting for the migration lock when it aborts (the process is stopping). */
  signal?: AbortSignal;
}

/**
 * Another process held the migration lock for the whole of this one's wait. Not a sign of an
 * unreachable database (it answered all along), so the apps stop instead of waiting on.
 */
export class MigrationLockTimeoutError extends Error {
  override name = 'MigrationLockTimeoutError';
}

class ListedMigrations implements MigrationProvider {
  constructor(private readonly database: Database) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    const context = migrationContext(this.database.dialect);
    return Object.fromEntries(
      Object.entries(MIGRATIONS).map(([name, m]) => [
        name,
        {
          up: (db: Kysely<unknown>) => m.up(db, context),
          ...(m.down ? { down: (db: Kysely<unknown>) => m.down!(db, context) } : {}),
        },
      ]),
    );
  }
}

/** A Migrator over `db` with the dialect's bookkeeping options (where its tables live). */
async function migratorOver(database: Database, db: Kysely<unknown>): Promise<Migrator> {
  return new Migrator({ db, provider: new ListedMigrations(database), ...(await database.dialect.migrations.migratorOptions(db)) });
}

/**
 * One run of `step` on a Migrator over one session of the database: the adapter's lock (which may
 * belong to the connection that took it), the transaction and the release must share a
 * connection, which statements sent to a pool of connections would not.
 */
async function onOneSession(database: Database, step: (migrator: Migrator) => Promise<MigrationResultSet>): Promise<MigrationResultSet> {
  try {
    return await database.runner.session(async (session) => step(await migratorOver(database, kyselyOverSession<unknown>(session, database.dialect.queryDialect))));
  } catch (error) {
    return { error };
  }
}

/**
 * Runs `step` holding the migration lock. A run that failed before migrating anything is run again
 * when it waited past its statement deadline for the lock (another process is migrating: up to
 * `lockWaitMs`, then a MigrationLockTimeoutError naming the database), or lost a race with the
 * catalogue (see lostRaceWithCatalog).
 */
async function serialised(database: Database, step: (migrator: Migrator) => Promise<MigrationResultSet>, options: MigrateOptions): Promise<MigrationResultSet> {
  const lockWaitMs = options.lockWaitMs ?? MIGRATION_LOCK_WAIT_MS;
  const giveUpAt = Date.now() + lockWaitMs;
  let pause = 50;
  for (let catalogueRaces = 0; ; ) {
    const result = await onOneSession(database, step);
    if (lostRaceWithCatalog(database, result)) {
      catalogueRaces += 1;
      if (catalogueRaces < 5) continue;
      return result;
    }
    if (!waitedForLock(database, result) || options.signal?.aborted) return result;
    if (Date.now() + pause >= giveUpAt) return { error: lockNotFree(database, lockWaitMs, result.error) };
    // An attempt that waited at the lock used up its statement deadline there; one refused sooner
    // (a statement before the lock, refused after a short busy wait) is spaced out by the pause.
    await sleep(pause);
    pause = Math.min(pause * 2, 1000);
  }
}

/** Nothing was migrated: the run failed while it looked for its tables, or waited for the lock. */
const nothingMigrated = (result: MigrationResultSet): boolean => result.error !== undefined && (result.results ?? []).length === 0;

/**
 * Kysely's Migrator looks for its own tables by introspecting the database's catalogue; another
 * process changing it meanwhile (test runs drop their schemas) can fail a run before anything was
 * migrated. That says nothing about this database: look again.
 */
function lostRaceWithCatalog(database: Database, result: MigrationResultSet): boolean {
  return nothingMigrated(result) && database.dialect.migrations.lostCatalogRace(result.error);
}

/** Another process held the migration lock past this run's statement deadline: wait again. */
function waitedForLock(database: Database, result: MigrationResultSet): boolean {
  return nothingMigrated(result) && database.dialect.migrations.lockWaitRanOut(result.error);
}

// The driver's error is named in the text, not kept as the cause: it reads as "unavailable", and
// the apps would then wait on (migrateWhenReachable) for a database that answers all along.
function lockNotFree(database: Database, lockWaitMs: number, last: unknown): MigrationLockTimeoutError {
  const detail = last instanceof Error ? last.message : String(last);
  const wait = lockWaitMs % 1000 === 0 ? `${lockWaitMs / 1000} s` : `${lockWaitMs} ms`;
  return new MigrationLockTimeoutError(
    `could not take the migration lock of ${database.description} within ${wait}: another process held it all that time (a migration still running, or a stuck one); last wait: ${detail}`,
  );
}

/**
 * Brings the schema to the latest migration, after any other process's migration of the same
 * database has finished.
 *
 * @example
 * const { error, results } = await migrateToLatest(database);
 * if (error) { console.error(error); process.exit(1); }
 */
export async function migrateToLatest(database: Database, options: MigrateOptions = {}): Promise<MigrationResultSet> {
  return serialised(database, (migrator) => migrator.migrateToLatest(), options);
}

/**
 * Brings the schema to exactly the named migration, running `down` of later ones (for tests of a
 * migration that transforms existing data).
 *
 * @example await migrateTo(database, '003-crash-safe-idempotency');
 */
export async function migrateTo(database: Database, name: string, options: MigrateOptions = {}): Promise<MigrationResultSet> {
  return serialised(database, (migrator) => migrator.migrateTo(name), options);
}

/** The migrations and whether each has run. */
export async function migrationStatus(database: Database): Promise<{ name: string; executedAt: Date | undefined }[]> {
  const all = await (await migratorOver(database, database.db as unknown as Kysely<unknown>)).getMigrations();
  return all.map((m) => ({ name: m.name, executedAt: m.executedAt }));
}

/** Throws with every failed step named when migrating did not succeed; for start-up code that must stop. */
export async function migrateOrThrow(database: Database, options: MigrateOptions = {}): Promise<string[]> {
  const { error, results = [] } = await migrateToLatest(database, options);
  const failed = results.filter((r) => r.status !== 'Success');
  if (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`migration failed${failed.length ? ` at ${failed.map((r) => r.migrationName).join(', ')}` : ''}: ${detail}`, { cause: error });
  }
  return results.map((r) => r.migrationName);
}

/**
 * Migrates, waiting for a database that is not reachable yet (retried with backoff up to
 * `maxDelayMs`, each failure reported through `onUnavailable`) and for another process's
 * migration (up to `lockWaitMs`); a migration that fails for any other reason, or waited for the
 * lock in vain, throws at once. Stops waiting when `signal` aborts.
 *
 * @example
 * await migrateWhenReachable(database, { onUnavailable: (e, ms) => logger.warn({ reason: e.message, retry_in_ms: ms }, 'database not reachable yet') });
 */
export async function migrateWhenReachable(
  database: Database,
  options: MigrateOptions & { onUnavailable?: (error: Error, retryInMs: number) => void; maxDelayMs?: number } = {},
): Promise<string[]> {
  let delay = 250;
  for (;;) {
    try {
      return await migrateOrThrow(database, options);
    } catch (error) {
      if (!isDatabaseUnavailable(error) || options.signal?.aborted) throw error;
      options.onUnavailable?.(error as Error, delay);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, options.maxDelayMs ?? 5000);
    }
  }
}
