// Public surface of @pits/persistence.
export * from './database-config.js';
export * from './create-database.js';
export * from './dialect.js';
export * from './migrate.js';
export * from './transaction.js';
export type * from './schema/index.js';
export * from './repositories/partner-repository.js';
export * from './repositories/tenant-repository.js';
export * from './repositories/location-repository.js';
export * from './repositories/product-repository.js';
export * from './repositories/stock-repository.js';
export * from './repositories/document-sequence-repository.js';
export * from './repositories/adjustment-repository.js';
export * from './operations/catalogue-checks.js';
export * from './operations/stock-operations.js';
export * from './operations/adjustment-operations.js';
