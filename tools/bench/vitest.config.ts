import { projectTestConfig } from '../../vitest.shared.js';

// Unit tests of the benchmarks' pure arithmetic only; the benchmarks themselves run by command.
export default projectTestConfig('bench');
