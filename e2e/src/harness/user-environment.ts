// The environment of someone who just opened a terminal on this machine: what the test runner, npm
// and CI set for the services under test is left out, so a README command or `npm start` run by a
// test behaves as it would for a user.

/** What a fresh terminal would not have: the runner's, npm's and the services' own settings. */
const SET_BY_THE_RUN = /^(VITEST|NODE_ENV$|TEST_|DATABASE_URL$|REDIS_URL$|GATEWAY_|INTERNAL_API_|CREDENTIALS_KEY$|KEY_CACHE_TTL_MS$|RATE_LIMIT_|DOCS_SANDBOX_(TENANT_ID|IDS)$|DEMO_|LOG_LEVEL$|NX_|npm_)/;

/**
 * This process's environment without what the run set.
 *
 * @example startShell('npm start', { cwd, env: { ...userEnvironment(), GATEWAY_PORT: String(port) } });
 */
export function userEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!SET_BY_THE_RUN.test(name)) env[name] = value;
  return env;
}
