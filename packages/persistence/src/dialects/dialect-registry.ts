// The dialects this product can open, keyed by the name configuration gives them. The map's type
// requires an entry for every name `DatabaseConfig` allows, so a new name without its dialect does
// not compile.
import type { DatabaseConfig, DialectName } from '../database-config.js';
import { postgresDialect } from './postgres-dialect.js';
import type { SqlDialect } from './sql-dialect.js';
import { sqliteDialect } from './sqlite-dialect.js';

const DIALECTS: { readonly [N in DialectName]: SqlDialect<Extract<DatabaseConfig, { dialect: N }>> } = {
  sqlite: sqliteDialect,
  postgres: postgresDialect,
};

/** Every dialect, in the order test runs go through them. */
export const REGISTERED_DIALECTS: readonly SqlDialect[] = Object.values(DIALECTS);

const isDialectName = (name: string): name is DialectName => Object.hasOwn(DIALECTS, name);

/**
 * The dialect configuration calls `name`; an unknown name throws, naming the known ones.
 *
 * @example dialectNamed(config.dialect).capabilities.hasRowLocks
 */
export function dialectNamed(name: string): SqlDialect {
  if (!isDialectName(name)) throw new Error(`unknown database dialect "${name}" (known: ${Object.keys(DIALECTS).join(', ')})`);
  return DIALECTS[name];
}

/** The dialect that opens `config`, typed for it. */
export function dialectOf<C extends DatabaseConfig>(config: C): SqlDialect<C> {
  return dialectNamed(config.dialect) as SqlDialect<C>;
}
