// Driver-level access for the benchmarks (tools/bench), whose bare routes run this package's own
// statements (bench/bench-statements.ts) straight on the drivers, and which time parts of a list
// on their own (the kept total). Exported as @pits/persistence/bench, never to the apps.
export type { DB } from '../schema/index.js';
export { openSqlite } from './sqlite-dialect.js';
export { postgresTypeParsers } from './postgres-dialect.js';
export { keptAdjustmentTotal } from '../repositories/list-count-repository.js';
export * from '../bench/bench-statements.js';
