// The importer's configuration, the only place that reads the environment: which database, and
// how long it may keep the import waiting (the same DATABASE_URL and DB_* settings as every app).
import { resolve } from 'node:path';
import { DEFAULT_DATABASE_DEADLINES, type DatabaseConfig, parseDatabaseUrl } from '@pits/persistence';
import { type Env, SettingsReader, readDatabaseConfig } from '@pits/service-runtime';

export interface ImporterConfig {
  database: DatabaseConfig;
  /** IMPORT_METRICS_FILE: where a finished run leaves its metrics (Prometheus text file); null: nowhere. --metrics-file wins. */
  metricsFile: string | null;
}

/**
 * Throws a ConfigError naming each bad variable and what was wrong with it.
 *
 * @example loadImporterConfig(process.env, process.cwd()) // { database: parseDatabaseUrl(DATABASE_URL) with the DB_* deadlines and pool size }
 */
export function loadImporterConfig(env: Env, cwd: string): ImporterConfig {
  const read = new SettingsReader(env);
  const database = readDatabaseConfig(read, { parse: parseDatabaseUrl, defaultDeadlines: DEFAULT_DATABASE_DEADLINES }, cwd);
  const metricsFile = read.optional('IMPORT_METRICS_FILE');
  read.done('importer');
  return { database, metricsFile: metricsFile === undefined ? null : resolve(cwd, metricsFile) };
}
