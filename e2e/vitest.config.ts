import { projectTestConfig } from '../vitest.shared.js';

export default projectTestConfig('e2e', { testTimeout: 60000, hookTimeout: 120000, fileParallelism: false });
