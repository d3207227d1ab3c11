import { projectTestConfig } from '../../vitest.shared.js';

// Static checks over the whole repository's sources; no process, database or network. A check
// reads every file, so it takes what the machine gives it: the timeout only stops a hung run.
export default projectTestConfig('repo-checks', { testTimeout: 120_000 });
