// A built app run as a real child process, the one way the harness runs them (an HTTP service in
// child-service.ts, the webhook worker in webhook-worker-process.ts): started with an explicit
// environment, its stdout and stderr kept in memory (shown when something fails), stopped with
// SIGTERM the way an orchestrator stops it (or killed outright to play a crash), and killed when
// the test process exits. What counts as started is the caller's to decide.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root (this file is e2e/src/harness/child-process.ts). */
export const REPO_ROOT = join(import.meta.dirname, '..', '..', '..');

export interface ExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnOptions {
  /** Names the process in `describe` and in errors. */
  name: string;
  /** Path of the built entry point, relative to the repository root. */
  script: string;
  /** The Nx projects whose build writes `script`, for the error when it is missing. */
  builtBy: string;
  /** The whole environment of the child (the parent's is not inherited, apart from PATH). */
  env: Record<string, string>;
  /** Shown after the pid in `describe`'s header (e.g. the service's URL). */
  where?: string;
  /** `stop`'s default wait between SIGTERM and SIGKILL. */
  stopGraceMs: number;
}

export interface SpawnedChild {
  readonly pid: number;
  /** How it exited, or undefined while it runs. */
  readonly exit: () => ExitInfo | undefined;
  /** Resolves when it has exited; the last lines of output may still be on their way (see `drained`). */
  readonly exited: Promise<ExitInfo>;
  /** Resolves once it has exited and its output pipes are drained: the last lines (why it exited) are in. */
  readonly drained: Promise<unknown>;
  /** Everything the process wrote so far, stdout and stderr interleaved, one entry per line. */
  readonly output: () => string[];
  /** The last `lines` lines of output under a header naming the process. */
  readonly describe: (lines?: number) => string;
  /** SIGTERM, then wait for the exit (SIGKILL after `graceMs`, by default the spawn's `stopGraceMs`). Safe to call twice. */
  readonly stop: (graceMs?: number) => Promise<ExitInfo>;
  /** Sends `signal` and waits for the exit; resolves at once with the earlier exit when the process is already gone. */
  readonly kill: (signal: NodeJS.Signals) => Promise<ExitInfo>;
}

const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/**
 * Starts `node <script>` from the repository root; throws at once when the script is not built.
 *
 * @example
 * const child = spawnChild({ name: 'webhook-worker', script: 'apps/webhook-worker/dist/main.js', builtBy: '@pits/webhook-worker', env, stopGraceMs: 10_000 });
 * await child.stop();
 */
export function spawnChild(options: SpawnOptions): SpawnedChild {
  const { name } = options;
  const script = join(REPO_ROOT, options.script);
  if (!existsSync(script)) throw new Error(`${options.script} is missing: build first (npx nx run-many -t build --projects=${options.builtBy})`);
  const child = spawn(process.execPath, [script], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...options.env },
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
  // 'close' comes after 'exit' once the output pipes are drained.
  const drained = once(child, 'close').catch(() => undefined);
  const exited = once(child, 'exit').then(([code, signal]) => {
    running.delete(child);
    exit = { code: code as number | null, signal: signal as NodeJS.Signals | null };
    return exit;
  });

  const header = `${name} (pid ${child.pid}${options.where === undefined ? '' : `, ${options.where}`})`;
  const describe = (count = 60) => `----- ${header} last ${count} lines -----\n${lines.slice(-count).join('\n')}\n----- end of ${name} -----`;

  const stop = async (graceMs = options.stopGraceMs): Promise<ExitInfo> => {
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

  return { pid: child.pid!, exit: () => exit, exited, drained, output: () => [...lines], describe, stop, kill };
}
