// SQLite as this product drives it, over better-sqlite3's public API: one connection per process,
// shared through an asynchronous queue; statements prepared once and kept (bounded); write
// transactions that take the write lock at BEGIN (BEGIN IMMEDIATE), so none fails on a lock
// upgrade halfway. While another process holds that lock, a beginning transaction waits
// asynchronously and lets go of the connection meanwhile: reads, timers and request deadlines go
// on, and each waiting writer gives up after its own lock wait with SQLITE_BUSY (503).
// better-sqlite3 is synchronous, so SQLite's own busy wait would stop the whole process; it is
// kept to a few milliseconds. And because it is synchronous, a statement that overtakes no one
// (the connection is free, or held by the caller's own transaction) runs at once and answers
// synchronously, without a promise per layer: on the hot endpoints those cost more than SQLite
// spends executing.
import { setTimeout as sleep } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import { CompiledQuery, type QueryResult } from 'kysely';
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

/** Hands the one connection to one user at a time, in arrival order. */
export class ConnectionQueue {
  #held = false;
  readonly #waiting: (() => void)[] = [];

  /** True when no one holds the connection: a caller may use it now, synchronously, without queueing. */
  get free(): boolean {
    return !this.#held;
  }

  lock(): Promise<void> {
    if (!this.#held) {
      this.#held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }

  unlock(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#held = false;
  }
}

/** Statements kept per connection; past this the oldest one goes (the hot ones come straight back). */
const STATEMENT_CACHE_SIZE = 500;

const BEGIN = CompiledQuery.raw('begin immediate');
// A deferred transaction that only reads: in WAL mode its first read fixes the snapshot it sees to
// the end, while other processes go on writing.
const BEGIN_READ = CompiledQuery.raw('begin deferred');
const COMMIT = CompiledQuery.raw('commit');
const ROLLBACK = CompiledQuery.raw('rollback');

const isBusy = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY';

/**
 * A prepared statement, and for one that returns rows, how its rows become objects. better-sqlite3
 * (on Node 20) builds each row object property by property through V8's API: per value that cost
 * more than running the statement, and past about twenty columns V8 gives the object slow
 * (dictionary) properties, slower again to read (docs/benchmarks.md#rows-built-from-arrays). So a
 * reader returns arrays (`raw`, better-sqlite3's public API) and each becomes an object through
 * `rowBuilder`: the same keys in the same order as before, with fast properties.
 */
interface Prepared {
  readonly statement: BetterSqlite3.Statement;
  /** The columns the builder was written for (SQLite re-prepares a statement after a schema change, and `select *` may then give more). */
  columns: number;
  row: RowBuilder | null;
}

function prepare(raw: BetterSqlite3.Database, text: string): Prepared {
  const statement = raw.prepare(text);
  if (!statement.reader) return { statement, columns: 0, row: null };
  statement.raw(true);
  return { statement, ...columnsOf(statement) };
}

function columnsOf(statement: BetterSqlite3.Statement): { columns: number; row: RowBuilder } {
  const names = statement.columns().map((column) => column.name);
  return { columns: names.length, row: rowBuilder(names) };
}

/**
 * The runner of one better-sqlite3 handle (opened by `openSqlite`); `lockWaitMs` bounds how long a
 * write transaction waits for another process's write lock.
 */
export class SqliteRunner implements DatabaseRunner {
  readonly #raw: BetterSqlite3.Database;
  readonly #statements = new Map<string, Prepared>();
  readonly #queue = new ConnectionQueue();
  readonly #lockWaitMs: number;
  readonly #onQuery: DatabaseEvents['onQuery'];
  readonly #onQueryError: DatabaseEvents['onQueryError'];

  constructor(raw: BetterSqlite3.Database, lockWaitMs: number, events: DatabaseEvents) {
    this.#raw = raw;
    this.#lockWaitMs = lockWaitMs;
    this.#onQuery = events.onQuery;
    this.#onQueryError = events.onQueryError;
  }

  #prepare(text: string): Prepared {
    let prepared = this.#statements.get(text);
    if (!prepared) {
      prepared = prepare(this.#raw, text);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      this.#statements.set(text, prepared);
    }
    return prepared;
  }

  /** Runs `compiled` now on the connection (its caller holds it, or no one does), reporting it. */
  #runNow<R>(compiled: CompiledQuery): QueryResult<R> {
    let result: QueryResult<R>;
    try {
      const prepared = this.#prepare(compiled.sql);
      const { statement } = prepared;
      const parameters = compiled.parameters as unknown[];
      if (prepared.row) {
        const values = statement.all(...parameters) as unknown[][];
        if (values.length > 0 && values[0]!.length !== prepared.columns) Object.assign(prepared, columnsOf(statement));
        result = { rows: values.map(prepared.row) as R[] };
      } else {
        const { changes, lastInsertRowid } = statement.run(...parameters);
        result = { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
      }
    } catch (error) {
      this.#onQueryError?.(error);
      throw error;
    }
    this.#onQuery?.(compiled.sql, compiled.parameters);
    return result;
  }

  /**
   * At once (synchronously) while no one holds the connection: that overtakes no one. Otherwise
   * queued behind the holder (a transaction), so it never sees that transaction's uncommitted rows.
   */
  run<R>(compiled: CompiledQuery): QueryResult<R> | Promise<QueryResult<R>> {
    if (this.#queue.free) return this.#runNow<R>(compiled);
    return this.#queue.lock().then(() => {
      try {
        return this.#runNow<R>(compiled);
      } finally {
        this.#queue.unlock();
      }
    });
  }

  transaction<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T> {
    return inTransaction(() => this.begin(), work);
  }

  /**
   * A write transaction on the one connection: queued behind its holder, BEGIN IMMEDIATE waiting
   * out another process's write lock (letting go of the connection meanwhile). Its statements run
   * at once: the transaction holds the connection until it commits or rolls back.
   */
  async begin(): Promise<OpenTransaction> {
    await this.#queue.lock();
    try {
      await this.#beginImmediate();
    } catch (error) {
      this.#queue.unlock();
      throw error;
    }
    return this.#opened();
  }

  // In one process, the queue keeps writers out of the snapshot's connection until it ends.
  snapshot<T>(work: (tx: StatementRunner) => Promise<T>): Promise<T> {
    return inReadOnlySnapshot(async () => {
      await this.#queue.lock();
      try {
        this.#runNow(BEGIN_READ);
      } catch (error) {
        this.#queue.unlock();
        throw error;
      }
      return this.#opened();
    }, work);
  }

  // One writer: a transaction holds the whole database, so a statement that must not wait for it
  // runs inside it (see DatabaseRunner.autonomous).
  readonly autonomous = undefined;

  /** One connection already: a session is the database's own runner. */
  session<T>(work: (session: SessionRunner) => Promise<T>): Promise<T> {
    return work(this);
  }

  /** The transaction just begun on the connection this caller holds from the queue. */
  #opened(): OpenTransaction {
    let open = true;
    const end = () => {
      if (!open) return false;
      open = false;
      this.#queue.unlock();
      return true;
    };
    return {
      run: <R>(compiled: CompiledQuery) => {
        if (!open) throw transactionEnded();
        return this.#runNow<R>(compiled);
      },
      commit: async () => {
        if (!open) throw transactionEnded();
        try {
          this.#runNow(COMMIT);
        } catch (error) {
          this.#rollbackNow();
          end();
          throw error;
        }
        end();
      },
      rollback: async () => {
        if (!open) return;
        this.#rollbackNow();
        end();
      },
    };
  }

  /** Rolls back what is open; SQLite may have rolled back already (some errors end a transaction). */
  #rollbackNow(): void {
    if (!this.#raw.inTransaction) return;
    try {
      this.#runNow(ROLLBACK);
    } catch {
      // Reported already; the connection is left without a transaction either way.
    }
  }

  async #beginImmediate(): Promise<void> {
    const giveUpAt = Date.now() + this.#lockWaitMs;
    let pause = 2;
    for (;;) {
      try {
        this.#prepare(BEGIN.sql).statement.run();
        this.#onQuery?.(BEGIN.sql, BEGIN.parameters);
        return;
      } catch (error) {
        if (!isBusy(error) || Date.now() + pause > giveUpAt) {
          this.#onQueryError?.(error);
          throw error;
        }
      }
      // Another process writes: let the connection serve others while this transaction waits.
      this.#queue.unlock();
      await sleep(pause);
      await this.#queue.lock();
      pause = Math.min(pause * 2, 50);
    }
  }

  // One handle, serialised by the queue: nothing to pool, nothing to wait for that a gauge could show.
  connections(): DatabaseConnections {
    return { total: 1, idle: 1, waiting: 0 };
  }

  async destroy(): Promise<void> {
    if (this.#raw.open) this.#raw.close();
  }
}
