// One built app as a real child process: started with an explicit environment, its stdout and
// stderr kept in memory (shown when something fails), ready once its /readyz answers 200, and
// stopped with SIGTERM the way an orchestrator stops it (or killed outright to play a crash).
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root (this file is e2e/src/harness/child-service.ts). */
export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildService {
  readonly name: string;
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly pid: number;
  /** Everything the process wrote so far, stdout and stderr interleaved, one entry per line. */
  output(): string[];
  /** The last `lines` lines of output under a header naming the service. */
  describe(lines?: number): string;
  /** SIGTERM, then wait for the exit (SIGKILL after `graceMs`). Safe to call twice. */
  stop(graceMs?: number): Promise<ExitInfo>;
  /**
   * Sends `signal` and waits for the exit (`kill('SIGKILL')` plays a crash: no shutdown hook
   * runs). Resolves at once with the earlier exit when the process is already gone.
   */
  kill(signal: NodeJS.Signals): Promise<ExitInfo>;
}

export interface StartServiceOptions {
  name: string;
  /** Path of the built entry point, relative to the repository root. */
  script: string;
  port: number;
  /** The whole environment of the child (the parent's is not inherited, apart from PATH). */
  env: Record<string, string>;
  /** How long to wait for /healthz; default 60 s (start-up includes migrations, and CI machines are busy). */
  readyTimeoutMs?: number;
  /**
   * What counts as started: `/readyz` answering 200 (the default: migrated and serving) or
   * `/healthz` answering 200 (the process is up, its database may still be unreachable).
   */
  readyPath?: '/readyz' | '/healthz';
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Ready, not just up: the apps answer /healthz before their database is migrated, /readyz after. */
async function healthy(url: string, path: '/readyz' | '/healthz'): Promise<boolean> {
  try {
    const res = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(1500) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * Starts `node <script>` and resolves once `GET /readyz` (or `readyPath`) answers 200; rejects with the process
 * output when it exits first or does not become healthy in time.
 *
 * @example
 * const api = await startService({ name: 'internal-api', script: 'apps/internal-api/dist/main.js', port, env });
 * await api.stop();
 */
export async function startService(options: StartServiceOptions): Promise<ChildService> {
  const { name, port } = options;
  const script = join(REPO_ROOT, options.script);
  if (!existsSync(script)) {
    throw new Error(`${options.script} is missing: build first (npx nx run-many -t build --projects=@pits/gateway,@pits/internal-api)`);
  }
  const url = `http://127.0.0.1:${port}`;
  const lines: string[] = [];
  const child = spawn(process.execPath, [script], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
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
  // 'close' comes after 'exit' once the output pipes are drained: the last lines (why it exited) are in by then.
  const drained = once(child, 'close').catch(() => undefined);
  const exited = once(child, 'exit').then(([code, signal]) => {
    running.delete(child);
    exit = { code: code as number | null, signal: signal as NodeJS.Signals | null };
    return exit;
  });

  const describe = (count = 60) => `----- ${name} (pid ${child.pid}, ${url}) last ${count} lines -----\n${lines.slice(-count).join('\n')}\n----- end of ${name} -----`;

  const stop = async (graceMs = 15_000): Promise<ExitInfo> => {
    if (exit) return exit;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    const info = await exited;
    clearTimeout(timer);
    return info;
  };

  const kill = async (signal: NodeJS.Signals): Promise<ExitInfo> => {
    if (exit) return exit;
    child.kill(signal);
    return exited;
  };

  const readyPath = options.readyPath ?? '/readyz';
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (exit) {
      await Promise.race([drained, sleep(2000)]);
      throw new Error(`${name} exited during start-up (${exit.signal ?? exit.code})\n${describe()}`);
    }
    if (await healthy(url, readyPath)) break;
    if (Date.now() > deadline) {
      await stop(2000);
      throw new Error(`${name} did not answer GET ${readyPath} with 200 within ${options.readyTimeoutMs ?? 60_000} ms\n${describe()}`);
    }
    await sleep(100);
  }

  return { name, url, pid: child.pid!, output: () => [...lines], describe, stop, kill };
}
