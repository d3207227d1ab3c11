// Public surface of @pits/persistence.
export * from './database-config.js';
export * from './create-database.js';
export * from './dialect.js';
export * from './migrate.js';
export type * from './schema/index.js';
