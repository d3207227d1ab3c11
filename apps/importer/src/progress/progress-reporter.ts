// Progress of an import: on a terminal, a bar redrawn in place with rows per second and the time
// left; anywhere else (a log, a pipe, CI), a plain line every few seconds with the same figures.
// The time left is the time so far scaled by the share of the input still unread (bytes read
// against the file's size), so it needs no row count up front.

export interface ProgressSink {
  /** `rows` read so far; `fraction` of the input consumed (0..1), when known. */
  update(rows: number, fraction?: number): void;
  /** Clears the bar (terminal), if one was drawn, before the summary is printed. */
  done(rows: number): void;
}

export interface ProgressTarget {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const rate = (rows: number, ms: number) => Math.round((rows * 1000) / Math.max(ms, 1)).toLocaleString('en-US');

/**
 * Seconds as a clock: `m:ss`, or `h:mm:ss` from an hour on.
 *
 * @example
 * formatDuration(65) // '1:05'
 * formatDuration(3725) // '1:02:05'
 */
export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const [h, m, rest] = [Math.floor(s / 3600), Math.floor((s % 3600) / 60), s % 60];
  const ss = String(rest).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/**
 * The estimated time left, as `ETA m:ss`; `ETA --:--` while nothing tells (no share known yet).
 *
 * @example
 * eta(0.25, 10_000) // 'ETA 0:30' (a quarter read in 10 s: 30 s to go)
 */
export function eta(fraction: number | undefined, elapsedMs: number): string {
  if (fraction === undefined || !(fraction > 0)) return 'ETA --:--';
  return `ETA ${formatDuration(((elapsedMs / 1000) * (1 - Math.min(fraction, 1))) / fraction)}`;
}

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
  /** Width of the bar on screen, which done() blanks out. */
  let drawn = 0;
  return {
    update(rows, fraction) {
      const t = now();
      if (t - last < interval) return;
      last = t;
      const elapsed = t - started;
      const percent = fraction === undefined ? '' : `${Math.floor(fraction * 100)}%`;
      if (tty) {
        const width = 24;
        const filled = fraction === undefined ? 0 : Math.round(fraction * width);
        const bar = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}]`;
        const line = `${label} ${bar} ${percent.padStart(4)} ${rows.toLocaleString('en-US')} rows, ${rate(rows, elapsed)} rows/s, ${eta(fraction, elapsed)} `;
        // A line wider than the terminal would wrap, and `\r` would then redraw only its last part.
        const columns = target.columns ?? 0;
        const shown = columns > 1 && line.length >= columns ? line.slice(0, columns - 1) : line;
        drawn = Math.max(drawn, shown.length);
        target.write(`\r${shown}`);
      } else {
        target.write(`${label}: ${rows} rows${percent ? ` (${percent})` : ''}, ${rate(rows, elapsed)} rows/s, ${eta(fraction, elapsed)}\n`);
      }
    },
    done() {
      if (tty && drawn > 0) target.write(`\r${' '.repeat(drawn)}\r`);
      drawn = 0;
    },
  };
}

/** A sink that shows nothing (tests, library callers). */
export const silentProgress: ProgressSink = { update() {}, done() {} };
