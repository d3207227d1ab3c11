#!/usr/bin/env node
// `npm run migrate`: brings the database named by DATABASE_URL to the latest schema and prints each
// migration's outcome. Exit 0 when up to date, 1 when a migration failed, 2 when the URL is unusable.
import { createDatabase } from '../create-database.js';
import { describeDatabase, parseDatabaseUrl } from '../database-config.js';
import { migrateToLatest } from '../migrate.js';

async function main(): Promise<number> {
  let config;
  try {
    config = parseDatabaseUrl(process.env.DATABASE_URL);
  } catch (error) {
    console.error(`DATABASE_URL: ${(error as Error).message}`);
    return 2;
  }
  const database = createDatabase(config);
  try {
    const { error, results = [] } = await migrateToLatest(database);
    for (const r of results) console.log(`${r.status.padEnd(8)} ${r.migrationName}`);
    if (error) {
      console.error(`migration failed on ${describeDatabase(config)}: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
    console.log(results.length ? `migrated ${describeDatabase(config)}` : `${describeDatabase(config)} is up to date`);
    return 0;
  } finally {
    await database.destroy();
  }
}

process.exitCode = await main();
