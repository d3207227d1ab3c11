// The database the processes under test share, named by the DATABASE_URL they are given:
// a SQLite file in a fresh temporary directory, or a throwaway PostgreSQL schema (selected through
// the connection's search_path) that is dropped afterwards. The apps migrate it themselves.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { type Dialect, createDatabase } from '@pits/persistence';
import { testDialects, testPostgresUrl } from '@pits/persistence/testing';

export interface E2eDatabase {
  dialect: Dialect;
  /** What the apps get as DATABASE_URL. */
  url: string;
  /** Removes the file or drops the schema. */
  cleanup(): Promise<void>;
}

/**
 * The dialects to run against: SQLite always, PostgreSQL when reachable (skipped with a printed
 * reason otherwise, but required under CI=true). TEST_DIALECTS narrows, as in the unit suites.
 */
export const e2eDialects = testDialects;

/**
 * @example
 * const database = await createE2eDatabase('sqlite');
 * // ... start processes with DATABASE_URL: database.url
 * await database.cleanup();
 */
export async function createE2eDatabase(dialect: Dialect): Promise<E2eDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'pits-e2e-'));
    return {
      dialect,
      url: join(dir, 'e2e.sqlite'),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const schema = `pits_e2e_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = () => createDatabase({ dialect: 'postgres', url: testPostgresUrl(), poolSize: 1 });
  const creator = admin();
  try {
    await creator.db.schema.createSchema(schema).execute();
  } finally {
    await creator.destroy();
  }
  const base = testPostgresUrl();
  const url = `${base}${base.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  return {
    dialect,
    url,
    async cleanup() {
      const dropper = admin();
      try {
        await dropper.db.schema.dropSchema(schema).ifExists().cascade().execute();
      } finally {
        await dropper.destroy();
      }
    },
  };
}
