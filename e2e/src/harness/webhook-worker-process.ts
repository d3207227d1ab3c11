// The webhook delivery worker (apps/webhook-worker/dist/main.js) as a real child process (run by child-process.ts).
// It serves no HTTP, so it is ready once it logs "webhook worker started"; it can be stopped the
// way an orchestrator stops it (SIGTERM) or killed outright (SIGKILL) to play a crash.
import { type ExitInfo, spawnChild } from './child-process.js';
import { pollUntil } from './poll-until.js';

const SCRIPT = 'apps/webhook-worker/dist/main.js';

export interface WorkerProcessOptions {
  databaseUrl: string;
  credentialsKey: string;
  name?: string;
  /** WEBHOOK_POLL_MS, WEBHOOK_TIMEOUT_MS, WEBHOOK_LEASE_MS, ...; they win over the defaults. */
  env?: Record<string, string>;
}

export interface WorkerProcess {
  readonly name: string;
  readonly pid: number;
  output(): string[];
  /** The last `lines` lines of output under a header naming the worker. */
  describe(lines?: number): string;
  /** Sends `signal` and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<ExitInfo>;
  /** SIGTERM (the worker finishes its round), SIGKILL after `graceMs`. Safe to call twice. */
  stop(graceMs?: number): Promise<ExitInfo>;
}

/**
 * Defaults chosen for tests: a 50 ms poll. Resolves once the worker logged its start.
 *
 * @example
 * const worker = await startWorkerProcess({ databaseUrl: stack.database.url, credentialsKey: stack.credentialsKey, env: { WEBHOOK_LEASE_MS: '2000' } });
 * await worker.kill('SIGKILL');
 */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const name = options.name ?? 'webhook-worker';
  const child = spawnChild({
    name,
    script: SCRIPT,
    builtBy: '@pits/gateway,@pits/internal-api,@pits/webhook-worker',
    env: {
      DATABASE_URL: options.databaseUrl,
      CREDENTIALS_KEY: options.credentialsKey,
      LOG_LEVEL: 'info',
      WEBHOOK_POLL_MS: '50',
      ...options.env,
    },
    stopGraceMs: 10_000,
  });
  const { describe, stop } = child;

  try {
    await pollUntil(`${name} to log its start`, 30_000, () => {
      const exit = child.exit();
      if (exit) throw new Error(`${name} exited during start-up (${exit.signal ?? exit.code})\n${describe()}`);
      return child.output().some((l) => l.includes('webhook worker started')) ? true : undefined;
    }, 50);
  } catch (error) {
    await stop(2000);
    throw error instanceof Error && error.message.includes('exited') ? error : new Error(`${(error as Error).message}\n${describe()}`);
  }
  return { name, pid: child.pid, output: child.output, describe, kill: child.kill, stop };
}
