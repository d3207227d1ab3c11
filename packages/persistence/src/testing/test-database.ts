// Test databases for every registered dialect (../dialects/dialect-registry.ts): each dialect
// makes its own throwaway database (an in-memory or temporary-file one, a schema dropped
// afterwards) and says whether this run can reach it. A dialect this run cannot reach is skipped
// with a printed reason, except under CI=true, where that fails the run: CI never skips a database test.
import { type Database, createDatabase } from '../create-database.js';
import type { DatabaseConfig, DialectName } from '../database-config.js';
import { REGISTERED_DIALECTS, dialectNamed } from '../dialects/dialect-registry.js';
import type { DialectCapabilities } from '../dialects/sql-dialect.js';
import { migrateOrThrow } from '../migrate.js';

/**
 * The dialects this run tests, by name: every registered one this run can reach (all of them
 * under CI). Narrow with TEST_DIALECTS, a comma-separated list of names.
 *
 * @example
 * const dialects = await testDialects();
 * describe.each(dialects)('[%s] adjustments', (dialect) => { ... });
 */
export async function testDialects(): Promise<DialectName[]> {
  const wanted = process.env.TEST_DIALECTS?.split(',').map((d) => d.trim());
  const names: DialectName[] = [];
  for (const dialect of REGISTERED_DIALECTS) {
    if (wanted && !wanted.includes(dialect.name)) continue;
    const availability = await dialect.testing.availability(process.env);
    if (availability.available) names.push(dialect.name);
    else if (process.env.CI === 'true') throw new Error(`${availability.reason}; CI requires it`);
    else console.warn(`[skip] ${dialect.name} tests skipped: ${availability.reason}`);
  }
  return names;
}

/**
 * What tests may rely on a dialect for, by name (for `describe.runIf` before a database is open).
 *
 * @example describe.runIf(capabilitiesOf(dialect).hasRowLocks)('row locks', () => { ... });
 */
export function capabilitiesOf(dialect: DialectName): DialectCapabilities {
  return dialectNamed(dialect).capabilities;
}

/**
 * A dialect whose database runs inside the process, for tests that need some database rather
 * than every one (an app's HTTP plumbing, a demo load): no server, nothing to skip.
 *
 * @example const t = await openTestDatabase(embeddedTestDialect(), { file: true });
 */
export function embeddedTestDialect(): DialectName {
  const embedded = REGISTERED_DIALECTS.find((d) => d.capabilities.embedded);
  if (!embedded) throw new Error('no registered dialect runs inside the process');
  return embedded.name;
}

export interface TestDatabase {
  database: Database;
  /** What it was opened with: open another database on it with other settings. */
  config: DatabaseConfig;
  /** Opens another connection (pool) to the same database, for cross-connection tests. */
  connectAgain(): Database;
  /** Closes every connection and drops what the test created. */
  cleanup(): Promise<void>;
}

/**
 * A migrated, empty database of the dialect. `file: true` makes one that more connections (and
 * other processes) can reach, so that `connectAgain` works.
 *
 * @example const t = await openTestDatabase(dialect, { file: true });
 */
export async function openTestDatabase(dialect: DialectName, options: { file?: boolean; poolSize?: number } = {}): Promise<TestDatabase> {
  const throwaway = await dialectNamed(dialect).testing.createThrowaway(process.env, { shared: options.file ?? false, poolSize: options.poolSize });
  const { config } = throwaway;
  const extra: Database[] = [];
  const database = createDatabase(config);
  await migrateOrThrow(database);
  return {
    database,
    config,
    connectAgain() {
      if (throwaway.url === null) throw new Error('connectAgain needs openTestDatabase(dialect, { file: true })');
      const again = createDatabase(config);
      extra.push(again);
      return again;
    },
    async cleanup() {
      for (const d of extra) await d.destroy();
      await database.destroy();
      await throwaway.drop();
    },
  };
}
