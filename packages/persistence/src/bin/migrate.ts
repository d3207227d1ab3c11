#!/usr/bin/env node
// `npm run migrate`: brings the database named by DATABASE_URL to the latest schema and prints each
// migration's outcome. Exit 0 when up to date, 1 when a migration failed, 2 when the URL is unusable.
import { describeDatabase } from '../database-config.js';
import { migrateToLatest } from '../migrate.js';
import { runDatabaseCommand } from './database-command.js';

process.exitCode = await runDatabaseCommand(async (database, config) => {
  const { error, results = [] } = await migrateToLatest(database);
  for (const r of results) console.log(`${r.status.padEnd(8)} ${r.migrationName}`);
  if (error) {
    console.error(`migration failed on ${describeDatabase(config)}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
  console.log(results.length ? `migrated ${describeDatabase(config)}` : `${describeDatabase(config)} is up to date`);
  return 0;
});
