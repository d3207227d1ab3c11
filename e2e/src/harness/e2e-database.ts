// The database the processes under test share, named by the DATABASE_URL they are given: each
// dialect's own throwaway database (a SQLite file in a fresh temporary directory, a PostgreSQL
// schema reached through the connection's search_path), removed afterwards. The apps migrate it
// themselves. No dialect is named here: a new one is tested end to end once it is registered.
import { type Dialect, dialectNamed } from '@pits/persistence';
import { testDialects } from '@pits/persistence/testing';

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
  const throwaway = await dialectNamed(dialect).testing.createThrowaway(process.env, { shared: true });
  if (throwaway.url === null) {
    await throwaway.drop();
    throw new Error(`the ${dialect} throwaway database has no URL another process can open`);
  }
  return { dialect, url: throwaway.url, cleanup: () => throwaway.drop() };
}
