// The database as a long-running process opens it (@pits/service-runtime's `runDatabaseService`):
// opened with the process named in its sessions, described for logs without a password, migrated
// once reachable (migrate.ts: concurrent starts wait for each other's migration), and its failed
// statements sorted for the metrics.
import { type Database, createDatabase } from './create-database.js';
import { type DatabaseConfig, describeDatabase } from './database-config.js';
import { DATABASE_ERROR_KINDS, classifyDatabaseError } from './database-errors.js';
import type { DatabaseEvents } from './execution/statement-runner.js';
import { migrateWhenReachable } from './migrate.js';

/**
 * @example
 * void runDatabaseService({ app: 'gateway', loadConfig: () => loadGatewayConfig(process.env), database: serviceDatabase, build });
 */
export const serviceDatabase = {
  kinds: DATABASE_ERROR_KINDS,
  classify: classifyDatabaseError,
  open: (config: DatabaseConfig, applicationName: string, events: DatabaseEvents): Database => createDatabase({ ...config, applicationName }, events),
  describe: describeDatabase,
  migrate: (database: Database, options: { signal: AbortSignal; onUnavailable: (error: Error, retryInMs: number) => void }): Promise<string[]> => migrateWhenReachable(database, options),
};
