// PostgreSQL parses and plans an unnamed statement on every execution. Kysely sends every query
// unnamed; this client gives the fixed-shape data statements a name derived from their text, so
// each connection prepares them once and then only binds and executes (the inventory benchmark
// measured 2 to 3 times less server CPU per request). Bounded per connection: statements with
// variable shapes (IN lists, multi-row inserts) stop being named once the connection holds
// MAX_NAMED_PER_CONNECTION of them. The same client also guards every connection: a lost one never
// ends the process, and a query left unanswered past its deadline takes its connection down with it.
import { createHash } from 'node:crypto';
import pg from 'pg';
import { DatabaseUnavailableError } from '../database-unavailable-error.js';

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

/** Client options this package adds to pg's. */
export interface GuardedClientConfig extends pg.ClientConfig {
  /**
   * A query that gets no answer for this long is abandoned and its connection destroyed (0: never).
   * The server's statement_timeout cannot help when the network or the server itself stalls: its
   * cancel never arrives. The pool then drops the connection instead of handing it out again.
   */
  queryDeadlineMs?: number;
}

export class NamedStatementClient extends pg.Client {
  readonly #named = new Set<string>();
  readonly #queryDeadlineMs: number;

  constructor(config?: GuardedClientConfig) {
    super(config);
    this.#queryDeadlineMs = config?.queryDeadlineMs ?? 0;
    // A connection lost while checked out of the pool and between queries emits 'error' with no
    // listener of the pool's attached; unheard, that would end the process. The loss is reported
    // to the next query (or to the pool's own 'error' listener when the client is idle).
    this.on('error', () => undefined);
  }

  /** Destroys the connection under a query that stays unanswered past its deadline. */
  #guard(result: Promise<unknown>): void {
    const timer = setTimeout(() => {
      const stream = (this as unknown as { connection?: { stream?: { destroy(error?: Error): void } } }).connection?.stream;
      stream?.destroy(new DatabaseUnavailableError(`the database did not answer within ${this.#queryDeadlineMs} ms`));
    }, this.#queryDeadlineMs);
    const clear = () => clearTimeout(timer);
    result.then(clear, clear);
  }

  /** The name a statement gets, or undefined when it stays unnamed. */
  statementName(text: string): string | undefined {
    if (text.length > MAX_TEXT_LENGTH || !DATA_STATEMENT.test(text)) return undefined;
    const name = nameOf(text);
    if (this.#named.has(name)) return name;
    if (this.#named.size >= MAX_NAMED_PER_CONNECTION) return undefined;
    this.#named.add(name);
    return name;
  }

  // Kysely calls query(text, values); every other form goes through unchanged.
  override query(...args: unknown[]): never {
    const [text, values] = args;
    let result: unknown;
    if (typeof text === 'string' && Array.isArray(values) && args.length === 2) {
      const name = this.statementName(text);
      result =
        name !== undefined
          ? (super.query as unknown as (config: pg.QueryConfig) => unknown)({ name, text, values })
          : (super.query as unknown as (...rest: unknown[]) => unknown)(text, values);
    } else {
      result = (super.query as unknown as (...rest: unknown[]) => unknown)(...args);
    }
    if (this.#queryDeadlineMs > 0 && result instanceof Promise) this.#guard(result);
    return result as never;
  }
}
