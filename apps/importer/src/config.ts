// The importer's configuration, the only place that reads the environment: which database.
import { type DatabaseConfig, parseDatabaseUrl } from '@pits/persistence';

export interface ImporterConfig {
  database: DatabaseConfig;
}

/**
 * @example loadImporterConfig(process.env, process.cwd()) // { database: { dialect: 'sqlite', location: '.../data/pits.sqlite' } }
 */
export function loadImporterConfig(env: Readonly<Record<string, string | undefined>>, cwd: string): ImporterConfig {
  return { database: parseDatabaseUrl(env.DATABASE_URL, cwd) };
}
