// The functions every repository runs its queries with, the same way in and out of a
// transaction: a Kysely builder (compiled with its public `compile()`), a `sql` template
// (`compile(db)`), a prepared query bound to its parameters (parameterised-query.ts), or a
// compiled statement. Each runs on the scope's runner; a builder's own `.execute()` is never used
// (inside a transaction it refuses, see kysely-bridge.ts).
import type { Compilable, CompiledQuery, DeleteResult, InsertResult, MergeResult, QueryResult, RawBuilder, UpdateResult } from 'kysely';
import type { Scope, ScopedQuery } from './scope.js';

/** What the execution functions run. */
export type Runnable<R> = ScopedQuery<R> | RawBuilder<R> | Compilable<R> | CompiledQuery<R>;

type WriteSummary = InsertResult | UpdateResult | DeleteResult | MergeResult;

/** What a row of a write without RETURNING would be: nothing to use (run it with `executeWrite`). */
export interface UseExecuteWrite {
  readonly 'a write without RETURNING has no rows: run it with executeWrite': never;
}

/** The rows of a query. */
export type RowOf<R> = R extends WriteSummary ? UseExecuteWrite : R;

/** What a write changed. */
export interface WriteResult {
  /** Rows inserted, updated or deleted. */
  readonly affectedRows: number;
  /** The auto-increment id of the last inserted row, where the database tells it (an embedded database does). */
  readonly insertId: number | undefined;
}

function compiledOf<R>(scope: Scope, query: Runnable<R>): CompiledQuery<R> {
  if ('compileIn' in query) return query.compileIn(scope);
  if ('isRawBuilder' in query) return query.compile(scope.db);
  if ('compile' in query) return query.compile();
  return query;
}

/** Runs `query` on the scope's runner: a synchronous answer becomes a resolved promise, a synchronous throw a rejected one. */
function run<R>(scope: Scope, query: Runnable<R>): Promise<QueryResult<R>> {
  try {
    const result = scope.runner.run<R>(compiledOf(scope, query));
    return result instanceof Promise ? result : Promise.resolve(result);
  } catch (error) {
    return Promise.reject(error as Error);
  }
}

/**
 * All rows of `query`, run in `scope` (a database or a transaction).
 *
 * @example
 * const rows = await execute(tx, tx.db.selectFrom('transfer_items').selectAll().where('transfer_id', '=', id));
 * const tenants = await execute(scope, tenantsByIds.with({ ids }));
 */
export async function execute<R>(scope: Scope, query: Runnable<R> & (R extends WriteSummary ? UseExecuteWrite : unknown)): Promise<RowOf<R>[]> {
  return (await run(scope, query)).rows as RowOf<R>[];
}

/**
 * The first row of `query`, or undefined.
 *
 * @example const row = await executeTakeFirst(scope, scope.db.selectFrom('tenants').selectAll().where('id', '=', id));
 */
export async function executeTakeFirst<R>(scope: Scope, query: Runnable<R>): Promise<RowOf<R> | undefined> {
  return (await run(scope, query)).rows[0] as RowOf<R> | undefined;
}

/**
 * The first row of `query`; throws when there is none (a count, an insert … returning).
 *
 * @example const { n } = await executeTakeFirstOrThrow(scope, scope.db.selectFrom('tenants').select((eb) => eb.fn.countAll<number>().as('n')));
 */
export async function executeTakeFirstOrThrow<R>(scope: Scope, query: Runnable<R>): Promise<RowOf<R>> {
  const rows = (await run(scope, query)).rows;
  if (rows.length === 0) throw new Error('the query returned no row where one was expected');
  return rows[0] as RowOf<R>;
}

/**
 * Runs a write and says how many rows it changed (and the insert id, where the database tells it).
 *
 * @example const { affectedRows } = await executeWrite(tx, tx.db.updateTable('transfers').set(changes).where('id', '=', id));
 */
export async function executeWrite(scope: Scope, query: Runnable<unknown>): Promise<WriteResult> {
  const { numAffectedRows, insertId } = await run(scope, query);
  return { affectedRows: Number(numAffectedRows ?? 0n), insertId: insertId === undefined ? undefined : Number(insertId) };
}
