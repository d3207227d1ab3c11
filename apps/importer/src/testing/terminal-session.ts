// A command run the way a person runs it in a terminal window: inside a pseudo-terminal (util-linux
// `script`), so that stdin and stdout are TTYs and tools behave as they do for a person: Nx would
// prompt there, and the importer draws its progress bar there. Test support, not built.
import { spawn } from 'node:child_process';

export interface TerminalRun {
  /** Exit code of the command (`script -e` passes it on), or the signal that ended it. */
  exit: number | NodeJS.Signals;
  /** Everything the terminal showed, escape sequences and carriage returns included. */
  output: string;
  /** True when the run was ended for taking longer than its time limit, or for printing `stopOn`. */
  stopped: boolean;
}

/**
 * Runs `command` with bash inside a pseudo-terminal of 120 columns by 40 rows, in its own process
 * group; ends the group (SIGKILL) after `timeoutMs`, or as soon as the output matches `stopOn`.
 *
 * @example
 * const run = await runInTerminal('npx pits-import areas data.csv', { cwd, env, timeoutMs: 60_000 });
 * expect(run.output).toMatch(/ETA/);
 */
export function runInTerminal(command: string, options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; stopOn?: RegExp }): Promise<TerminalRun> {
  // `script` gives the terminal the size of its own (none here): set one, as a terminal window has.
  const inner = `stty cols 120 rows 40 2>/dev/null; ${command}`;
  const child = spawn('script', ['--quiet', '--flush', '--return', '--command', `bash -c ${quote(inner)}`, '/dev/null'], {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let stopped = false;
  const end = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone already
    }
  };
  const timer = setTimeout(() => ((stopped = true), end()), options.timeoutMs);
  const collect = (chunk: string) => {
    output += chunk;
    if (options.stopOn && !stopped && options.stopOn.test(output)) {
      stopped = true;
      end();
    }
  };
  child.stdout.setEncoding('utf8').on('data', collect);
  child.stderr.setEncoding('utf8').on('data', collect);
  return new Promise((resolve, reject) => {
    child.on('error', (error) => (clearTimeout(timer), reject(error)));
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      end(); // whatever the command left behind
      resolve({ exit: code ?? signal ?? 'SIGKILL', output, stopped });
    });
  });
}

/** A string as one bash word. */
function quote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
