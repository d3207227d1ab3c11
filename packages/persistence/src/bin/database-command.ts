// The shell of the persistence package's commands (`npm run migrate`, `npm run recount-lists`):
// the database named by DATABASE_URL, opened for `run` and closed after it, whatever happens.
// Exit code 2 when the URL is unusable (nothing is opened); otherwise what `run` returns.
import { type Database, createDatabase } from '../create-database.js';
import { type DatabaseConfig, parseDatabaseUrl } from '../database-config.js';

/**
 * @example process.exitCode = await runDatabaseCommand(async (database, config) => { … return 0; });
 */
export async function runDatabaseCommand(run: (database: Database, config: DatabaseConfig) => Promise<number>): Promise<number> {
  let config: DatabaseConfig;
  try {
    config = parseDatabaseUrl(process.env.DATABASE_URL);
  } catch (error) {
    console.error(`DATABASE_URL: ${(error as Error).message}`);
    return 2;
  }
  const database = createDatabase(config);
  try {
    return await run(database, config);
  } finally {
    await database.destroy();
  }
}
