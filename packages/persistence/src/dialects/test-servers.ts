// The database servers test runs use, for test helpers that start their own processes or proxies
// (e2e, benchmarks): exported through @pits/persistence/testing.
export { DEFAULT_TEST_POSTGRES_URL, testPostgresUrl } from './postgres-dialect.js';
