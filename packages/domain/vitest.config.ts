import { projectTestConfig } from '../../vitest.shared.js';

// The domain is the product's rules: its line coverage must stay at 95% or more.
export default projectTestConfig('domain', {
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
