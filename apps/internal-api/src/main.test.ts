// The real entry point in a child process: a bad configuration stops it with the variable named,
// a good one serves until SIGTERM and then exits 0.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { TEST_CREDENTIALS_KEY, TEST_SERVICE_TOKEN } from './testing/test-api.js';

const MAIN = join(import.meta.dirname, 'main.ts');
const dir = mkdtempSync(join(tmpdir(), 'pits-internal-api-main-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function start(env: Record<string, string>): { child: ChildProcess; output: () => { stdout: string; stderr: string }; exited: Promise<number | null> } {
  const child = spawn(process.execPath, ['--conditions=@pits/source', '--import', 'tsx', MAIN], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => ({ stdout, stderr }), exited };
}

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('main', () => {
  it('exits 1 naming the bad variable when the configuration is invalid', async () => {
    const run = start({ CREDENTIALS_KEY: TEST_CREDENTIALS_KEY });
    expect(await run.exited).toBe(1);
    expect(run.output().stderr).toContain('INTERNAL_API_TOKEN: is required');
  }, 30_000);

  it('migrates, serves, and on SIGTERM stops gracefully with exit 0', async () => {
    const run = start({
      INTERNAL_API_TOKEN: TEST_SERVICE_TOKEN,
      CREDENTIALS_KEY: TEST_CREDENTIALS_KEY,
      INTERNAL_API_PORT: '0',
      DATABASE_URL: join(dir, 'main.db'),
    });
    const url = await waitFor(() => /"url":"(http:[^"]+)\/trpc"/.exec(run.output().stdout)?.[1], 25_000);
    expect((await fetch(`${url}/readyz`)).status).toBe(200);
    const listed = await fetch(`${url}/trpc/partners.list`, { headers: { authorization: `Bearer ${TEST_SERVICE_TOKEN}` } });
    expect(listed.status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exited).toBe(0);
    expect(run.output().stdout).toContain('"msg":"stopped"');
  }, 30_000);
});
