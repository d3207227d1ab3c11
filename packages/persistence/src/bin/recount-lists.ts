#!/usr/bin/env node
// `npm run recount-lists`: checks the kept list totals of every tenant of the database named by
// DATABASE_URL against a real count of its documents, and rebuilds those that differ. The database
// keeps them (migration 014); this is the repair for the one way they can drift, a process of a
// version before 014 writing after the migration (docs/operating-guarantees.md#upgrading).
// Exit 0 when every total is right (after repair), 1 when the database could not be migrated,
// read or written, 2 when the URL is unusable.
import { describeDatabase } from '../database-config.js';
import { migrateOrThrow } from '../migrate.js';
import { repairListCounts } from '../repositories/list-count-repository.js';
import { runDatabaseCommand } from './database-command.js';

process.exitCode = await runDatabaseCommand(async (database, config) => {
  try {
    await migrateOrThrow(database);
    const { tenants, repaired } = await repairListCounts(database);
    for (const r of repaired) console.log(`tenant ${r.tenantId}: ${r.mismatches.length} list total${r.mismatches.length === 1 ? '' : 's'} rebuilt`);
    console.log(`${tenants} tenant${tenants === 1 ? '' : 's'} checked, ${repaired.length} repaired, on ${describeDatabase(config)}`);
    return 0;
  } catch (error) {
    console.error(`recount failed on ${describeDatabase(config)}: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
});
