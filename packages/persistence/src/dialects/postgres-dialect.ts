// PostgreSQL (pg) as a SqlDialect. A pool (postgres-runner.ts runs its statements) with server and
// client deadlines, type parsers that return what the other dialects return, row locks, and
// pg_trgm indexes for substring search (their queries live with the area repository).
import { randomBytes } from 'node:crypto';
import { CompiledQuery, type Kysely, PostgresAdapter, PostgresIntrospector, PostgresQueryCompiler, sql } from 'kysely';
import pg from 'pg';
import { type DatabaseSettings, deadlinesOf } from './database-settings.js';
import { PostgresRunner } from './postgres-runner.js';
import type { DatabaseEvents, DatabaseUrlForm, SqlDialect, TestEnvironment } from './sql-dialect.js';
import { bumpListCount, listCountKeyChanged, listCountTriggers, standardSql } from './standard-sql.js';

/** A PostgreSQL server's database, reached by URL. */
export interface PostgresConfig extends DatabaseSettings {
  dialect: 'postgres';
  url: string;
  /** A schema to work in (tests use one per run). */
  schema?: string;
}

/** Query parameters of a connection URL whose value is a secret, never logged. */
const SECRET_PARAMETER = /pass|secret|token/i;

/** `postgres://` and `postgresql://` URLs, as libpq reads them. */
const postgresUrl: DatabaseUrlForm<PostgresConfig> = {
  forms: 'postgres://user:password@host:port/database',
  parse: (text) => (/^postgres(ql)?:\/\//i.test(text) ? { dialect: 'postgres', url: text } : undefined),
  describe(config) {
    try {
      const url = new URL(config.url);
      if (url.password) url.password = '***';
      // libpq and pg also take a password as a query parameter (`?password=`, `?sslpassword=`).
      for (const name of [...url.searchParams.keys()]) if (SECRET_PARAMETER.test(name)) url.searchParams.set(name, '***');
      return `${url.toString()}${config.schema ? ` (schema ${config.schema})` : ''}`;
    } catch {
      return 'postgres:(unparseable url)';
    }
  },
  // Host, port, database and schema (the config's, or the first of the URL's search_path).
  identity(config) {
    const url = new URL(config.url);
    const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
    const searchPath = /search_path\s*=\s*([^\s,]+)/.exec(url.searchParams.get('options') ?? '')?.[1];
    const schema = config.schema ?? searchPath;
    return `postgres://${url.hostname.toLowerCase()}:${url.port || '5432'}/${database}${schema ? `?schema=${schema}` : ''}`;
  },
};

/** A client-side grace on top of statement_timeout, so the server's own timeout normally answers first. */
const QUERY_DEADLINE_GRACE_MS = 1000;

function safeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`integer ${text} from PostgreSQL is beyond the safe range`);
  return n;
}

// The text a session in UTC gives a timestamptz: date, time, up to six fraction digits, "+00".
const UTC_TIMESTAMPTZ = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz as an ISO string with milliseconds and Z. The server's UTC form is rewritten as
 * text (the fraction cut to milliseconds, as Date does), which skips the date parser and the
 * formatter on every timestamp of every row; any other offset, era or value goes through Date.
 */
function isoTimestamp(text: string): string {
  const utc = UTC_TIMESTAMPTZ.exec(text);
  if (utc === null) return new Date(text).toISOString();
  const [, date, time, fraction = ''] = utc;
  return `${date}T${time}.${`${fraction}000`.slice(0, 3)}Z`;
}

/**
 * Type parsers for a pg pool so that PostgreSQL returns the value types every dialect returns
 * (see sql-dialect.ts): bigint as a safe number, numeric and json as text, timestamps as ISO
 * strings with Z, dates as text, booleans as 0 | 1.
 */
export function postgresTypeParsers(): pg.CustomTypesConfig {
  const { types } = pg;
  const overrides = new Map<number, (value: string) => unknown>([
    [types.builtins.INT8, safeInteger],
    [types.builtins.NUMERIC, (v) => v],
    [types.builtins.TIMESTAMPTZ, isoTimestamp],
    [types.builtins.TIMESTAMP, (v) => isoTimestamp(`${v}+00`)],
    [types.builtins.DATE, (v) => v],
    [types.builtins.BOOL, (v) => (v === 't' ? 1 : 0)],
    [types.builtins.JSON, (v) => v],
    [types.builtins.JSONB, (v) => v],
  ]);
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      overrides.get(oid) ?? types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
  };
}

// ---------------------------------------------------------------------------------------------
// Errors

interface DriverError {
  code?: unknown;
  message?: unknown;
}

const code = (error: unknown): string => {
  const value = (error as DriverError | null)?.code;
  return typeof value === 'string' ? value : '';
};

// SQLSTATEs of a server that cannot serve now: connection exceptions (class 08), shutdown or
// terminated backends, too many connections, statement and lock timeouts, an idle-in-transaction
// session cut, and conflicts that survived their retries.
const UNAVAILABLE = /^(08...|57P0[1-5]|57014|53300|53400|55P03|25P03|40001|40P01)$/;
// Socket-level failures reported by node:net under pg, and pg's own words for a connection that is gone.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNABORTED']);
// A statement or lock wait cancelled by its timeout, and pg's words for a connection not got in time.
const TIMEOUT_CODES = new Set(['57014', '55P03', 'ETIMEDOUT']);
const TIMEOUT_MESSAGES = /^(timeout exceeded when trying to connect|timeout expired|Query read timeout)/;
const CONNECTION_MESSAGES = /^(Connection terminated|timeout exceeded when trying to connect|timeout expired|Client has encountered a connection error|Client was closed|Connection is closed|Query read timeout)/;

/**
 * Kysely's Migrator looks for its own tables by introspecting every schema of the database; when
 * another process drops a schema or table meanwhile (test runs do, one schema each), PostgreSQL
 * answers "schema/relation/column does not exist" or "could not open relation".
 */
const CATALOG_RACE = new Set(['3F000', '42P01', '42703', 'XX000']);

/** A statement cancelled by statement_timeout, a lock wait cut by lock_timeout. */
const LOCK_WAIT_RAN_OUT = new Set(['57014', '55P03']);

// ---------------------------------------------------------------------------------------------
// Tests

export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/test';

/** The server test runs use: TEST_POSTGRES_URL, else the local server's `test` database. */
export function testPostgresUrl(env: TestEnvironment = process.env): string {
  return env.TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL;
}

const reachability = new Map<string, Promise<boolean>>();

async function reachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
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

/** Runs one statement on the test server outside any test database (creating or dropping a schema). */
async function administer(url: string, statement: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(statement);
  } finally {
    await admin.end();
  }
}

/** The URL with a search_path, so another process works in `schema`. */
function urlInSchema(url: string, schema: string): string {
  const withSchema = new URL(url);
  withSchema.searchParams.set('options', `-c search_path=${schema}`);
  return withSchema.toString();
}

// ---------------------------------------------------------------------------------------------
// The dialect

/**
 * PostgreSQL: a pool whose every statement is bounded by statement_timeout on the server and a
 * client-side deadline for a silent network; a lost connection is dropped and replaced, never fatal.
 */
/**
 * Connections kept for statements that commit on their own (a hold's number): each is one short
 * statement, so two serve a gateway's peak; never lent to a transaction, so a transaction that needs
 * one never waits for a pool its own kind has emptied.
 */
const AUTONOMOUS_CONNECTIONS = 2;

export const postgresDialect: SqlDialect<PostgresConfig> = {
  name: 'postgres',
  capabilities: { hasRowLocks: true, embedded: false },
  url: postgresUrl,

  open(config: PostgresConfig, events: DatabaseEvents) {
    const deadlines = deadlinesOf(config);
    const openPool = (max: number): pg.Pool => {
      const pool = new pg.Pool({
        connectionString: config.url,
        max,
        types: postgresTypeParsers(),
        // Bounds both opening a connection and waiting for a free one.
        connectionTimeoutMillis: deadlines.connectTimeoutMs,
        statement_timeout: deadlines.statementTimeoutMs,
        // The server's statement_timeout cannot help when the network or the server itself stalls
        // (its cancel never arrives): pg gives up on the answer a little later, and the runner then
        // destroys the connection instead of giving it back.
        query_timeout: deadlines.statementTimeoutMs + QUERY_DEADLINE_GRACE_MS,
        // A session that sits in an open transaction (its client stalled or gone) would hold its row
        // locks until TCP noticed; the server ends it instead.
        idle_in_transaction_session_timeout: Math.max(10_000, 2 * deadlines.statementTimeoutMs),
        keepAlive: true,
        keepAliveInitialDelayMillis: 10_000,
        ...(config.applicationName ? { application_name: config.applicationName } : {}),
        ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
      });
      // An idle connection that dies (a failover, pg_terminate_backend, a reaper) is reported here and
      // already removed from the pool; without a listener it would end the process.
      pool.on('error', (error: Error) => events.logger?.warn({ err: error.message }, 'database connection lost; it will be replaced'));
      // A connection lost while lent out and between queries emits 'error' on the client, where the
      // pool listens only while it is idle; unheard, that would end the process. The loss reaches
      // the next query on it, which fails and takes the connection down.
      pool.on('connect', (client) => client.on('error', () => undefined));
      return pool;
    };
    // Connections are opened when first used: a process that never runs an autonomous statement
    // never opens one for them.
    return new PostgresRunner(openPool(config.poolSize ?? 10), events, openPool(AUTONOMOUS_CONNECTIONS));
  },

  queryDialect: {
    createAdapter: () => new PostgresAdapter(),
    createQueryCompiler: () => new PostgresQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>) => new PostgresIntrospector(db),
  },

  migrations: {
    columnTypes: {
      id: sql`bigint`,
      bigint: sql`bigint`,
      quantity: sql`bigint`,
      // Unconstrained numeric: exact at any size the validation lets through (500 lines of 1e11 x 1e13).
      money: sql`numeric`,
      timestamp: sql`timestamptz(3)`,
      date: sql`date`,
      boolean: sql`boolean`,
      json: sql`jsonb`,
      text: sql`text`,
    },
    idColumn: (column) => column.primaryKey().generatedByDefaultAsIdentity(),
    // The bookkeeping tables live in the current schema, named explicitly: Kysely otherwise takes a
    // `kysely_migration` table of any other schema (another test worker's) as its own.
    async migratorOptions(db) {
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      return { migrationTableSchema: rows[0]!.schema };
    },
    lostCatalogRace: (error) => CATALOG_RACE.has(code(error)),
    // Kysely's adapter serialises migrations with a session-level advisory lock: one key for the
    // whole database whatever the schema (two schemas' migrations wait for each other too, and
    // pg_trgm, which 002 installs once per database, is never created twice at once). It belongs
    // to the connection that took it, so the Migrator runs on one session (migrate.ts). While
    // another process migrates, the wait is cut by statement_timeout (57014) or lock_timeout (55P03).
    lockWaitRanOut: (error) => LOCK_WAIT_RAN_OUT.has(code(error)),
    ddl: {
      async makeLedgerImmutable(db) {
        // Ledger rows are immutable: refuse updates and deletes at the database too.
        await sql`create function stock_ledger_immutable() returns trigger language plpgsql as $$
      begin raise exception 'stock_ledger rows are immutable'; end $$`.execute(db);
        await sql`create trigger stock_ledger_no_change before update or delete on stock_ledger
      for each row execute function stock_ledger_immutable()`.execute(db);
      },
      async createAreaSubstringIndexes(db) {
        // pg_trgm lives in one schema of the database (public unless it was installed elsewhere), never
        // in a schema of its own that a test or tenant could drop; the operator class is named with it.
        const available = await sql<{ n: number }>`select count(*)::int as n from pg_available_extensions where name = 'pg_trgm'`.execute(db);
        if ((available.rows[0]?.n ?? 0) === 0) return; // without pg_trgm, substring search scans (correct, slower)
        let installed = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
        if (installed.rows.length === 0) {
          const hasPublic = await sql<{ n: number }>`select count(*)::int as n from pg_namespace where nspname = 'public'`.execute(db);
          await ((hasPublic.rows[0]?.n ?? 0) > 0 ? sql`create extension if not exists pg_trgm with schema public` : sql`create extension if not exists pg_trgm`).execute(db);
          installed = await sql<{ schema: string }>`select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`.execute(db);
        }
        const opclass = sql`${sql.id(installed.rows[0]!.schema)}.gin_trgm_ops`;
        await sql`create index areas_subdistrict_search_trgm_idx on areas using gin (subdistrict_search ${opclass})`.execute(db);
        await sql`create index area_regions_name_search_trgm_idx on area_regions using gin (name_search ${opclass})`.execute(db);
      },
      async dropAreaSubstringIndexes(db) {
        // The index on area_regions goes with the table, which 002's down drops next.
        await sql`drop index if exists areas_subdistrict_search_trgm_idx`.execute(db);
      },
      async keepListCounts(db, list) {
        // One function per table, told the kind of write by TG_OP; three triggers, since only an
        // update's may compare the old row with the new one.
        const name = listCountTriggers(list);
        const fn = sql.id(`${list.table}_count`);
        const table = sql.id(list.table);
        const columns = sql.join(list.key.map((c) => sql.id(c)));
        await sql`create function ${fn}() returns trigger language plpgsql as $$
      begin
        if tg_op <> 'INSERT' then ${bumpListCount(list, 'old', -1)}; end if;
        if tg_op <> 'DELETE' then ${bumpListCount(list, 'new', 1)}; end if;
        return null;
      end $$`.execute(db);
        await sql`create trigger ${sql.id(name.insert)} after insert on ${table} for each row execute function ${fn}()`.execute(db);
        await sql`create trigger ${sql.id(name.update)} after update of ${columns} on ${table}
      for each row when (${listCountKeyChanged(list)}) execute function ${fn}()`.execute(db);
        await sql`create trigger ${sql.id(name.delete)} after delete on ${table} for each row execute function ${fn}()`.execute(db);
      },
      async dropListCountTriggers(db, list) {
        for (const name of Object.values(listCountTriggers(list))) await sql`drop trigger if exists ${sql.id(name)} on ${sql.id(list.table)}`.execute(db);
        await sql`drop function if exists ${sql.id(`${list.table}_count`)}()`.execute(db);
      },
    },
  },

  lockRows: (query, of) => query.forUpdate(of),
  lockRowsSkipLocked: (query) => query.forUpdate().skipLocked(),

  insertReturningAll: standardSql.insertReturningAll,
  insertReturning: standardSql.insertReturning,
  updateReturningAll: standardSql.updateReturningAll,
  insertIgnoringDuplicates: standardSql.insertIgnoringDuplicates,
  upsert: standardSql.upsert,
  insertsInWith: true,

  containsLowerCase: standardSql.containsLowerCase,
  // lower() folds every script under the UTF-8 encoding this product's databases use.
  lowerCase: (text) => sql<string>`lower(${text})`,
  clockNow: () => sql<string>`clock_timestamp()`,

  errors: {
    isUniqueViolation: (error) => code(error) === '23505',
    isCheckViolation: (error) => code(error) === '23514',
    // A serialization failure or a deadlock: one of the transactions was cut; again will do.
    isTransientConflict: (error) => code(error) === '40001' || code(error) === '40P01',
    isUnavailable(error) {
      const c = code(error);
      if (UNAVAILABLE.test(c) || SOCKET_CODES.has(c)) return true;
      const message = (error as DriverError | null)?.message;
      return typeof message === 'string' && CONNECTION_MESSAGES.test(message);
    },
    isTimeout(error) {
      if (TIMEOUT_CODES.has(code(error))) return true;
      const message = (error as DriverError | null)?.message;
      return typeof message === 'string' && TIMEOUT_MESSAGES.test(message);
    },
  },

  testing: {
    async availability(env) {
      const url = testPostgresUrl(env);
      let answer = reachability.get(url);
      if (!answer) reachability.set(url, (answer = reachable(url)));
      return (await answer) ? { available: true } : { available: false, reason: `PostgreSQL at ${url} is unreachable (set TEST_POSTGRES_URL)` };
    },

    async createThrowaway(env, { poolSize }) {
      // Always shared: other pools and processes reach the schema through its search_path.
      const url = testPostgresUrl(env);
      const schema = `pits_test_${process.pid}_${randomBytes(4).toString('hex')}`;
      await administer(url, `create schema ${schema}`);
      return {
        config: { dialect: 'postgres', url, schema, poolSize: poolSize ?? 20 },
        url: urlInSchema(url, schema),
        drop: () => administer(url, `drop schema if exists ${schema} cascade`),
      };
    },

    async childDatabaseUrl(db, env) {
      const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
      return urlInSchema(testPostgresUrl(env), rows[0]!.schema);
    },

    async holdWriteLock(tx, table) {
      await tx.runner.run(sql`lock table ${sql.table(table)} in exclusive mode`.compile(tx.db));
    },

    async planReadsIndexRange(tx, statement, index) {
      // With few rows the planner prefers a scan; the question is whether the index can be a range.
      await tx.runner.run(CompiledQuery.raw('set local enable_seqscan = off'));
      const { rows } = await tx.runner.run<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${statement.sql}`, [...statement.parameters]));
      const plan = rows.map((r) => r['QUERY PLAN']).join('\n');
      // An index scan, or a bitmap index scan (the planner's pick for a few rows), both by Index Cond.
      const scan = new RegExp(`Index (Only )?Scan using ${index} on|Bitmap Index Scan on ${index}\\b`);
      return { range: scan.test(plan) && /Index Cond: /.test(plan), plan };
    },

    async lockWaiters(scope) {
      const { rows } = await scope.runner.run<{ n: string }>(
        CompiledQuery.raw("select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and datname = current_database()"),
      );
      return Number(rows[0]?.n ?? 0);
    },
  },
};
