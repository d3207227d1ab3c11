// The webhook delivery worker (apps/webhook-worker/dist/main.js) as a real child process.
// It serves no HTTP, so it is ready once it logs "webhook worker started"; it can be stopped the
// way an orchestrator stops it (SIGTERM) or killed outright (SIGKILL) to play a crash.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { type ExitInfo, REPO_ROOT } from './child-service.js';
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

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Defaults chosen for tests: a 50 ms poll. Resolves once the worker logged its start.
 *
 * @example
 * const worker = await startWorkerProcess({ databaseUrl: stack.database.url, credentialsKey: stack.credentialsKey, env: { WEBHOOK_LEASE_MS: '2000' } });
 * await worker.kill('SIGKILL');
 */
export async function startWorkerProcess(options: WorkerProcessOptions): Promise<WorkerProcess> {
  const name = options.name ?? 'webhook-worker';
  const script = join(REPO_ROOT, SCRIPT);
  if (!existsSync(script)) throw new Error(`${SCRIPT} is missing: build first (npx nx run-many -t build --projects=@pits/gateway,@pits/internal-api,@pits/webhook-worker)`);
  const child = spawn(process.execPath, [script], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      DATABASE_URL: options.databaseUrl,
      CREDENTIALS_KEY: options.credentialsKey,
      LOG_LEVEL: 'info',
      WEBHOOK_POLL_MS: '50',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const lines: string[] = [];
  const collect = (stream: NodeJS.ReadableStream, tag: string) => {
    let partial = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) lines.push(`${tag} ${line}`);
    });
    stream.on('end', () => {
      if (partial !== '') lines.push(`${tag} ${partial}`);
    });
  };
  collect(child.stdout!, '[out]');
  collect(child.stderr!, '[err]');

  let exit: ExitInfo | undefined;
  const exited = once(child, 'exit').then(([code, signal]) => {
    running.delete(child);
    exit = { code: code as number | null, signal: signal as NodeJS.Signals | null };
    return exit;
  });
  const describe = (count = 60) => `----- ${name} (pid ${child.pid}) last ${count} lines -----\n${lines.slice(-count).join('\n')}\n----- end of ${name} -----`;
  const kill = async (signal: NodeJS.Signals) => {
    if (exit) return exit;
    child.kill(signal);
    return exited;
  };
  const stop = async (graceMs = 10_000) => {
    if (exit) return exit;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const info = await exited;
    clearTimeout(timer);
    return info;
  };

  try {
    await pollUntil(`${name} to log its start`, 30_000, () => {
      if (exit) throw new Error(`${name} exited during start-up (${exit.signal ?? exit.code})\n${describe()}`);
      return lines.some((l) => l.includes('webhook worker started')) ? true : undefined;
    }, 50);
  } catch (error) {
    await stop(2000);
    throw error instanceof Error && error.message.includes('exited') ? error : new Error(`${(error as Error).message}\n${describe()}`);
  }
  return { name, pid: child.pid!, output: () => [...lines], describe, kill, stop };
}
