// An earlier tree's own bench, as bench:compare's paired and instruction modes use it: each tree's
// persistence migrates its own database and each tree's bench seeds it and builds its requests, so
// either side may have an older layout. The names below are in every tree that has bench:compare's
// cases.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type autocannon from 'autocannon';
import { dropAbandonedBenchDatabases } from './bench-harness.js';

export type SideName = 'old' | 'main';

export interface TreeBench {
  persistence: { createDatabase(target: object): { destroy(): Promise<void> }; migrateOrThrow(db: object): Promise<void> };
  load: {
    CREDENTIALS_KEY: string;
    seedForLoad(db: object, writer: object, label: string): Promise<unknown[]>;
    runCase(run: object, label: string): Promise<{ measured: { cpuUs: number | null; sent: number } }>;
    requestsFor(kind: string, tenants: unknown[], pool: { entries: unknown[]; next: number }): autocannon.Request[];
    createPostgresDatabase(adminUrl: string, name: string): Promise<string>;
    dropPostgresDatabase(adminUrl: string, name: string): Promise<void>;
  };
  seed: {
    openBulkWriter(target: object): Promise<{ close(): Promise<void> }>;
    writePendingPool(writer: object, tenants: unknown[], count: number, now: Date, seed: number): Promise<unknown[]>;
  };
}

async function treeBench(tree: string): Promise<TreeBench> {
  return {
    persistence: (await import(join(tree, 'packages/persistence/dist/index.js'))) as TreeBench['persistence'],
    load: (await import(join(tree, 'tools/bench/src/inventory-load.ts'))) as TreeBench['load'],
    seed: (await import(join(tree, 'tools/bench/src/inventory-seed.ts'))) as TreeBench['seed'],
  };
}

/** A side's database, migrated and seeded by its own tree; `cleanup` closes the writer and removes the database and `dir`. */
export interface SeededSide {
  bench: TreeBench;
  /** A folder of this side's own (its SQLite file, if any, lives there). */
  dir: string;
  databaseUrl: string;
  tenants: unknown[];
  writer: { close(): Promise<void> };
  cleanup(): Promise<void>;
}

/** One sweep per mode and process: the sides of an instruction run are seeded at the same time. */
const sweeps = new Map<string, Promise<void>>();
function sweepOnce(mode: string, pgAdminUrl: string): Promise<void> {
  let sweep = sweeps.get(mode);
  if (!sweep) {
    sweep = dropAbandonedBenchDatabases(pgAdminUrl, mode).then((dropped) => {
      for (const name of dropped) console.log(`[${mode}] dropped ${name}, left by a run that was stopped before its cleanup`);
    });
    sweeps.set(mode, sweep);
  }
  return sweep;
}

/**
 * `mode` names the databases and folders (pits_<mode>_<side>_<pid>), so runs of two modes never meet;
 * on PostgreSQL, the databases of this mode whose run is gone are dropped first.
 */
export async function seedSide(mode: string, side: SideName, tree: string, dialect: string, pgAdminUrl: string): Promise<SeededSide> {
  const bench = await treeBench(tree);
  const dir = mkdtempSync(join(tmpdir(), `pits-${mode}-${side}-`));
  const pgName = `pits_${mode}_${side}_${process.pid}`;
  if (dialect === 'postgres') await sweepOnce(mode, pgAdminUrl);
  const target = dialect === 'sqlite' ? { dialect: 'sqlite', location: join(dir, 'bench.sqlite') } : { dialect: 'postgres', url: await bench.load.createPostgresDatabase(pgAdminUrl, pgName) };
  const database = bench.persistence.createDatabase(target);
  await bench.persistence.migrateOrThrow(database);
  const writer = await bench.seed.openBulkWriter(target);
  const tenants = await bench.load.seedForLoad(database, writer, `${dialect} ${side}`);
  await database.destroy();
  return {
    bench,
    dir,
    databaseUrl: 'location' in target ? target.location : target.url,
    tenants,
    writer,
    async cleanup() {
      await writer.close();
      if (dialect === 'postgres') await bench.load.dropPostgresDatabase(pgAdminUrl, pgName);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
