// Test helpers of @pits/persistence, for this package's tests and for the apps' tests.
export * from './test-database.js';
export * from './fixtures.js';
export * from './area-fixtures.js';
export * from '../dialects/test-servers.js';
