// Test databases for every dialect: SQLite in memory (or in a temporary file when several
// connections must share it) and PostgreSQL in a throwaway schema per test file, dropped afterwards.
// PostgreSQL comes from TEST_POSTGRES_URL (default: the local server's `test` database). When it
// cannot be reached, its tests are skipped with a printed reason, except under CI=true, where an
// unreachable PostgreSQL fails the run: CI never skips a database test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { type Database, createDatabase } from '../create-database.js';
import type { Dialect } from '../database-config.js';
import { migrateOrThrow } from '../migrate.js';

export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

export function testPostgresUrl(): string {
  return process.env.TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL;
}

let reachable: Promise<boolean> | undefined;

async function postgresReachable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: testPostgresUrl(), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * The dialects this run tests: SQLite always, PostgreSQL when reachable (and always under CI).
 * Narrow with TEST_DIALECTS=sqlite or TEST_DIALECTS=postgres.
 *
 * @example
 * const dialects = await testDialects();
 * describe.each(dialects)('[%s] adjustments', (dialect) => { ... });
 */
export async function testDialects(): Promise<Dialect[]> {
  const wanted = (process.env.TEST_DIALECTS ?? 'sqlite,postgres').split(',').map((d) => d.trim());
  const dialects: Dialect[] = [];
  if (wanted.includes('sqlite')) dialects.push('sqlite');
  if (wanted.includes('postgres')) {
    reachable ??= postgresReachable();
    if (await reachable) dialects.push('postgres');
    else if (process.env.CI === 'true') throw new Error(`PostgreSQL at ${testPostgresUrl()} is unreachable; CI requires it`);
    else console.warn(`[skip] PostgreSQL tests skipped: ${testPostgresUrl()} is unreachable (set TEST_POSTGRES_URL)`);
  }
  return dialects;
}

export interface TestDatabase {
  database: Database;
  /** Opens another connection (pool) to the same database, for cross-connection tests. */
  connectAgain(): Database;
  /** Closes every connection and drops what the test created. */
  cleanup(): Promise<void>;
}

/**
 * A migrated, empty database of the dialect. `file: true` puts SQLite in a temporary file so
 * that `connectAgain` can open more connections to it.
 */
export async function openTestDatabase(dialect: Dialect, options: { file?: boolean; poolSize?: number } = {}): Promise<TestDatabase> {
  const extra: Database[] = [];
  if (dialect === 'sqlite') {
    const dir = options.file ? mkdtempSync(join(tmpdir(), 'pits-test-')) : undefined;
    const location = dir ? join(dir, 'test.sqlite') : ':memory:';
    const database = createDatabase({ dialect: 'sqlite', location });
    await migrateOrThrow(database);
    return {
      database,
      connectAgain() {
        if (!dir) throw new Error('connectAgain needs openTestDatabase(dialect, { file: true })');
        const again = createDatabase({ dialect: 'sqlite', location });
        extra.push(again);
        return again;
      },
      async cleanup() {
        for (const d of extra) await d.destroy();
        await database.destroy();
        if (dir) rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const schema = `pits_test_${process.pid}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
  } finally {
    await admin.end();
  }
  const config = { dialect: 'postgres' as const, url: testPostgresUrl(), schema, poolSize: options.poolSize ?? 20 };
  const database = createDatabase(config);
  await migrateOrThrow(database);
  return {
    database,
    connectAgain() {
      const again = createDatabase(config);
      extra.push(again);
      return again;
    },
    async cleanup() {
      for (const d of extra) await d.destroy();
      await database.destroy();
      const client = new pg.Client({ connectionString: testPostgresUrl() });
      await client.connect();
      try {
        await client.query(`drop schema if exists ${schema} cascade`);
      } finally {
        await client.end();
      }
    },
  };
}
