// Test helpers of @pits/persistence, for this package's tests and for the apps' tests.
export * from './test-database.js';
export * from './fixtures.js';
export * from './reservation-fixtures.js';
export * from './area-fixtures.js';
export * from './counting-scope.js';
export * from '../dialects/test-servers.js';
// Running a test's own statements in a scope (inside a transaction `tx.db` only builds).
export { execute, executeTakeFirst, executeWrite } from '../execution/execute.js';
