// The importer's configuration, the only place that reads the environment: which database, and
// how long it may keep the import waiting (the same DATABASE_URL and DB_* settings as every app).
import type { DatabaseConfig } from '@pits/persistence';
import { type Env, SettingsReader, readDatabaseConfig } from '@pits/service-runtime';

export interface ImporterConfig {
  database: DatabaseConfig;
}

/**
 * Throws a ConfigError naming each bad variable and what was wrong with it.
 *
 * @example loadImporterConfig(process.env, process.cwd()) // { database: parseDatabaseUrl(DATABASE_URL) with the DB_* deadlines and pool size }
 */
export function loadImporterConfig(env: Env, cwd: string): ImporterConfig {
  const read = new SettingsReader(env);
  const database = readDatabaseConfig(read, cwd);
  read.done('importer');
  return { database };
}
