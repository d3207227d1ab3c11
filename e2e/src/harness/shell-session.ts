// A shell command run the way a person runs it in a terminal: its own process group (so Ctrl-C,
// here SIGTERM, reaches everything it started), output collected, and a way to wait for a line.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

export interface ShellSession {
  readonly pid: number;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects on timeout or exit. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** SIGTERM to the whole process group, SIGKILL after `graceMs`; resolves once the shell exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * @example
 * const session = startShell('npm ci && npm start', { cwd, env });
 * const [, key] = await session.waitFor(/Demo API key:\s+(\S+)/, 600_000);
 */
export function startShell(command: string, options: { cwd: string; env: NodeJS.ProcessEnv }): ShellSession {
  const child = spawn('bash', ['-c', command], { cwd: options.cwd, env: options.env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  let exited: string | undefined;
  const listeners = new Set<() => void>();
  const changed = () => listeners.forEach((listener) => listener());
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((text += chunk), changed()));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((text += chunk), changed()));
  const exit = once(child, 'exit').then(([code, signal]) => {
    exited = String(signal ?? code);
    changed();
  });
  const group = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group is gone already
    }
  };
  process.once('exit', () => group('SIGKILL'));

  return {
    pid: child.pid!,
    output: () => text,
    waitFor(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(text);
          if (match) finish(() => resolve(match));
          else if (exited !== undefined) finish(() => reject(new Error(`\`${command}\` exited (${exited}) before printing ${pattern}`)));
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`\`${command}\` did not print ${pattern} within ${timeoutMs} ms`))), timeoutMs);
        const finish = (settle: () => void) => {
          clearTimeout(timer);
          listeners.delete(check);
          settle();
        };
        listeners.add(check);
        check();
      });
    },
    async stop(graceMs = 20_000) {
      if (exited !== undefined) return;
      group('SIGTERM');
      const timer = setTimeout(() => group('SIGKILL'), graceMs);
      await exit;
      clearTimeout(timer);
      group('SIGKILL'); // whatever the shell left behind
    },
  };
}
