// One vitest setup for every project: tests resolve workspace packages to their TypeScript sources
// (the "@pits/source" export condition), and each run leaves a JSON report for tools/scripts/test-summary.mjs.
import { defaultServerConditions } from 'vite';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

type TestOptions = NonNullable<ViteUserConfig['test']>;

export function projectTestConfig(name: string, test: TestOptions = {}): ViteUserConfig {
  const conditions = ['@pits/source', ...defaultServerConditions];
  // Vitest hands the SSR conditions to Node (`--conditions`) for the packages it leaves to Node.
  // "module" is a bundlers' condition: under it Node would load builds meant for bundlers (the
  // extension-less ESM of @opentelemetry/api, which prom-client requires) and fail.
  const nodeConditions = conditions.filter((condition) => condition !== 'module');
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions: nodeConditions, externalConditions: ['@pits/source'] } },
    test: {
      name,
      include: ['src/**/*.test.ts'],
      environment: 'node',
      reporters: ['default', ['json', { outputFile: `${import.meta.dirname}/reports/vitest/${name}.json` }]],
      ...test,
    },
  });
}
