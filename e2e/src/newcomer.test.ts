// The newcomer's path, as a new user would take it: a fresh clone of the committed HEAD, the
// README's first command (`<!-- newcomer -->` block) in a terminal, then the README's curl lines
// (`<!-- newcomer-curl -->` block) with the API key and tenant id that command printed.
// `npm ci` compiles native modules in the fresh clone (minutes), so this runs only under CI=true or
// NEWCOMER_TEST=1.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/child-service.js';
import { portIsFree } from './harness/free-port.js';
import { readmeCommands } from './harness/readme-blocks.js';
import { type ShellSession, startShell } from './harness/shell-session.js';

const enabled = process.env.CI === 'true' || process.env.NEWCOMER_TEST === '1';
if (!enabled) console.warn('[skip] newcomer test skipped: it runs `npm ci` in a fresh clone (minutes); set NEWCOMER_TEST=1 (CI=true runs it)');

const TEN_MINUTES = 600_000;
const README_PORTS = [4000, 4001];

/** The environment of someone who just opened a terminal: this machine's, minus what the test runner and CI add for the services under test. */
function newcomerEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  const dropped = /^(VITEST|NODE_ENV$|TEST_|DATABASE_URL$|REDIS_URL$|GATEWAY_|INTERNAL_API_|CREDENTIALS_KEY$|KEY_CACHE_TTL_MS$|RATE_LIMIT_|LOG_LEVEL$|NX_)/;
  for (const [name, value] of Object.entries(process.env)) if (!dropped.test(name)) env[name] = value;
  return env;
}

/** Runs one README line in bash with the variables the newcomer set; returns its stdout. */
function runLine(line: string, cwd: string, variables: Record<string, string>): string {
  return execFileSync('bash', ['-c', line], { cwd, env: { ...newcomerEnvironment(), ...variables }, encoding: 'utf8', timeout: 30_000 });
}

describe.skipIf(!enabled)('the newcomer path of README.md on a fresh clone', () => {
  let dir: string | undefined;
  let session: ShellSession | undefined;

  afterAll(async () => {
    await session?.stop();
    if (dir === undefined) return;
    try {
      execFileSync('npx', ['nx', 'daemon', '--stop'], { cwd: join(dir, 'repo'), stdio: 'ignore', timeout: 30_000 });
    } catch {
      // no daemon was running
    }
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  it(
    'the first command starts the service and prints a key and tenant id; the curl lines answer 200 JSON with them',
    async () => {
      dir = mkdtempSync(join(tmpdir(), 'pits-newcomer-'));
      const clone = join(dir, 'repo');
      execFileSync('git', ['clone', '--quiet', REPO_ROOT, clone], { stdio: 'pipe' });
      const readme = readFileSync(join(clone, 'README.md'), 'utf8');
      const start = readmeCommands(readme, 'newcomer');
      const curls = readmeCommands(readme, 'newcomer-curl');
      expect(start.length, 'the README gives a command to run').toBeGreaterThan(0);
      expect(curls.filter((l) => l.startsWith('curl ')).length, 'the README gives curl lines').toBeGreaterThan(0);
      for (const port of README_PORTS) expect(await portIsFree(port), `port ${port} (the README's) must be free on this machine`).toBe(true);

      session = startShell(start.join('\n'), { cwd: clone, env: newcomerEnvironment() });
      try {
        const [, apiKey] = await session.waitFor(/Demo API key:\s+(pk_test_[A-Za-z0-9_-]+)/, TEN_MINUTES - 90_000);
        const [, tenantId] = await session.waitFor(/Demo tenant id:\s+([0-9a-f-]{36})/, 10_000);
        const [, invitedTenantId] = await session.waitFor(/Demo tenant to authorize:\s+([0-9a-f-]{36})/, 10_000);
        const [, locationId] = await session.waitFor(/Demo location id:\s+(\d+)/, 10_000);
        // The service is up when the gateway answers its health probe (a person would just retry curl).
        const deadline = Date.now() + 60_000;
        for (;;) {
          const up = await fetch('http://127.0.0.1:4000/healthz').then((r) => r.ok, () => false);
          if (up) break;
          if (Date.now() > deadline) throw new Error('the gateway did not come up on port 4000 within 60 s');
          await new Promise((resolve) => setTimeout(resolve, 500));
        }

        // The block assigns placeholders (API_KEY=pk_test_...); the newcomer replaces them with the printed values.
        const variables = { API_KEY: apiKey!, TENANT_ID: tenantId!, INVITED_TENANT_ID: invitedTenantId!, LOCATION_ID: locationId! };
        for (const line of curls.filter((l) => !/^(API_KEY|TENANT_ID|INVITED_TENANT_ID|LOCATION_ID)=/.test(l))) {
          const stdout = runLine(line, clone, variables);
          let body: { status?: unknown; errors?: unknown; request_id?: unknown; data?: unknown };
          try {
            body = JSON.parse(stdout) as typeof body;
          } catch {
            throw new Error(`\`${line}\` did not print JSON: ${stdout.slice(0, 500)}`);
          }
          // Envelope B (tenants) or A (products, stock counts): a success either way, never an error envelope.
          expect(body, `${line}\n${stdout.slice(0, 500)}`).toMatchObject({ errors: null });
          expect([200, 'ok'], `${line}\n${stdout.slice(0, 500)}`).toContain(body.status);
          expect(body.request_id).toMatch(/^[0-9a-f-]{36}$/);
        }
        // The install says nothing about the project: every dependency accepts this Node (no
        // EBADENGINE) and every install script is allowed or denied on purpose in allowScripts.
        expect(session.output(), 'npm ci on the fresh clone').not.toMatch(/EBADENGINE|install-scripts|allowScripts/);
      } catch (error) {
        console.error(`----- output of \`${start.join(' ; ')}\` (last 8000 characters) -----\n${session.output().slice(-8000)}`);
        throw error;
      }

      const { forced } = await session.stop();
      expect(forced, 'every process of `npm start` exits on SIGTERM to its process group, without SIGKILL').toBe(false);
      expect(await portIsFree(4000), 'SIGTERM to the process group stopped the gateway').toBe(true);
      expect(await portIsFree(4001), 'SIGTERM to the process group stopped the internal API').toBe(true);
    },
    TEN_MINUTES,
  );
});
