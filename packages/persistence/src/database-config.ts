// Which database to open, decided once from DATABASE_URL by the app's config module and passed in.
// With the dialect module (./dialects), the only place that names the databases: here the URL
// chooses one, there each is implemented.
import { isAbsolute, resolve } from 'node:path';

/**
 * How long the database may keep a caller waiting. Past a deadline the call fails with an error
 * that `isDatabaseUnavailable` recognises, so the apps answer 503 instead of hanging.
 */
export interface DatabaseDeadlines {
  /** PostgreSQL: opening a connection, and waiting for a free one in the pool. */
  connectTimeoutMs: number;
  /**
   * One statement: PostgreSQL's `statement_timeout` (lock waits included; the client also gives
   * up on a connection that stays silent this long plus a second), SQLite's busy timeout.
   */
  statementTimeoutMs: number;
}

/** Safe defaults: a database that does not answer within these is treated as unavailable. */
export const DEFAULT_DATABASE_DEADLINES: DatabaseDeadlines = { connectTimeoutMs: 2000, statementTimeoutMs: 5000 };

interface CommonDatabaseConfig {
  /** Missing fields take DEFAULT_DATABASE_DEADLINES. */
  deadlines?: Partial<DatabaseDeadlines>;
  /** PostgreSQL: shown in pg_stat_activity, so an operator (or a test) can tell the processes apart. */
  applicationName?: string;
  /** Connections kept open at most (PostgreSQL's pool; SQLite always uses one per process). */
  poolSize?: number;
}

export type DatabaseConfig =
  | (CommonDatabaseConfig & { dialect: 'sqlite'; /** A file path, or ':memory:'. */ location: string })
  | (CommonDatabaseConfig & {
      dialect: 'postgres';
      url: string;
      /** A schema to work in (tests use one per run). */
      schema?: string;
    });

/** The deadlines a config resolves to. */
export function deadlinesOf(config: DatabaseConfig): DatabaseDeadlines {
  return { ...DEFAULT_DATABASE_DEADLINES, ...config.deadlines };
}

/** The name of a database this product can open (see ./dialects/dialect-registry.ts). */
export type DialectName = DatabaseConfig['dialect'];

/** The configuration's dialect name (the e2e harness calls it this). */
export type Dialect = DialectName;

/** The embedded default: a SQLite file under ./data of the working directory. */
export const DEFAULT_SQLITE_LOCATION = './data/pits.sqlite';

/** What DATABASE_URL may be, for help texts. */
export const DATABASE_URL_FORMS = `postgres://… or a SQLite path; default ${DEFAULT_SQLITE_LOCATION}`;

/**
 * Reads a DATABASE_URL: `postgres://` or `postgresql://` opens PostgreSQL; `sqlite:` URLs
 * (`sqlite:./data/x.db`, `sqlite:///abs/x.db`, `sqlite::memory:`) or a plain file path open SQLite.
 *
 * @example parseDatabaseUrl('postgres://postgres@127.0.0.1:5432/test') // { dialect: 'postgres', url: ... }
 * @example parseDatabaseUrl(undefined) // { dialect: 'sqlite', location: './data/pits.sqlite' }
 */
export function parseDatabaseUrl(value: string | undefined, cwd = process.cwd()): DatabaseConfig {
  const text = value?.trim() ?? '';
  if (text === '') return { dialect: 'sqlite', location: resolve(cwd, DEFAULT_SQLITE_LOCATION) };
  if (/^postgres(ql)?:\/\//i.test(text)) return { dialect: 'postgres', url: text };
  let location = text;
  if (/^sqlite:/i.test(text)) {
    location = text.replace(/^sqlite:(\/\/)?/i, '');
    if (location === '') throw new Error('DATABASE_URL "sqlite:" names no file');
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    throw new Error(`DATABASE_URL scheme is not supported: use postgres://, sqlite: or a file path`);
  }
  if (location === ':memory:') return { dialect: 'sqlite', location };
  return { dialect: 'sqlite', location: isAbsolute(location) ? location : resolve(cwd, location) };
}

/** The URL without its password, for logs. */
export function describeDatabase(config: DatabaseConfig): string {
  if (config.dialect === 'sqlite') return `sqlite:${config.location}`;
  try {
    const url = new URL(config.url);
    if (url.password) url.password = '***';
    return `${url.toString()}${config.schema ? ` (schema ${config.schema})` : ''}`;
  } catch {
    return 'postgres:(unparseable url)';
  }
}

/**
 * Which database a config reaches, without its password: the SQLite file's absolute path, or
 * PostgreSQL's host, port, database and schema (the config's, or the first of the URL's
 * search_path). Two DATABASE_URLs that reach the same data give the same identity.
 *
 * @example databaseIdentity(parseDatabaseUrl('postgres://u:pw@Db:5432/pits')) // 'postgres://db:5432/pits'
 */
export function databaseIdentity(config: DatabaseConfig): string {
  if (config.dialect === 'sqlite') return `sqlite:${config.location}`;
  const url = new URL(config.url);
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username) || 'postgres';
  // A schema named by the config, or by the connection's search_path (`?options=-c search_path=x`).
  const searchPath = /search_path\s*=\s*([^\s,]+)/.exec(url.searchParams.get('options') ?? '')?.[1];
  const schema = config.schema ?? searchPath;
  return `postgres://${url.hostname.toLowerCase()}:${url.port || '5432'}/${database}${schema ? `?schema=${schema}` : ''}`;
}
