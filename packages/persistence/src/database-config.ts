// Which database to open, decided once from DATABASE_URL by the app's config module and passed in.
import { isAbsolute, resolve } from 'node:path';

export type DatabaseConfig =
  | { dialect: 'sqlite'; /** A file path, or ':memory:'. */ location: string }
  | { dialect: 'postgres'; url: string; /** A schema to work in (tests use one per run). */ schema?: string; poolSize?: number };

export type Dialect = DatabaseConfig['dialect'];

/** The embedded default: a SQLite file under ./data of the working directory. */
export const DEFAULT_SQLITE_LOCATION = './data/pits.sqlite';

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
