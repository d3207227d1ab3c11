// Runs the migrations with Kysely's Migrator. Like the Migrator, it never throws for a failed
// migration: it returns every migration's status and the error, for the caller to report.
import { type Kysely, type Migration, sql, type MigrationProvider, type MigrationResultSet, Migrator } from 'kysely';
import type { Database } from './create-database.js';
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

/**
 * On PostgreSQL the bookkeeping tables live in the current schema, named explicitly: Kysely
 * otherwise takes a `kysely_migration` table of any other schema (another test worker's) as its own.
 */
async function migrator(database: Database): Promise<Migrator> {
  const db = database.db as unknown as Kysely<unknown>;
  if (database.dialect !== 'postgres') return new Migrator({ db, provider: new ListedMigrations(database) });
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return new Migrator({ db, provider: new ListedMigrations(database), migrationTableSchema: rows[0]!.schema });
}

/**
 * Brings the schema to the latest migration.
 *
 * @example
 * const { error, results } = await migrateToLatest(database);
 * if (error) { console.error(error); process.exit(1); }
 */
export async function migrateToLatest(database: Database): Promise<MigrationResultSet> {
  let m: Migrator;
  try {
    m = await migrator(database);
  } catch (error) {
    return { error };
  }
  return m.migrateToLatest();
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
    throw new Error(`migration failed${failed.length ? ` at ${failed.map((r) => r.migrationName).join(', ')}` : ''}: ${detail}`);
  }
  return results.map((r) => r.migrationName);
}
