// PostgreSQL (pg) as a SqlDialect. A pool of named-statement clients (postgres-named-statements.ts)
// with server and client deadlines, type parsers that return what the other dialects return, row
// locks, pg_trgm indexes for substring search, and bulk writes over unnest()ed arrays.
import { randomBytes } from 'node:crypto';
import { CompiledQuery, type DatabaseConnection, Kysely, PostgresDialect, type QueryResult, Transaction, sql } from 'kysely';
import pg from 'pg';
import type { DatabaseConfig } from '../database-config.js';
import { deadlinesOf } from '../database-config.js';
import { type ParamRef, markedList, preparedQuery } from '../parameterised-query.js';
import { AREA_FIELDS, AREA_INSERT_COLUMNS, SEARCH_COLUMNS, STORED_AREA_COLUMNS } from '../repositories/area-fields.js';
import type { AreaRegionLevel, DB } from '../schema/index.js';
import { type GuardedClientConfig, NamedStatementClient } from './postgres-named-statements.js';
import type { AreaStore, DatabaseEvents, DirectExecutor, SqlDialect, TestEnvironment } from './sql-dialect.js';
import { queryLog } from './query-events.js';
import { containsPattern, likePattern, standardSql } from './standard-sql.js';

type PostgresConfig = Extract<DatabaseConfig, { dialect: 'postgres' }>;

/** A client-side grace on top of statement_timeout, so the server's own timeout normally answers first. */
const QUERY_DEADLINE_GRACE_MS = 1000;

function safeInteger(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`integer ${text} from PostgreSQL is beyond the safe range`);
  return n;
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
    [types.builtins.TIMESTAMPTZ, (v) => new Date(v).toISOString()],
    [types.builtins.TIMESTAMP, (v) => new Date(`${v}Z`).toISOString()],
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

// ---------------------------------------------------------------------------------------------
// Area search and import

const textArray = (values: readonly string[]) => sql`${values}::text[]`;

const regionMatches = preparedQuery({
  shape: (p: { levels: AreaRegionLevel[]; pattern: string }) => p.levels.length,
  build: (scope, param, levels) =>
  scope.db
    .selectFrom('area_regions')
    .select(['level', 'code', 'area_count'])
    .where('level', 'in', markedList(param, 'levels', levels))
    .where(({ ref }) => likePattern(ref('name_search'), param('pattern'))),
});

const villageMatches = preparedQuery({
  build: (scope, param: ParamRef<{ pattern: string }>) =>
  scope.db.selectFrom('areas').select('subdistrict_code').where(({ ref }) => likePattern(ref('subdistrict_search'), param('pattern'))),
});

// LIKE on the lower-cased columns, answered by their pg_trgm GIN indexes; batch writes are one
// statement per batch over unnest()ed arrays.
const areas: AreaStore = {
  // pg_trgm can only answer a substring of at least three characters.
  shortestIndexedNeedle: 3,

  async matchRegions(scope, levels, needle) {
    return regionMatches.execute(scope, { levels: [...levels], pattern: containsPattern(needle) });
  },

  async matchVillageCodes(scope, needle) {
    return (await villageMatches.execute(scope, { pattern: containsPattern(needle) })).map((r) => r.subdistrict_code);
  },

  async existingAreas(_database, tx, codes) {
    const rows = await tx.db.selectFrom('areas').select(STORED_AREA_COLUMNS).where(sql<boolean>`subdistrict_code = any(${textArray(codes)})`).execute();
    return new Map(rows.map((r) => [r.subdistrict_code, r]));
  },

  async insertAreas(_database, tx, records, at) {
    if (records.length === 0) return;
    const columns = [
      ...AREA_FIELDS.map((f) => textArray(records.map((r) => r[f]))),
      ...SEARCH_COLUMNS.map(([, name]) => textArray(records.map((r) => r[name].toLowerCase()))),
    ];
    await sql`insert into areas (${sql.join(AREA_INSERT_COLUMNS.map((c) => sql.ref(c)))})
      select u.*, ${at}::timestamptz, ${at}::timestamptz from unnest(${sql.join(columns)}) as u`.execute(tx.db);
  },

  async updateAreas(_database, tx, updates, fields, at) {
    if (updates.length === 0) return;
    const columns = [...fields, ...SEARCH_COLUMNS.map(([column]) => column)];
    const arrays = [
      ...fields.map((f) => textArray(updates.map((u) => u.record[f]))),
      ...SEARCH_COLUMNS.map(([, name]) => textArray(updates.map((u) => u.record[name].toLowerCase()))),
    ];
    await sql`update areas a set ${sql.join(columns.map((c) => sql`${sql.ref(c)} = u.${sql.ref(c)}`))}, updated_at = ${at}::timestamptz
      from unnest(${sql`${updates.map((u) => u.regionId)}::bigint[]`}, ${sql.join(arrays)}) as u(region_id, ${sql.join(columns.map((c) => sql.ref(c)))})
      where a.region_id = u.region_id`.execute(tx.db);
  },

  async insertRegions(_database, tx, regions) {
    if (regions.length === 0) return;
    await tx.db
      .insertInto('area_regions')
      .values(regions.map((r) => ({ level: r.level, code: r.code, name_search: r.nameSearch, area_count: r.added })))
      .execute();
  },

  async updateRegions(_database, tx, regions) {
    if (regions.length === 0) return;
    await sql`update area_regions r set name_search = u.name_search, area_count = r.area_count + u.added
      from unnest(${regions.map((r) => r.id)}::bigint[], ${regions.map((r) => r.nameSearch)}::text[], ${regions.map((r) => r.added)}::bigint[])
        as u(id, name_search, added)
      where r.id = u.id`.execute(tx.db);
  },
};

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
// Statements outside transactions, straight on the pool

const directs = new WeakMap<Kysely<DB>, DirectExecutor>();

const AFFECTING = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/**
 * Statements and transactions straight on the pool's clients, as Kysely's executor and
 * transaction run them with several asynchronous layers more; results have Kysely's shape, and
 * every statement reports to `events` as Kysely's log would.
 *
 * - A statement outside any transaction takes a pooled connection, runs and gives it back.
 * - A transaction takes one connection for its whole life: BEGIN, the work, COMMIT (ROLLBACK when
 *   the work throws). Its statements run on that connection, whether a prepared query sends them
 *   (`direct`) or a Kysely builder does (the transaction object's executor). A connection whose
 *   ROLLBACK failed is in an unknown state: it is destroyed, not given back.
 */
function pooledExecutor(pool: pg.Pool, db: Kysely<DB>, kyselyDialect: PostgresDialect, events: DatabaseEvents): DirectExecutor {
  const { onQuery, onQueryError } = events;
  const connect = () =>
    pool.connect().catch((error: unknown) => {
      onQueryError?.(error);
      throw error;
    });
  const runOn = async <R>(client: pg.PoolClient, compiled: CompiledQuery): Promise<QueryResult<R>> => {
    try {
      const { command, rowCount, rows } = await client.query(compiled.sql, compiled.parameters as unknown[]);
      onQuery?.(compiled.sql, compiled.parameters);
      return { rows: (rows ?? []) as R[], ...(AFFECTING.has(command) ? { numAffectedRows: BigInt(rowCount ?? 0) } : {}) };
    } catch (error) {
      onQueryError?.(error);
      throw error;
    }
  };
  const runOnPool = async <R>(compiled: CompiledQuery): Promise<QueryResult<R>> => {
    const client = await connect();
    try {
      return await runOn<R>(client, compiled);
    } finally {
      client.release();
    }
  };
  // Never asked to do anything: a transaction object does not open, stream through or close a driver.
  const idleDriver = kyselyDialect.createDriver();
  const control = (client: pg.PoolClient, statement: 'begin' | 'commit' | 'rollback') => runOn(client, CompiledQuery.raw(statement));
  return {
    run: (compiled, fromTransaction) => (fromTransaction ? undefined : runOnPool(compiled)),
    async transaction(work) {
      const client = await connect();
      const connection: DatabaseConnection = {
        executeQuery: (compiled) => runOn(client, compiled),
        streamQuery: () => {
          throw new Error('streaming is not supported inside a transaction');
        },
      };
      const transaction = new Transaction<DB>({
        config: { dialect: kyselyDialect },
        dialect: kyselyDialect,
        driver: idleDriver,
        executor: db.getExecutor().withConnectionProvider({ provideConnection: (consumer) => consumer(connection) }),
      });
      const direct: DirectExecutor = { run: (compiled) => runOn(client, compiled) };
      let broken: Error | undefined;
      try {
        await control(client, 'begin');
        const result = await work(transaction, direct);
        await control(client, 'commit');
        return result;
      } catch (error) {
        await control(client, 'rollback').catch((rollbackError: unknown) => {
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        });
        throw error;
      } finally {
        client.release(broken);
      }
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The dialect

// The pool under each Kysely instance this dialect opened, for `connections`.
const pools = new WeakMap<Kysely<DB>, pg.Pool>();

/**
 * PostgreSQL: a pool whose every statement is bounded by statement_timeout on the server and a
 * client-side deadline for a silent network; a lost connection is dropped and replaced, never fatal.
 */
export const postgresDialect: SqlDialect<PostgresConfig> = {
  name: 'postgres',
  capabilities: { hasRowLocks: true, embedded: false },

  open(config: PostgresConfig, events: DatabaseEvents): Kysely<DB> {
    const deadlines = deadlinesOf(config);
    const poolConfig: pg.PoolConfig & GuardedClientConfig = {
      Client: NamedStatementClient,
      connectionString: config.url,
      max: config.poolSize ?? 10,
      types: postgresTypeParsers(),
      // Bounds both opening a connection and waiting for a free one.
      connectionTimeoutMillis: deadlines.connectTimeoutMs,
      statement_timeout: deadlines.statementTimeoutMs,
      // A session that sits in an open transaction (its client stalled or gone) would hold its row
      // locks until TCP noticed; the server ends it instead.
      idle_in_transaction_session_timeout: Math.max(10_000, 2 * deadlines.statementTimeoutMs),
      queryDeadlineMs: deadlines.statementTimeoutMs + QUERY_DEADLINE_GRACE_MS,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
      ...(config.applicationName ? { application_name: config.applicationName } : {}),
      ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
    };
    const pool = new pg.Pool(poolConfig);
    // An idle connection that dies (a failover, pg_terminate_backend, a reaper) is reported here and
    // already removed from the pool; without a listener it would end the process.
    pool.on('error', (error: Error) => events.logger?.warn({ err: error.message }, 'database connection lost; it will be replaced'));
    const kyselyDialect = new PostgresDialect({ pool });
    const db = new Kysely<DB>({ dialect: kyselyDialect, ...queryLog(events) });
    pools.set(db, pool);
    directs.set(db, pooledExecutor(pool, db, kyselyDialect, events));
    return db;
  },

  directExecutor: (db) => directs.get(db),

  connections(db) {
    const pool = pools.get(db);
    if (!pool) throw new Error('connections: this database was not opened by the PostgreSQL dialect');
    return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
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
    },
  },

  lockRows: (query, of) => query.forUpdate(of),
  lockRowsSkipLocked: (query) => query.forUpdate().skipLocked(),

  insertReturningAll: standardSql.insertReturningAll,
  insertReturning: standardSql.insertReturning,
  updateReturningAll: standardSql.updateReturningAll,
  insertIgnoringDuplicates: standardSql.insertIgnoringDuplicates,
  upsert: standardSql.upsert,

  containsLowerCase: standardSql.containsLowerCase,
  // lower() folds every script under the UTF-8 encoding this product's databases use.
  lowerCase: (text) => sql<string>`lower(${text})`,
  areas,

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
      await sql`lock table ${sql.table(table)} in exclusive mode`.execute(tx.db);
    },
  },
};
