import { projectTestConfig } from '../../vitest.shared.js';

// One test file at a time: every CLI run migrates first, and on PostgreSQL Kysely's Migrator
// introspects the tables of every schema, which fails ("schema … does not exist") when another
// file's worker drops its throwaway schema at that moment. Sequential files also leave the two
// cores to the terminal test's build in a fresh clone.
export default projectTestConfig('importer', { fileParallelism: false });
