// PostgreSQL as this product drives it, over pg's public API: a pool; a statement outside any
// transaction borrows a connection and gives it back; a transaction holds one connection for its
// life (BEGIN, its statements, COMMIT or ROLLBACK). Fixed-shape data statements are named
// prepared statements (`client.query({ name, text, values })`): PostgreSQL parses and plans an
// unnamed statement on every execution, a named one once per connection (the inventory benchmark
// measured 2 to 3 times less server CPU per request). Bounded per connection: statements with
// variable shapes (IN lists, multi-row inserts) stop being named once the connection holds
// MAX_NAMED_PER_CONNECTION of them. A connection in an unknown state (a query left unanswered past
// pg's `query_timeout`, a failed ROLLBACK) is destroyed through `release(error)`, never reused.
import { createHash } from 'node:crypto';
import { CompiledQuery, type QueryResult } from 'kysely';
import type pg from 'pg';
import { type RowBuilder, rowBuilder } from './row-builder.js';
import {
  type DatabaseConnections,
  type DatabaseEvents,
  type DatabaseRunner,
  type SessionRunner,
  type OpenTransaction,
  type StatementRunner,
  inReadOnlySnapshot,
  inTransaction,
  transactionEnded,
} from '../execution/statement-runner.js';

const MAX_NAMED_PER_CONNECTION = 400;
const MAX_TEXT_LENGTH = 8000;
const DATA_STATEMENT = /^\s*(select|insert|update|delete|with)\b/i;

/** Names by statement text, shared by every connection (a hash per query costs more than the lookup). */
const namesByText = new Map<string, string>();
const MAX_REMEMBERED_NAMES = 2000;

function nameOf(text: string): string {
  let name = namesByText.get(text);
  if (name === undefined) {
    name = `k${createHash('sha1').update(text).digest('base64url').slice(0, 22)}`;
    if (namesByText.size < MAX_REMEMBERED_NAMES) namesByText.set(text, name);
  }
  return name;
}

/**
 * The names each connection has prepared (a connection that is destroyed takes its set with it).
 * `statementName` gives a data statement its name while the connection has room for it.
 */
export class StatementNames {
  readonly #named = new WeakMap<object, Set<string>>();

  /** The name `text` runs under on `connection`, or undefined when it stays unnamed. */
  statementName(connection: object, text: string): string | undefined {
    if (text.length > MAX_TEXT_LENGTH || !DATA_STATEMENT.test(text)) return undefined;
    let named = this.#named.get(connection);
    if (!named) this.#named.set(connection, (named = new Set()));
    const name = nameOf(text);
    if (named.has(name)) return name;
    if (named.size >= MAX_NAMED_PER_CONNECTION) return undefined;
    named.add(name);
    return name;
  }
}

/** Row builders by statement text; past this many texts, a new one's builder is made on every run. */
const MAX_ROW_BUILDERS = 2000;

interface Columns {
  readonly names: readonly string[];
  readonly build: RowBuilder;
}

const sameNames = (names: readonly string[], fields: readonly pg.FieldDef[]): boolean => names.length === fields.length && fields.every((field, i) => field.name === names[i]);

const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);
const BEGIN = CompiledQuery.raw('begin');
const BEGIN_SNAPSHOT = CompiledQuery.raw('begin isolation level repeatable read read only');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

/** pg's error for a query that got no answer within `query_timeout`; the connection is then in an unknown state. */
const isReadTimeout = (error: unknown): boolean => error instanceof Error && error.message === 'Query read timeout';

const asError = (error: unknown): Error => (error instanceof Error ? error : new Error(String(error)));

/** The runner of one pg pool (opened by the PostgreSQL dialect with its type parsers and deadlines). */
export class PostgresRunner implements DatabaseRunner {
  readonly #pool: pg.Pool;
  readonly #names = new StatementNames();
  /** Shared with `autonomous`: the same statements' rows are built the same way. */
  readonly #columns: Map<string, Columns>;
  readonly #onQuery: DatabaseEvents['onQuery'];
  readonly #onQueryError: DatabaseEvents['onQueryError'];
  /** Connections that must be destroyed rather than given back. */
  readonly #broken = new WeakMap<pg.PoolClient, Error>();
  #destroyed: Promise<void> | undefined;
  /** Statements that commit on their own, on a small pool of their own (see DatabaseRunner.autonomous). */
  readonly autonomous: PostgresRunner | undefined;

  /** `autonomousPool`: the connections kept for `autonomous` statements; none, and they go to `pool`. */
  constructor(pool: pg.Pool, events: DatabaseEvents, autonomousPool?: pg.Pool, columns = new Map<string, Columns>()) {
    this.#pool = pool;
    this.#columns = columns;
    this.#onQuery = events.onQuery;
    this.#onQueryError = events.onQueryError;
    this.autonomous = autonomousPool ? new PostgresRunner(autonomousPool, events, undefined, columns) : undefined;
  }

  async #connect(): Promise<pg.PoolClient> {
    try {
      return await this.#pool.connect();
    } catch (error) {
      this.#onQueryError?.(error);
      throw error;
    }
  }

  /**
   * The rows of `text` as objects. pg gives them as arrays (`rowMode: 'array'`): its own row
   * objects are copies of a blank row filled key by key, which costs more than these
   * (docs/benchmarks.md#rows-built-from-arrays). A statement's builder is kept while its columns stay
   * the same (`select *` after a migration gives others).
   */
  #objects(text: string, fields: readonly pg.FieldDef[], rows: unknown[][]): Record<string, unknown>[] {
    if (rows.length === 0) return [];
    let columns = this.#columns.get(text);
    if (!columns || !sameNames(columns.names, fields)) {
      const names = fields.map((field) => field.name);
      columns = { names, build: rowBuilder(names) };
      if (this.#columns.size < MAX_ROW_BUILDERS || this.#columns.has(text)) this.#columns.set(text, columns);
    }
    return rows.map(columns.build);
  }

  /** Runs `compiled` on `client`, named when it may be, and reports it. */
  async #runOn<R>(client: pg.PoolClient, compiled: CompiledQuery): Promise<QueryResult<R>> {
    const text = compiled.sql;
    const values = compiled.parameters as unknown[];
    const name = this.#names.statementName(client, text);
    try {
      const { command, rowCount, rows, fields } = await client.query<unknown[]>(name === undefined ? { text, values, rowMode: 'array' } : { name, text, values, rowMode: 'array' });
      this.#onQuery?.(text, compiled.parameters);
      return { rows: this.#objects(text, fields ?? [], rows ?? []) as R[], ...(AFFECTING.has(command) ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}) };
    } catch (error) {
      if (isReadTimeout(error)) this.#broken.set(client, asError(error));
      this.#onQueryError?.(error);
      throw error;
    }
  }

  /** Gives `client` back to the pool, or destroys it when its state is unknown. */
  #release(client: pg.PoolClient, error?: Error): void {
    client.release(error ?? this.#broken.get(client));
  }

  async run<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    const client = await this.#connect();
    try {
      return await this.#runOn<R>(client, compiled);
    } finally {
      this.#release(client);
    }
  }

  transaction<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T> {
    return inTransaction(() => this.begin(), work);
  }

  /** A repeatable-read, read-only transaction: every statement sees the snapshot of its first. */
  snapshot<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T> {
    return inReadOnlySnapshot(() => this.begin(BEGIN_SNAPSHOT), work);
  }

  /** One pooled connection for the transaction's life; a connection whose ROLLBACK failed is destroyed. */
  async begin(start: CompiledQuery = BEGIN): Promise<OpenTransaction> {
    const client = await this.#connect();
    return this.#beginOn(client, start, (error) => this.#release(client, error));
  }

  /**
   * A transaction on `client`, which `end` takes back when it commits or rolls back (with the
   * error that leaves the connection in an unknown state, if any).
   */
  async #beginOn(client: pg.PoolClient, start: CompiledQuery, end: (error?: Error) => void): Promise<OpenTransaction> {
    try {
      await this.#runOn(client, start);
    } catch (error) {
      end(asError(error));
      throw error;
    }
    let open = true;
    const rollback = async (): Promise<void> => {
      if (!open) return;
      open = false;
      let broken = this.#broken.get(client);
      // A connection still waiting for an abandoned answer would queue ROLLBACK behind it: destroy it instead.
      if (!broken) await this.#runOn(client, ROLLBACK).catch((error: unknown) => (broken = asError(error)));
      end(broken);
    };
    return {
      run: <R>(compiled: CompiledQuery): Promise<QueryResult<R>> => (open ? this.#runOn<R>(client, compiled) : Promise.reject(transactionEnded())),
      commit: async () => {
        if (!open) throw transactionEnded();
        try {
          await this.#runOn(client, COMMIT);
        } catch (error) {
          await rollback();
          throw error;
        }
        open = false;
        end();
      },
      rollback,
    };
  }

  /**
   * One pooled connection for all of `work`'s statements (see DatabaseRunner.session). Its
   * transactions run on it one at a time; a statement sent while one is open waits for its end, so
   * it never runs inside it. A connection left in an unknown state (a statement's answer lost, a
   * failed ROLLBACK) fails the session's later statements at once and is destroyed when it ends.
   */
  async session<T>(work: (session: SessionRunner) => Promise<T>): Promise<T> {
    const client = await this.#connect();
    let broken: Error | undefined;
    /** Pending while one of the session's transactions is open. */
    let held: Promise<void> | undefined;
    const begin = async (start: CompiledQuery): Promise<OpenTransaction> => {
      while (held) await held;
      if (broken) throw broken;
      let ended!: () => void;
      held = new Promise((resolve) => (ended = resolve));
      return this.#beginOn(client, start, (error) => {
        broken ??= error;
        held = undefined;
        ended();
      });
    };
    const run = <R>(compiled: CompiledQuery): Promise<QueryResult<R>> => {
      if (held) return held.then(() => run<R>(compiled));
      // A connection still waiting for an abandoned answer would queue this statement behind it.
      const failed = broken ?? this.#broken.get(client);
      return failed ? Promise.reject(failed) : this.#runOn<R>(client, compiled);
    };
    const session: SessionRunner = {
      run,
      transaction: (inner) => inTransaction(() => begin(BEGIN), inner),
      snapshot: (inner) => inReadOnlySnapshot(() => begin(BEGIN_SNAPSHOT), inner),
      autonomous: this.autonomous,
      begin: () => begin(BEGIN),
    };
    try {
      return await work(session);
    } finally {
      // A transaction still open here was abandoned by `work` (it returned without awaiting it).
      this.#release(client, broken ?? (held ? new Error('a session ended with its transaction open') : undefined));
    }
  }

  connections(): DatabaseConnections {
    return { total: this.#pool.totalCount, idle: this.#pool.idleCount, waiting: this.#pool.waitingCount };
  }

  destroy(): Promise<void> {
    this.#destroyed ??= Promise.all([this.#pool.end(), this.autonomous?.destroy()]).then(() => undefined);
    return this.#destroyed;
  }
}
