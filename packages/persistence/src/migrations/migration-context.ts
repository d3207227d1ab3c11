// What a migration may know besides the database: the dialect, so that dialect differences come
// from ../dialect.ts and nowhere else. Migrations import nothing of the application.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { Dialect } from '../database-config.js';
import { columnTypes } from '../dialect.js';

export interface MigrationContext {
  dialect: Dialect;
  types: ReturnType<typeof columnTypes>;
  /** Auto-increment primary key column. */
  idColumn: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
}

export function migrationContext(dialect: Dialect): MigrationContext {
  return {
    dialect,
    types: columnTypes(dialect),
    idColumn: (column) =>
      dialect === 'postgres' ? column.primaryKey().generatedByDefaultAsIdentity() : column.primaryKey().autoIncrement(),
  };
}

export interface ProductMigration {
  up(db: Kysely<unknown>, context: MigrationContext): Promise<void>;
  down?(db: Kysely<unknown>, context: MigrationContext): Promise<void>;
}
