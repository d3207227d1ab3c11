// Escape hatch for bulk paths of this package (the area import), deliberately not exported from
// the package: the better-sqlite3 handle under a SQLite database, so that a batch can run
// thousands of reused prepared statements without Kysely compiling and awaiting each one.
import type BetterSqlite3 from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { DB } from './schema/index.js';

const sqliteHandles = new WeakMap<Kysely<DB>, BetterSqlite3.Database>();

/** Called by createDatabase for every SQLite database it opens. */
export function registerSqliteHandle(db: Kysely<DB>, handle: BetterSqlite3.Database): void {
  sqliteHandles.set(db, handle);
}

/**
 * The better-sqlite3 handle of a SQLite database opened by `createDatabase`. Use it only inside
 * `withTransaction(database, …)`: Kysely then holds the one connection, so the statements run in
 * that transaction and nothing else runs on the handle meanwhile. Throws for any other database.
 *
 * @example
 * await withTransaction(database, async () => { sqliteHandleOf(database).prepare('select 1').get(); });
 */
export function sqliteHandleOf(database: { readonly db: Kysely<DB> }): BetterSqlite3.Database {
  const handle = sqliteHandles.get(database.db);
  if (!handle) throw new Error('sqliteHandleOf needs a SQLite database opened by createDatabase');
  return handle;
}
