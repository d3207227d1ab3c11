// One built app that serves HTTP as a real child process (child-process.ts runs it): ready once
// its /readyz answers 200, stopped with SIGTERM the way an orchestrator stops it (or killed
// outright to play a crash).
import { type ExitInfo, spawnChild } from './child-process.js';

export { type ExitInfo, REPO_ROOT } from './child-process.js';

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
  const url = `http://127.0.0.1:${port}`;
  const child = spawnChild({ name, script: options.script, builtBy: '@pits/gateway,@pits/internal-api', env: options.env, where: url, stopGraceMs: 15_000 });
  const { describe, stop } = child;

  const readyPath = options.readyPath ?? '/readyz';
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    const exit = child.exit();
    if (exit) {
      await Promise.race([child.drained, sleep(2000)]);
      throw new Error(`${name} exited during start-up (${exit.signal ?? exit.code})\n${describe()}`);
    }
    if (await healthy(url, readyPath)) break;
    if (Date.now() > deadline) {
      await stop(2000);
      throw new Error(`${name} did not answer GET ${readyPath} with 200 within ${options.readyTimeoutMs ?? 60_000} ms\n${describe()}`);
    }
    await sleep(100);
  }

  return { name, url, pid: child.pid, output: child.output, describe, stop, kill: child.kill };
}
