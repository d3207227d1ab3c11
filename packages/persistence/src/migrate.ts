// Runs the migrations with Kysely's Migrator. Like the Migrator, it never throws for a failed
// migration: it returns every migration's status and the error, for the caller to report.
import { type Kysely, type Migration, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely';
import type { Database } from './create-database.js';
import { isDatabaseUnavailable } from './database-errors.js';
import { migrationContext } from './migrations/migration-context.js';
import { MIGRATIONS } from './migrations/index.js';

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

/** A Migrator with the dialect's bookkeeping options (where its tables live). */
async function migrator(database: Database): Promise<Migrator> {
  const db = database.db as unknown as Kysely<unknown>;
  return new Migrator({ db, provider: new ListedMigrations(database), ...(await database.dialect.migrations.migratorOptions(db)) });
}

/**
 * Brings the schema to the latest migration.
 *
 * @example
 * const { error, results } = await migrateToLatest(database);
 * if (error) { console.error(error); process.exit(1); }
 */
export async function migrateToLatest(database: Database): Promise<MigrationResultSet> {
  for (let attempt = 1; ; attempt += 1) {
    let result: MigrationResultSet;
    try {
      result = await (await migrator(database)).migrateToLatest();
    } catch (error) {
      result = { error };
    }
    if (attempt >= 5 || !lostRaceWithCatalog(database, result)) return result;
  }
}

/**
 * Kysely's Migrator looks for its own tables by introspecting the database's catalogue; another
 * process changing it meanwhile (test runs drop their schemas) can fail a run before anything was
 * migrated. That says nothing about this database: look again.
 */
function lostRaceWithCatalog(database: Database, result: MigrationResultSet): boolean {
  return result.error !== undefined && database.dialect.migrations.lostCatalogRace(result.error) && (result.results ?? []).length === 0;
}

/**
 * Brings the schema to exactly the named migration, running `down` of later ones (for tests of a
 * migration that transforms existing data).
 *
 * @example await migrateTo(database, '003-crash-safe-idempotency');
 */
export async function migrateTo(database: Database, name: string): Promise<MigrationResultSet> {
  return (await migrator(database)).migrateTo(name);
}

/** The migrations and whether each has run. */
export async function migrationStatus(database: Database): Promise<{ name: string; executedAt: Date | undefined }[]> {
  const all = await (await migrator(database)).getMigrations();
  return all.map((m) => ({ name: m.name, executedAt: m.executedAt }));
}

/** Throws with every failed step named when migrating did not succeed; for start-up code that must stop. */
export async function migrateOrThrow(database: Database): Promise<string[]> {
  const { error, results = [] } = await migrateToLatest(database);
  const failed = results.filter((r) => r.status !== 'Success');
  if (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw new Error(`migration failed${failed.length ? ` at ${failed.map((r) => r.migrationName).join(', ')}` : ''}: ${detail}`, { cause: error });
  }
  return results.map((r) => r.migrationName);
}

/**
 * Migrates, waiting for a database that is not reachable yet (retried with backoff up to
 * `maxDelayMs`, each failure reported through `onUnavailable`); a migration that fails for any
 * other reason throws at once. Stops waiting when `signal` aborts.
 *
 * @example
 * await migrateWhenReachable(database, { onUnavailable: (e, ms) => logger.warn({ reason: e.message, retry_in_ms: ms }, 'database not reachable yet') });
 */
export async function migrateWhenReachable(
  database: Database,
  options: { onUnavailable?: (error: Error, retryInMs: number) => void; signal?: AbortSignal; maxDelayMs?: number } = {},
): Promise<string[]> {
  let delay = 250;
  for (;;) {
    try {
      return await migrateOrThrow(database);
    } catch (error) {
      if (!isDatabaseUnavailable(error) || options.signal?.aborted) throw error;
      options.onUnavailable?.(error as Error, delay);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, options.maxDelayMs ?? 5000);
    }
  }
}
