// Which database to open, decided once from DATABASE_URL by the app's config module and passed in.
// Each registered dialect (dialects/dialect-registry.ts) reads its own URL forms and shows its own
// configuration; this module asks them, so it never names a database itself.
import { type DatabaseConfig, type DialectName, REGISTERED_DIALECTS, dialectOf } from './dialects/dialect-registry.js';

export type { DatabaseConfig, DialectName } from './dialects/dialect-registry.js';
export { DEFAULT_DATABASE_DEADLINES, type DatabaseDeadlines, deadlinesOf } from './dialects/database-settings.js';

/** The configuration's dialect name (the e2e harness calls it this). */
export type Dialect = DialectName;

/** What DATABASE_URL may be, for help texts. */
export const DATABASE_URL_FORMS = REGISTERED_DIALECTS.map((dialect) => dialect.url.forms).join('; or ');

/**
 * Reads a DATABASE_URL: the first registered dialect that recognises the text opens it (unset or
 * empty is the embedded default). A text no dialect recognises throws, listing the forms.
 *
 * @example const config = parseDatabaseUrl(process.env.DATABASE_URL);
 */
export function parseDatabaseUrl(value: string | undefined, cwd = process.cwd()): DatabaseConfig {
  const text = value?.trim() ?? '';
  for (const dialect of REGISTERED_DIALECTS) {
    const config = dialect.url.parse(text, cwd);
    if (config !== undefined) return config;
  }
  throw new Error(`DATABASE_URL scheme is not supported: use ${DATABASE_URL_FORMS}`);
}

/** The configuration without its password, for logs. */
export function describeDatabase(config: DatabaseConfig): string {
  return dialectOf(config).url.describe(config);
}

/**
 * Which database a config reaches, without its password (a file's absolute path; a server's host,
 * port, database and schema). Two DATABASE_URLs that reach the same data give the same identity.
 *
 * @example const credentialsFile = `${createHash('sha256').update(databaseIdentity(config)).digest('hex')}.json`;
 */
export function databaseIdentity(config: DatabaseConfig): string {
  return dialectOf(config).url.identity(config);
}
