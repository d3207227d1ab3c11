// One vitest setup for every project: tests resolve workspace packages to their TypeScript sources
// (the "@pits/source" export condition), and each run leaves a JSON report for tools/scripts/test-summary.mjs.
import { defaultServerConditions } from 'vite';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

type TestOptions = NonNullable<ViteUserConfig['test']>;

export function projectTestConfig(name: string, test: TestOptions = {}): ViteUserConfig {
  const conditions = ['@pits/source', ...defaultServerConditions];
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions, externalConditions: ['@pits/source'] } },
    test: {
      name,
      include: ['src/**/*.test.ts'],
      environment: 'node',
      reporters: ['default', ['json', { outputFile: `${import.meta.dirname}/reports/vitest/${name}.json` }]],
      ...test,
    },
  });
}
