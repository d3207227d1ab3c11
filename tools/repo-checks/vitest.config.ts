import { projectTestConfig } from '../../vitest.shared.js';

// Static checks over the whole repository's sources; no process, database or network.
export default projectTestConfig('repo-checks');
