// The published internal API client as another team gets it: `npm pack` of @pits/internal-api-client
// (its prepack builds it), the tarball installed with its peers into a throwaway project outside the
// workspace, a strict TypeScript script compiled against it with tsc and run with node against the
// real internal API. The package README's examples compile there too, and calls with a wrong input
// type do not. This checks packaging, not storage: one dialect (SQLite) is enough.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/child-service.js';
import { type E2eDatabase, createE2eDatabase } from './harness/e2e-database.js';
import { showOutputOnFailure } from './harness/failure-output.js';
import { readmeBlock } from './harness/readme-blocks.js';
import { type InternalApiProcess, startInternalApiProcess } from './harness/start-internal-api.js';

const PACKAGE = '@pits/internal-api-client';
const PACKAGE_DIR = join(REPO_ROOT, 'packages', 'internal-api-client');
const README_EXAMPLES = ['client-example', 'client-errors', 'client-retry'];

const run = promisify(execFile);
const workspaceRequire = createRequire(join(REPO_ROOT, 'package.json'));
/** The same versions as the workspace's, so npm finds them in its cache. */
const TYPESCRIPT_VERSION = (workspaceRequire('typescript/package.json') as { version: string }).version;
const TYPES_NODE_VERSION = (workspaceRequire('@types/node/package.json') as { version: string }).version;

/**
 * This process's environment without what npm adds for the scripts it runs (`npm_config_local_prefix`
 * and the like would point a child npm at the workspace instead of the throwaway project).
 */
function plainEnvironment(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !/^(npm_|INIT_CWD$)/i.test(name)));
}

/** Runs a command to completion; a failure carries its output. */
async function sh(command: string, args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<string> {
  try {
    const { stdout } = await run(command, args, { cwd: options.cwd, env: options.env ?? plainEnvironment(), timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (error) {
    const e = error as { message: string; stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(' ')} failed in ${options.cwd}: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`);
  }
}

/** tsc of the throwaway project; resolves with its exit code and what it printed. */
async function typeCheck(project: string, tsconfig: string): Promise<{ code: number; output: string }> {
  const tsc = join(project, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    const { stdout } = await run(process.execPath, [tsc, '-p', tsconfig], { cwd: project, env: plainEnvironment(), timeout: 120_000 });
    return { code: 0, output: stdout };
  } catch (error) {
    const e = error as { code?: number | string; stdout?: string; stderr?: string };
    if (typeof e.code !== 'number') throw error;
    return { code: e.code, output: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

/** Strict, as a careful consumer compiles, and checking the package's declarations too (no skipLibCheck). */
function tsconfig(include: string[], outDir?: string): string {
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    types: ['node'],
    ...(outDir === undefined ? { noEmit: true } : { outDir, rootDir: 'src' }),
  };
  return JSON.stringify({ compilerOptions, include }, null, 2);
}

/** Calls the internal API the way another team would: create, list, and read a refusal. */
const CONSUMER_SCRIPT = `import { type InternalApiOutputs, createInternalClient, isInternalApiError } from '@pits/internal-api-client';

const url = process.env.INTERNAL_API_URL;
const token = process.env.INTERNAL_API_TOKEN;
if (url === undefined || token === undefined) throw new Error('INTERNAL_API_URL and INTERNAL_API_TOKEN are required');
const api = createInternalClient(url, token);

const partner: InternalApiOutputs['partners']['create'] = await api.partners.create.mutate({ name: 'Consumer Team', email: 'consumer@example.com', tier: 'medium' });
const tenant = await api.tenants.create.mutate({ name: 'Toko Konsumen' });
const { tenants, pagination } = await api.tenants.list.query({ page: 1, perPage: 100 });

async function refusalOf(call: Promise<unknown>): Promise<{ kind: string; field: string; httpStatus: number }> {
  try {
    await call;
  } catch (error) {
    if (isInternalApiError(error) && error.data) return { kind: error.data.kind, field: error.data.field, httpStatus: error.data.httpStatus };
    throw error;
  }
  throw new Error('expected a refusal');
}
const badEmail = await refusalOf(api.partners.create.mutate({ name: 'Bad', email: 'not an email', tier: 'small' }));
const badToken = await refusalOf(createInternalClient(url, 'not-the-token').partners.list.query());

console.log(JSON.stringify({
  partner: { id: partner.id, name: partner.name, tier: partner.tier },
  tenantListed: tenants.some((t) => t.id === tenant.id && t.name === 'Toko Konsumen'),
  total: pagination.total,
  badEmail,
  badToken,
}));
`;

/** Each line a mistake the compiler must catch, with the error it must report there. */
const WRONG_CALLS: Array<{ line: string; error: RegExp }> = [
  { line: `await api.partners.create.mutate({ name: 123, email: 'dev@acme.example', tier: 'small' });`, error: /error TS2322: Type 'number' is not assignable to type 'string'/ },
  { line: `await api.partners.create.mutate({ name: 'Acme', email: 'dev@acme.example', tier: 'huge' });`, error: /error TS2322: Type '"huge"' is not assignable to type '"small" \| "medium" \| "large"'/ },
  { line: `await api.tenants.list.query({ perPage: '20' });`, error: /error TS2322: Type 'string' is not assignable to type 'number'/ },
];

describe('the published internal API client, installed outside the workspace', () => {
  let dir: string | undefined;
  let consumer: string;
  let tarball: string;
  let database: E2eDatabase | undefined;
  let internal: InternalApiProcess | undefined;
  const token = randomBytes(24).toString('base64url');

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pits-client-package-'));
    await sh('npm', ['pack', '--workspace', PACKAGE, '--pack-destination', dir], { cwd: REPO_ROOT });
    const packed = readdirSync(dir).filter((name) => name.endsWith('.tgz'));
    expect(packed, 'npm pack writes one tarball').toHaveLength(1);
    tarball = join(dir, packed[0]!);

    consumer = join(dir, 'consumer');
    mkdirSync(join(consumer, 'src'), { recursive: true });
    writeFileSync(join(consumer, 'package.json'), JSON.stringify({ name: 'client-consumer', private: true, type: 'module' }, null, 2));
    await sh(
      'npm',
      ['install', tarball, `typescript@${TYPESCRIPT_VERSION}`, `@types/node@${TYPES_NODE_VERSION}`, '--no-audit', '--no-fund', '--prefer-offline'],
      { cwd: consumer, timeoutMs: 180_000 },
    );

    database = await createE2eDatabase('sqlite');
    internal = await startInternalApiProcess({ databaseUrl: database.url, credentialsKey: randomBytes(32).toString('hex'), token });
  }, 300_000);

  afterAll(async () => {
    await internal?.service.stop();
    await database?.cleanup();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  showOutputOnFailure(() => [internal?.service]);

  it('the tarball holds the built dist/ and the README, and depends on public packages only', async () => {
    const entries = (await sh('tar', ['tzf', tarball], { cwd: dir! })).split('\n').filter((line) => line !== '');
    expect(entries.sort()).toEqual(['package/README.md', 'package/dist/index.d.ts', 'package/dist/index.js', 'package/package.json']);

    const manifest = JSON.parse(await sh('tar', ['-xzOf', tarball, 'package/package.json'], { cwd: dir! })) as Record<string, unknown>;
    expect(manifest.private, 'publishable').toBeUndefined();
    expect(manifest.type).toBe('module');
    expect(manifest.exports).toEqual({ '.': { types: './dist/index.d.ts', default: './dist/index.js' } });
    expect(manifest.dependencies ?? {}).toEqual({});
    expect(Object.keys(manifest.peerDependencies as object).sort()).toEqual(['@trpc/client', '@trpc/server']);

    // What the consumer's install brought: the package and public packages, no workspace package.
    expect(readdirSync(join(consumer, 'node_modules', '@pits'))).toEqual(['internal-api-client']);
    expect(readdirSync(join(consumer, 'node_modules', '@trpc')).sort()).toEqual(['client', 'server']);
  });

  it('a strict script type-checks against the package alone and runs against the real internal API', async () => {
    writeFileSync(join(consumer, 'src', 'main.ts'), CONSUMER_SCRIPT);
    writeFileSync(join(consumer, 'tsconfig.json'), tsconfig(['src/main.ts'], 'out'));
    const compiled = await typeCheck(consumer, 'tsconfig.json');
    expect(compiled.output, 'tsc output').toBe('');
    expect(compiled.code).toBe(0);

    const stdout = await sh(process.execPath, [join(consumer, 'out', 'main.js')], {
      cwd: consumer,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', INTERNAL_API_URL: internal!.service.url, INTERNAL_API_TOKEN: token },
      timeoutMs: 30_000,
    });
    const result = JSON.parse(stdout.trim()) as {
      partner: { id: number; name: string; tier: string };
      tenantListed: boolean;
      total: number;
      badEmail: unknown;
      badToken: unknown;
    };
    expect(result.partner).toEqual({ id: expect.any(Number), name: 'Consumer Team', tier: 'medium' });
    expect(result.tenantListed).toBe(true);
    expect(result.total).toBeGreaterThanOrEqual(1);
    expect(result.badEmail).toEqual({ kind: 'VALIDATION_ERROR', field: 'email', httpStatus: 400 });
    expect(result.badToken).toEqual({ kind: 'UNAUTHORIZED', field: 'Authorization', httpStatus: 401 });

    // The script's calls reached the service: the monorepo's own client reads the partner back.
    const stored = await internal!.client.partners.byId.query({ id: result.partner.id });
    expect(stored).toMatchObject({ name: 'Consumer Team', email: 'consumer@example.com', tier: 'medium' });
  });

  it("the package README's examples type-check against the package", async () => {
    const readme = readFileSync(join(PACKAGE_DIR, 'README.md'), 'utf8');
    for (const name of README_EXAMPLES) writeFileSync(join(consumer, 'src', `readme-${name}.ts`), readmeBlock(readme, name));
    writeFileSync(join(consumer, 'tsconfig.readme.json'), tsconfig(README_EXAMPLES.map((name) => `src/readme-${name}.ts`)));
    const checked = await typeCheck(consumer, 'tsconfig.readme.json');
    expect(checked.output, 'tsc output').toBe('');
    expect(checked.code).toBe(0);
  });

  it('a call with a wrong input type fails the type check, each at its own line', async () => {
    const header = [`import { createInternalClient } from '${PACKAGE}';`, `const api = createInternalClient('http://127.0.0.1:4001', 'token');`];
    writeFileSync(join(consumer, 'src', 'wrong.ts'), [...header, ...WRONG_CALLS.map((c) => c.line), ''].join('\n'));
    writeFileSync(join(consumer, 'tsconfig.wrong.json'), tsconfig(['src/wrong.ts']));
    const checked = await typeCheck(consumer, 'tsconfig.wrong.json');
    expect(checked.code, checked.output).not.toBe(0);
    const errors = checked.output.split('\n').filter((line) => line.includes('error TS'));
    expect(errors, checked.output).toHaveLength(WRONG_CALLS.length);
    WRONG_CALLS.forEach((call, i) => {
      const line = header.length + i + 1;
      const reported = errors.find((e) => e.startsWith(`src/wrong.ts(${line},`));
      expect(reported, `line ${line}: ${call.line}\n${checked.output}`).toMatch(call.error);
    });
  });
});
