// `npm start` stopped as a process manager or a terminal stops it: SIGTERM, SIGINT or SIGHUP to
// the npm process alone (not to its process group, as a terminal's Ctrl-C would) ends the gateway,
// the internal API, the webhook worker and the demo receiver, and leaves no process and no port
// behind. And the seed's webhook deliveries are printed once each, by the receiver. Runs this
// checkout's `npm start` (built already: its build step is answered from the cache) on free ports,
// with its SQLite database and credentials folder in a temporary directory, so it never touches
// ./data or the README's ports; newcomer.test.ts takes the same path on a fresh clone.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './harness/child-service.js';
import { freePort, portIsFree } from './harness/free-port.js';
import { pollUntil } from './harness/poll-until.js';
import { type GroupProcess, type ShellSession, startShell } from './harness/shell-session.js';
import { userEnvironment } from './harness/user-environment.js';

const THREE_MINUTES = 180_000;

const answers = (url: string) => fetch(url).then((r) => r.ok, () => false);

/** Whether a process is still running: there, and not a zombie waiting for its parent to collect it. */
function stillRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

describe('npm start stops on a signal to npm alone, and prints each webhook delivery once', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pits-start-stop-'));
  let session: ShellSession | undefined;
  let ports: { gateway: number; internal: number; receiver: number };

  beforeAll(async () => {
    ports = { gateway: await freePort(), internal: await freePort(), receiver: await freePort() };
  });
  afterAll(async () => {
    await session?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** `npm start` until the gateway and the internal API are ready; the npm process and the rest of its group. */
  async function start(): Promise<{ npm: GroupProcess; group: GroupProcess[] }> {
    session = startShell('npm start', {
      cwd: REPO_ROOT,
      env: {
        ...userEnvironment(),
        // No Nx daemon: it would outlive the run, in a session of its own.
        NX_DAEMON: 'false',
        DATABASE_URL: join(dir, 'demo.sqlite'),
        DEMO_CREDENTIALS_DIR: join(dir, 'credentials'),
        GATEWAY_PORT: String(ports.gateway),
        INTERNAL_API_PORT: String(ports.internal),
        DEMO_WEBHOOK_PORT: String(ports.receiver),
      },
    });
    await session.waitFor(/Internal token:/, THREE_MINUTES - 60_000);
    await pollUntil('the gateway and the internal API ready', 60_000, async () => ((await answers(`http://127.0.0.1:${ports.gateway}/readyz`)) && (await answers(`http://127.0.0.1:${ports.internal}/readyz`))) || undefined, 250);
    const group = session.processes();
    const npm = group.find((p) => p.command === 'npm start');
    expect(npm, `the npm process among ${JSON.stringify(group)}`).toBeDefined();
    // npm, the script in place of its shell, and the three apps.
    for (const app of ['gateway', 'internal-api', 'webhook-worker']) expect(group.map((p) => p.command)).toContainEqual(expect.stringContaining(`apps/${app}/dist/main.js`));
    return { npm: npm!, group };
  }

  /** Sends `signal` to the npm process only; everything it started must go, without SIGKILL, and free its ports. */
  async function stopWith(signal: NodeJS.Signals, npm: GroupProcess, group: GroupProcess[]): Promise<void> {
    process.kill(npm.pid, signal);
    const gone = await session!.gone(30_000);
    const left = session!.processes();
    expect(gone, `${signal} to npm left ${JSON.stringify(left)}`).toBe(true);
    for (const p of group) expect(stillRunning(p.pid), `${p.command} (${p.pid}) after ${signal}`).toBe(false);
    for (const [name, port] of Object.entries(ports)) expect(await portIsFree(port), `the ${name} port ${port} after ${signal}`).toBe(true);
  }

  /** Runs one case; whatever happens, SIGTERM then SIGKILL to the whole group, so no case leaves processes or ports to the next. */
  async function withStart(body: (started: { npm: GroupProcess; group: GroupProcess[] }) => Promise<void>): Promise<void> {
    try {
      await body(await start());
    } catch (error) {
      console.error(`----- output of npm start (last 6000 characters) -----\n${session?.output().slice(-6000)}`);
      throw error;
    } finally {
      await session?.stop();
      session = undefined;
    }
  }

  it(
    'SIGTERM: each of the seed’s deliveries printed once, by the receiver; then nothing left',
    () => withStart(async ({ npm, group }) => {
      const output = () => session!.output();
      const [, apiKey] = /Demo API key:\s+(pk_test_[A-Za-z0-9_-]+)/.exec(output()) ?? [];
      expect(apiKey, 'a fresh database is seeded').toBeDefined();
      // Every delivery of the seed succeeded at its first attempt…
      let deliveries: { status: string; attempts: number }[] = [];
      await pollUntil(
        'every webhook delivery of the seed succeeded',
        60_000,
        async () => {
          const answer = await fetch(`http://127.0.0.1:${ports.gateway}/api/partner/v1/webhooks/deliveries?limit=100`, { headers: { Authorization: `Bearer ${apiKey}` } });
          deliveries = ((await answer.json()) as { data: { deliveries: typeof deliveries } }).data.deliveries;
          return (deliveries.length > 0 && deliveries.every((d) => d.status === 'succeeded')) || undefined;
        },
        250,
      );
      expect(deliveries.every((d) => d.attempts === 1)).toBe(true);
      // …and is printed by the receiver once, and not a second time by the worker.
      const printed = () => output().split('\n').filter((line) => line.startsWith('webhook: '));
      await pollUntil(`a webhook line for each of ${deliveries.length} deliveries`, 10_000, () => printed().length >= deliveries.length || undefined, 250);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(printed()).toHaveLength(deliveries.length);
      expect(output()).not.toContain('"msg":"webhook delivered"');

      await stopWith('SIGTERM', npm, group);
    }),
    THREE_MINUTES,
  );

  it.each(['SIGINT', 'SIGHUP'] as const)(
    '%s to npm: nothing left',
    (signal) => withStart(({ npm, group }) => stopWith(signal, npm, group)),
    THREE_MINUTES,
  );
});
