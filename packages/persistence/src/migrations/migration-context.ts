// What a migration may know besides the database: column types and the named DDL operations of
// its dialect (../dialects), so that no migration knows which database it runs on. Migrations
// import nothing of the application.
import type { ColumnDefinitionBuilder, Kysely } from 'kysely';
import type { ColumnTypes, MigrationDdl, SqlDialect } from '../dialects/sql-dialect.js';

export interface MigrationContext extends MigrationDdl {
  types: ColumnTypes;
  /** Auto-increment primary key column. */
  idColumn: (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder;
}

/** The context migrations run with on `dialect`. */
export function migrationContext(dialect: SqlDialect): MigrationContext {
  const { columnTypes, idColumn, ddl } = dialect.migrations;
  return {
    types: columnTypes,
    idColumn: (column) => idColumn(column),
    makeLedgerImmutable: (db) => ddl.makeLedgerImmutable(db),
    createAreaSubstringIndexes: (db) => ddl.createAreaSubstringIndexes(db),
    dropAreaSubstringIndexes: (db) => ddl.dropAreaSubstringIndexes(db),
    keepListCounts: (db, list) => ddl.keepListCounts(db, list),
    dropListCountTriggers: (db, list) => ddl.dropListCountTriggers(db, list),
  };
}

export interface ProductMigration {
  up(db: Kysely<unknown>, context: MigrationContext): Promise<void>;
  down?(db: Kysely<unknown>, context: MigrationContext): Promise<void>;
}
