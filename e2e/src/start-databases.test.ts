// `npm start` on one database, then another, then back: each prints the demo key of the database
// it started on, and that key, the tenant id, the internal API token it prints and the reference's
// pre-filled X-Tenant-Id all answer there. Runs tools/scripts/start.mjs of this checkout (the fresh
// clone and its `npm ci` are newcomer.test.ts's), on free ports and with the credentials folder in a
// temporary directory, so it never touches ./data or the README's ports.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/child-service.js';
import { type E2eDatabase, createE2eDatabase, e2eDialects } from './harness/e2e-database.js';
import { freePort } from './harness/free-port.js';
import { readmeCommands } from './harness/readme-blocks.js';
import { type ShellSession, startShell } from './harness/shell-session.js';
import { userEnvironment } from './harness/user-environment.js';

const dialects = await e2eDialects();
const FIVE_MINUTES = 300_000;

interface Started {
  apiKey: string;
  tenantId: string;
  output: string;
}

describe.runIf(dialects.length === 2)('npm start on SQLite and PostgreSQL in turn', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pits-start-'));
  const credentials = join(dir, 'credentials');
  const databases: Partial<Record<'sqlite' | 'postgres', E2eDatabase>> = {};
  let session: ShellSession | undefined;
  let ports: { gateway: number; internal: number; receiver: number };

  beforeAll(async () => {
    databases.sqlite = await createE2eDatabase('sqlite');
    databases.postgres = await createE2eDatabase('postgres');
    ports = { gateway: await freePort(), internal: await freePort(), receiver: await freePort() };
  });
  afterAll(async () => {
    await session?.stop();
    await databases.sqlite?.cleanup();
    await databases.postgres?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** `npm start` on one database until its services answer; checks what it printed, then stops it. */
  async function startOn(dialect: 'sqlite' | 'postgres', whileUp: () => void = () => undefined): Promise<Started> {
    const env = {
      ...userEnvironment(),
      DATABASE_URL: databases[dialect]!.url,
      GATEWAY_PORT: String(ports.gateway),
      INTERNAL_API_PORT: String(ports.internal),
      DEMO_WEBHOOK_PORT: String(ports.receiver),
      DEMO_CREDENTIALS_DIR: credentials,
    };
    session = startShell('node tools/scripts/start.mjs', { cwd: REPO_ROOT, env });
    try {
      const [, apiKey] = await session.waitFor(/Demo API key:\s+(pk_test_[A-Za-z0-9_-]+)/, FIVE_MINUTES - 60_000);
      const [, tenantId] = await session.waitFor(/Demo tenant id:\s+([0-9a-f-]{36})/, 10_000);
      const [, internalUrl] = await session.waitFor(/Internal API:\s+(http:\/\/\S+\/trpc)/, 10_000);
      const [, token] = await session.waitFor(/Internal token:\s+(\S+)/, 10_000);
      const gateway = `http://127.0.0.1:${ports.gateway}`;
      const deadline = Date.now() + 60_000;
      while (!(await fetch(`${internalUrl!.replace(/\/trpc$/, '')}/readyz`).then((r) => r.ok, () => false)) || !(await fetch(`${gateway}/readyz`).then((r) => r.ok, () => false))) {
        if (Date.now() > deadline) throw new Error('the gateway and the internal API were not ready within 60 s');
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      // The printed key and tenant answer on this database.
      const locations = await fetch(`${gateway}/api/partner/v1/tenants/locations`, { headers: { Authorization: `Bearer ${apiKey}`, 'X-Tenant-Id': tenantId! } });
      expect(locations.status, `${dialect}: the printed key and tenant id`).toBe(200);
      // The printed internal API URL and token answer, as the printed curl line calls them.
      expect(internalUrl).toBe(`http://127.0.0.1:${ports.internal}/trpc`);
      const partners = await fetch(`${internalUrl}/partners.list`, { headers: { Authorization: `Bearer ${token}` } });
      expect(partners.status, `${dialect}: the printed internal token`).toBe(200);
      expect(session.output()).toContain(`curl -s ${internalUrl}/partners.list -H "Authorization: Bearer ${token}"`);
      // The reference pre-fills the sandbox's tenant, and Getting started shows this port.
      const document = (await (await fetch(`${gateway}/openapi.json`)).json()) as { info: { description: string }; paths: Record<string, Record<string, { parameters?: { name: string; example?: unknown }[] }>> };
      expect(document.paths['/api/partner/v1/tenants/locations']!.get!.parameters!.find((p) => p.name === 'X-Tenant-Id')!.example).toBe(tenantId);
      expect(document.info.description).toContain(`curl -s ${gateway}/api/partner/v1/tenants `);
      whileUp();
      return { apiKey: apiKey!, tenantId: tenantId!, output: session.output() };
    } catch (error) {
      console.error(`----- output of npm start on ${dialect} (last 6000 characters) -----\n${session.output().slice(-6000)}`);
      throw error;
    } finally {
      const { forced } = await session.stop();
      session = undefined;
      expect(forced, 'npm start stops on SIGTERM').toBe(false);
    }
  }

  it(
    'prints the key of the database it starts on, each time, and it works there',
    async () => {
      const sqlite = await startOn('sqlite', () => {
        // The README's internal API lines, as written but for this test's port, with the token npm start printed.
        const lines = readmeCommands(readFileSync(join(REPO_ROOT, 'README.md'), 'utf8'), 'internal-api-curl');
        expect(lines.length).toBeGreaterThan(0);
        for (const line of lines) {
          expect(line).toContain('Bearer demo-only-internal-token-change-me');
          // The port is replaced by this test's: a README line on another address would go elsewhere unnoticed.
          expect(line).toContain('127.0.0.1:4001');
          const stdout = execFileSync('bash', ['-c', line.replaceAll('127.0.0.1:4001', `127.0.0.1:${ports.internal}`)], { encoding: 'utf8', timeout: 30_000 });
          expect(JSON.parse(stdout), `${line}\n${stdout}`).toHaveProperty('result.data');
        }
      });
      expect(sqlite.output).toContain('start: seeded demo data');
      expect(sqlite.output).toContain('Internal token: demo-only-internal-token-change-me');
      const postgres = await startOn('postgres');
      expect(postgres.output).toContain('start: seeded demo data');
      expect(postgres.apiKey).not.toBe(sqlite.apiKey);
      // Back to each: its own key again, not the last run's, and not seeded a second time.
      const sqliteAgain = await startOn('sqlite');
      expect(sqliteAgain).toMatchObject({ apiKey: sqlite.apiKey, tenantId: sqlite.tenantId });
      expect(sqliteAgain.output).not.toContain('seeded demo data');
      const postgresAgain = await startOn('postgres');
      expect(postgresAgain).toMatchObject({ apiKey: postgres.apiKey, tenantId: postgres.tenantId });
      // One file per database, and no password in any of them.
      const files = readdirSync(credentials).sort();
      expect(files).toEqual([expect.stringMatching(/^postgres-[0-9a-f]{12}\.json$/), expect.stringMatching(/^sqlite-[0-9a-f]{12}\.json$/)]);
      for (const file of files) expect((JSON.parse(readFileSync(join(credentials, file), 'utf8')) as { database: string }).database).not.toMatch(/:[^/@]*@/);

      // Credentials that this database does not hold (another database's, here) are never printed.
      copyFileSync(join(credentials, files[1]!), join(credentials, files[0]!));
      session = startShell('node tools/scripts/start.mjs', {
        cwd: REPO_ROOT,
        env: { ...userEnvironment(), DATABASE_URL: databases.postgres!.url, GATEWAY_PORT: String(ports.gateway), INTERNAL_API_PORT: String(ports.internal), DEMO_WEBHOOK_PORT: String(ports.receiver), DEMO_CREDENTIALS_DIR: credentials },
      });
      await session.waitFor(/Internal token:/, 120_000);
      const output = session.output();
      await session.stop();
      session = undefined;
      expect(output).toContain('start: the saved demo credentials do not work in');
      expect(output).not.toContain(sqlite.apiKey);
      expect(output).not.toContain('Demo API key');
    },
    4 * FIVE_MINUTES,
  );
});
