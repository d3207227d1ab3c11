// Lint rules for the whole workspace, including the module boundaries: the domain stays pure,
// the wire contract builds on the domain alone, persistence knows no transport, apps never import
// each other, nobody reaches into another package's src/.
import tseslint from 'typescript-eslint';

const IO_PACKAGES = ['kysely', 'pg', 'better-sqlite3', 'koa', '@koa/*', '@trpc/*', 'ioredis', 'pino', 'node:fs', 'node:net', 'node:http', 'node:child_process'];
const APPS = ['@pits/gateway', '@pits/gateway/*', '@pits/internal-api', '@pits/internal-api/*', '@pits/importer', '@pits/importer/*', '@pits/webhook-worker', '@pits/webhook-worker/*'];
/** Every app but `name`: what an app may not import. */
const otherApps = (name) => APPS.filter((pattern) => pattern !== name && pattern !== `${name}/*`);
const DEEP = ['@pits/*/src/*', '**/packages/*/src/**', '**/apps/*/src/**'];
const CLIENT_ONLY = 'packages/internal-api-client re-exports @pits/internal-api/client and nothing else: its users have no server code.';

const SPREAD_THEN_MORE =
  'On Node 20 a literal that spreads an object and then sets more properties (`{ ...a, b }`, `{ ...a, ...b }`) makes a new hidden class for every object it builds: about 1.5 µs each and old-space garbage on every request. Spread last (`{ b, ...a }`) when `a` should win, or use withFields(a, { b }) from @pits/domain (docs/benchmarks.md#spread-then-extended-objects).';

const restrict = (groups, message) => ({
  'no-restricted-imports': ['error', { patterns: [{ group: groups, message }] }],
});

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/coverage/**', 'reports/**', 'data/**', '.nx/**'] },
  ...tseslint.configs.strict,
  {
    rules: {
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      ...restrict(DEEP, 'Import a package through its public surface (package.json exports), never its src/.'),
    },
  },
  {
    files: ['packages/domain/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: restrict([...IO_PACKAGES, 'zod', '@pits/*', ...DEEP], 'packages/domain is pure: no I/O libraries, no other workspace package, no wire schemas (zod: @pits/contract).'),
  },
  {
    files: ['packages/contract/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: restrict([...IO_PACKAGES, '@pits/*', '!@pits/domain', ...DEEP], 'packages/contract describes the wire: no I/O libraries, and no workspace package but @pits/domain.'),
  },
  {
    files: ['packages/service-runtime/src/**/*.ts'],
    rules: restrict(['koa', '@koa/*', '@trpc/*', '@pits/persistence', '@pits/persistence/*', ...APPS, ...DEEP], 'packages/service-runtime serves every app and knows none of them, nor the database: the apps pass in what it needs.'),
  },
  {
    files: ['packages/http-edge/src/**/*.ts'],
    rules: restrict(['@koa/*', '@trpc/*', '@pits/persistence', '@pits/persistence/*', ...APPS, ...DEEP], 'packages/http-edge is the edge both HTTP apps share: Koa middleware that knows no router, no tRPC, no database and no app; the apps pass in what it needs.'),
  },
  {
    files: ['packages/persistence/src/**/*.ts'],
    rules: restrict(['koa', '@koa/*', '@trpc/*', ...APPS, ...DEEP], 'packages/persistence knows no transport and no app.'),
  },
  {
    files: ['apps/gateway/src/**/*.ts'],
    rules: restrict([...otherApps('@pits/gateway'), ...DEEP], 'Apps never import each other.'),
  },
  {
    files: ['apps/internal-api/src/**/*.ts'],
    rules: restrict([...otherApps('@pits/internal-api'), ...DEEP], 'Apps never import each other.'),
  },
  {
    files: ['apps/importer/src/**/*.ts'],
    rules: restrict([...otherApps('@pits/importer'), ...DEEP], 'Apps never import each other.'),
  },
  {
    files: ['apps/webhook-worker/src/**/*.ts'],
    rules: restrict([...otherApps('@pits/webhook-worker'), ...DEEP], 'Apps never import each other.'),
  },
  {
    // Published to other repositories: it may take the client subpath only, never server code.
    files: ['packages/internal-api-client/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [{ name: '@pits/internal-api', message: CLIENT_ONLY }],
          patterns: [{ group: [...IO_PACKAGES.filter((name) => name !== '@trpc/*'), 'zod', '@pits/domain', '@pits/contract', '@pits/persistence', '@pits/service-runtime', '@pits/gateway', '@pits/importer', '@pits/webhook-worker', ...DEEP], message: CLIENT_ONLY }],
        },
      ],
    },
  },
  {
    // The request path of the benchmark's cases (docs/benchmarks.md#spread-then-extended-objects);
    // the other use cases, the wire schemas (built once) and the start-up code are not held to it yet.
    files: [
      'packages/domain/src/**/*.ts',
      'packages/http-edge/src/**/*.ts',
      'apps/gateway/src/http/**/*.ts',
      'apps/gateway/src/routes/{adjustment,area,inbound,mount,reservation,stock,transfer}-routes.ts',
      'packages/persistence/src/execution/**/*.ts',
      'packages/persistence/src/transaction.ts',
      'packages/persistence/src/dialects/{sqlite,postgres}-runner.ts',
      'packages/persistence/src/repositories/{adjustment,document-sequence,event-outbox,list-count,location,lot,product,reservation,stock,stock-read}-repository.ts',
      'packages/persistence/src/use-cases/{adjustment,reservation}-operations.ts',
      'packages/persistence/src/use-cases/{catalogue-checks,lot-effects,stock-writes}.ts',
    ],
    ignores: ['**/*.test.ts', '**/testing/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        { selector: 'ObjectExpression:has(> SpreadElement ~ :matches(Property, SpreadElement))', message: SPREAD_THEN_MORE },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'e2e/**/*.ts', 'tools/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off', '@typescript-eslint/no-dynamic-delete': 'off' },
  },
);
