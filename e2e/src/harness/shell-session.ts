// A shell command run the way a person runs it in a terminal: its own process group (so Ctrl-C,
// here SIGTERM, reaches everything it started), output collected, and a way to wait for a line.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

export interface ShellSession {
  readonly pid: number;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects on timeout or exit. */
  waitFor(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** The live processes the command started (its process group), with their command lines. */
  processes(): GroupProcess[];
  /**
   * Resolves true once no process of the group is alive (a signal sent to one of them did the
   * rest), false after `timeoutMs`; sends nothing itself.
   */
  gone(timeoutMs: number): Promise<boolean>;
  /**
   * SIGTERM to the whole process group, SIGKILL to what is still alive after `graceMs`; resolves
   * once no process of the group is alive (the shell can exit before the servers it started have
   * closed their ports). `forced` says whether SIGKILL was needed.
   */
  stop(graceMs?: number): Promise<{ forced: boolean }>;
}

/** A live process of a group: its id, and its command line as `ps` shows it (`npm start`). */
export interface GroupProcess {
  pid: number;
  command: string;
}

/**
 * The live (not zombie) processes of process group `pgid` with their command lines, read from
 * /proc (none where there is no /proc).
 */
export function groupProcesses(pgid: number): GroupProcess[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return entries.flatMap((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) !== pgid || state === 'Z' || state === 'X') return [];
      // Arguments are NUL-separated; a process that set its title (npm does) pads it with NULs.
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter((part) => part !== '').join(' ');
      return [{ pid: Number(pid), command }];
    } catch {
      return []; // exited while we looked
    }
  });
}

/**
 * The live (not zombie) processes of process group `pgid`, read from /proc; where there is no
 * /proc, whether the group still has any process at all.
 */
export function groupAlive(pgid: number): boolean {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch {
      return false;
    }
  }
  return entries.some((pid) => {
    try {
      // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      return Number(pgrp) === pgid && state !== 'Z' && state !== 'X';
    } catch {
      return false; // exited while we looked
    }
  });
}

async function groupGone(pgid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (groupAlive(pgid)) {
    if (Date.now() >= deadline) return false;
    await sleep(50);
  }
  return true;
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
    processes: () => groupProcesses(child.pid!),
    gone: (timeoutMs) => groupGone(child.pid!, timeoutMs),
    async stop(graceMs = 20_000) {
      const pgid = child.pid!;
      if (exited !== undefined && !groupAlive(pgid)) return { forced: false };
      group('SIGTERM');
      const stopped = await groupGone(pgid, graceMs);
      if (!stopped) {
        group('SIGKILL');
        await groupGone(pgid, 10_000);
      }
      await exit;
      return { forced: !stopped };
    },
  };
}
