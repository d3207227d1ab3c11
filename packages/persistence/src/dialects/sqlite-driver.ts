// SQLite as this product drives it: one better-sqlite3 connection per process, shared through an
// asynchronous queue; statements prepared once and kept (bounded); write transactions that take
// the write lock at BEGIN (BEGIN IMMEDIATE), so none fails on a lock upgrade halfway. While
// another process holds that lock, a beginning transaction waits asynchronously and lets go of
// the connection meanwhile: reads, timers and request deadlines go on, and each waiting writer
// gives up after its own lock wait with SQLITE_BUSY (503). better-sqlite3 is synchronous, so
// SQLite's own busy wait would stop the whole process; it is kept to a few milliseconds.
import { setTimeout as sleep } from 'node:timers/promises';
import type BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  type DatabaseConnection,
  type DatabaseIntrospector,
  type Dialect as KyselyDialect,
  type DialectAdapter,
  type Driver,
  type Kysely,
  type QueryCompiler,
  type QueryResult,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
} from 'kysely';

/** Hands the one connection to one user at a time, in arrival order. */
class ConnectionQueue {
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

class SqliteConnection implements DatabaseConnection {
  readonly #raw: BetterSqlite3.Database;
  readonly #statements = new Map<string, BetterSqlite3.Statement>();

  constructor(raw: BetterSqlite3.Database) {
    this.#raw = raw;
  }

  #prepare(text: string): BetterSqlite3.Statement {
    let statement = this.#statements.get(text);
    if (!statement) {
      statement = this.#raw.prepare(text);
      if (this.#statements.size >= STATEMENT_CACHE_SIZE) {
        const oldest = this.#statements.keys().next().value;
        if (oldest !== undefined) this.#statements.delete(oldest);
      }
      this.#statements.set(text, statement);
    }
    return statement;
  }

  /** Runs `compiled` now; better-sqlite3 is synchronous. */
  executeNow<R>(compiled: CompiledQuery): QueryResult<R> {
    const statement = this.#prepare(compiled.sql);
    const parameters = compiled.parameters as unknown[];
    if (statement.reader) return { rows: statement.all(...parameters) as R[] };
    const { changes, lastInsertRowid } = statement.run(...parameters);
    return { numAffectedRows: BigInt(changes), insertId: BigInt(lastInsertRowid), rows: [] };
  }

  executeQuery<R>(compiled: CompiledQuery): Promise<QueryResult<R>> {
    try {
      return Promise.resolve(this.executeNow<R>(compiled));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  async *streamQuery<R>(compiled: CompiledQuery): AsyncIterableIterator<QueryResult<R>> {
    const statement = this.#prepare(compiled.sql);
    if (!statement.reader) throw new Error('only statements that return rows can be streamed on SQLite');
    for (const row of statement.iterate(...(compiled.parameters as unknown[]))) yield { rows: [row as R] };
  }
}

const isBusy = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === 'SQLITE_BUSY';

class ProductSqliteDriver implements Driver {
  readonly #raw: BetterSqlite3.Database;
  readonly #connection: SqliteConnection;
  readonly #queue = new ConnectionQueue();
  readonly #lockWaitMs: number;
  /** Between a BEGIN that took the write lock and its COMMIT or ROLLBACK. */
  #inTransaction = false;

  constructor(raw: BetterSqlite3.Database, lockWaitMs: number) {
    this.#raw = raw;
    this.#connection = new SqliteConnection(raw);
    this.#lockWaitMs = lockWaitMs;
  }

  /**
   * Runs `compiled` at once when that cannot overtake anyone: from inside the open transaction
   * (which holds the one connection), or, from outside any transaction, while no one holds the
   * connection. Otherwise undefined: the caller queues through Kysely like everyone else.
   */
  runNow<R>(compiled: CompiledQuery, fromTransaction: boolean): QueryResult<R> | undefined {
    if (fromTransaction ? !this.#inTransaction : !this.#queue.free) return undefined;
    return this.#connection.executeNow<R>(compiled);
  }

  /**
   * `work` in one write transaction on the one connection, as Kysely's transaction would run it
   * (queued behind the connection's holder, BEGIN IMMEDIATE waiting out another process's lock,
   * COMMIT, or ROLLBACK when it throws), without building a transaction object per call.
   * `connection` is the one connection as the caller reports its statements.
   */
  async transaction<T>(connection: DatabaseConnection, work: () => Promise<T>): Promise<T> {
    await this.#queue.lock();
    try {
      await this.beginTransaction(connection);
      try {
        const result = await work();
        await this.commitTransaction(connection);
        return result;
      } catch (error) {
        await this.rollbackTransaction(connection);
        throw error;
      }
    } finally {
      this.#queue.unlock();
    }
  }

  /** The one connection, for a transaction object that runs on it while `transaction` holds it. */
  get connection(): SqliteConnection {
    return this.#connection;
  }

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    await this.#queue.lock();
    return this.#connection;
  }

  async beginTransaction(connection: DatabaseConnection): Promise<void> {
    const giveUpAt = Date.now() + this.#lockWaitMs;
    let pause = 2;
    for (;;) {
      try {
        await connection.executeQuery(CompiledQuery.raw('begin immediate'));
        this.#inTransaction = true;
        return;
      } catch (error) {
        if (!isBusy(error) || Date.now() + pause > giveUpAt) throw error;
      }
      // Another process writes: let the connection serve others while this transaction waits.
      this.#queue.unlock();
      await sleep(pause);
      await this.#queue.lock();
      pause = Math.min(pause * 2, 50);
    }
  }

  async commitTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('commit'));
    this.#inTransaction = false;
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    this.#inTransaction = false;
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async releaseConnection(): Promise<void> {
    this.#queue.unlock();
  }

  async destroy(): Promise<void> {
    this.#raw.close();
  }
}

/**
 * The Kysely dialect of a better-sqlite3 handle opened by `openSqlite`; `lockWaitMs` bounds how
 * long a write transaction waits for another process's write lock.
 */
export class ProductSqliteDialect implements KyselyDialect {
  readonly #raw: BetterSqlite3.Database;
  readonly #lockWaitMs: number;

  constructor(raw: BetterSqlite3.Database, lockWaitMs: number) {
    this.#raw = raw;
    this.#lockWaitMs = lockWaitMs;
  }

  #driver: ProductSqliteDriver | undefined;

  createDriver(): Driver {
    this.#driver ??= new ProductSqliteDriver(this.#raw, this.#lockWaitMs);
    return this.#driver;
  }

  /** The driver Kysely runs on (created with the Kysely instance). */
  get driver(): ProductSqliteDriver {
    if (!this.#driver) throw new Error('the SQLite driver is created with its Kysely instance');
    return this.#driver;
  }

  /** See `ProductSqliteDriver.runNow`; undefined before Kysely created the driver. */
  runNow<R>(compiled: CompiledQuery, fromTransaction: boolean): QueryResult<R> | undefined {
    return this.#driver?.runNow<R>(compiled, fromTransaction);
  }

  createQueryCompiler(): QueryCompiler {
    return new SqliteQueryCompiler();
  }

  createAdapter(): DialectAdapter {
    return new SqliteAdapter();
  }

  createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new SqliteIntrospector(db);
  }
}
