// Progress of an import: on a terminal, a bar redrawn in place with rows per second; anywhere
// else (a log, a pipe, CI), a plain line every few seconds.

export interface ProgressSink {
  /** `rows` read so far; `fraction` of the input consumed (0..1), when known. */
  update(rows: number, fraction?: number): void;
  /** Clears the bar (terminal) before the summary is printed. */
  done(rows: number): void;
}

export interface ProgressTarget {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const rate = (rows: number, ms: number) => Math.round((rows * 1000) / Math.max(ms, 1)).toLocaleString('en-US');

/**
 * @example
 * const progress = createProgress('areas', process.stderr);
 * progress.update(40000, 0.48); progress.done(83762);
 */
export function createProgress(label: string, target: ProgressTarget, options: { now?: () => number; intervalMs?: number } = {}): ProgressSink {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const tty = target.isTTY === true;
  const interval = options.intervalMs ?? (tty ? 100 : 2000);
  let last = started;
  return {
    update(rows, fraction) {
      const t = now();
      if (t - last < interval) return;
      last = t;
      const percent = fraction === undefined ? '' : `${Math.floor(fraction * 100)}%`;
      if (tty) {
        const width = 24;
        const filled = fraction === undefined ? 0 : Math.round(fraction * width);
        const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
        target.write(`\r${label} ${bar} ${percent.padStart(4)} ${rows.toLocaleString('en-US')} rows, ${rate(rows, t - started)} rows/s `);
      } else {
        target.write(`${label}: ${rows} rows${percent ? ` (${percent})` : ''}, ${rate(rows, t - started)} rows/s\n`);
      }
    },
    done() {
      if (tty) target.write(`\r${' '.repeat(Math.min(target.columns ?? 80, 100))}\r`);
    },
  };
}

/** A sink that shows nothing (tests, library callers). */
export const silentProgress: ProgressSink = { update() {}, done() {} };
