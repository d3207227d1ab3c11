import { projectTestConfig } from '../../vitest.shared.js';

// The wire contract is what partners code against: its line coverage must stay at 95% or more.
export default projectTestConfig('contract', {
  coverage: {
    enabled: true,
    provider: 'v8',
    include: ['src/**/*.ts'],
    exclude: ['src/**/*.test.ts', 'src/index.ts'],
    reporter: ['text-summary', 'text', 'json-summary'],
    reportsDirectory: 'coverage',
    thresholds: { lines: 95 },
  },
});
