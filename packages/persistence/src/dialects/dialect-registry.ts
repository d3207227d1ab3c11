// The databases this product can open, keyed by the name configuration gives them: each one's
// dialect (its SQL, configuration, URL form and statement runner) and its area store (the area
// search and import SQL, which lives with the area repository). Adding a database is one entry
// here: `DatabaseConfig` and `DialectName` are derived from this list, and DATABASE_URL is read by
// asking each dialect in turn (database-config.ts).
import type { Scope } from '../execution/scope.js';
import type { AreaStore } from '../repositories/areas/area-fields.js';
import { postgresAreaStore } from '../repositories/areas/postgres-area-store.js';
import { sqliteAreaStore } from '../repositories/areas/sqlite-area-store.js';
import { postgresDialect } from './postgres-dialect.js';
import type { DialectConfig, SqlDialect } from './sql-dialect.js';
import { sqliteDialect } from './sqlite-dialect.js';

/** What one database brings, registered under its name `N`. */
interface RegisteredDialect<N extends string> {
  readonly dialect: SqlDialect<DialectConfig & { readonly dialect: N }>;
  readonly areaStore: AreaStore;
}

/** Checks that every entry's dialect carries the name it is listed under. */
const registry = <const R extends { readonly [N in keyof R]: RegisteredDialect<N & string> }>(entries: R): R => entries;

const DIALECTS = registry({
  sqlite: { dialect: sqliteDialect, areaStore: sqliteAreaStore },
  postgres: { dialect: postgresDialect, areaStore: postgresAreaStore },
});

type Registry = typeof DIALECTS;
type ConfigOf<D> = D extends SqlDialect<infer C> ? C : never;

/** The name of a database this product can open. */
export type DialectName = keyof Registry;

/** Which database to open: one registered dialect's configuration. */
export type DatabaseConfig = { [N in DialectName]: ConfigOf<Registry[N]['dialect']> }[DialectName];

const ENTRIES: readonly RegisteredDialect<DialectName>[] = Object.values(DIALECTS);

/** Every dialect, in the order test runs go through them. */
export const REGISTERED_DIALECTS: readonly SqlDialect<DatabaseConfig>[] = ENTRIES.map((entry) => entry.dialect as SqlDialect<DatabaseConfig>);

const isDialectName = (name: string): name is DialectName => Object.hasOwn(DIALECTS, name);

function entryNamed(name: string): RegisteredDialect<DialectName> {
  if (!isDialectName(name)) throw new Error(`unknown database dialect "${name}" (known: ${Object.keys(DIALECTS).join(', ')})`);
  return DIALECTS[name];
}

/**
 * The dialect configuration calls `name`; an unknown name throws, naming the known ones.
 *
 * @example dialectNamed(config.dialect).capabilities.hasRowLocks
 */
export function dialectNamed(name: string): SqlDialect<DatabaseConfig> {
  return entryNamed(name).dialect as SqlDialect<DatabaseConfig>;
}

/** The dialect that opens `config`, typed for it. */
export function dialectOf<C extends DatabaseConfig>(config: C): SqlDialect<C> {
  return dialectNamed(config.dialect) as unknown as SqlDialect<C>;
}

/**
 * The area store of the scope's database.
 *
 * @example await areaStoreOf(scope).matchVillageCodes(scope, 'kebon')
 */
export function areaStoreOf(scope: Pick<Scope, 'dialect'>): AreaStore {
  return entryNamed(scope.dialect.name).areaStore;
}
