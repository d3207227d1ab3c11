// How the gateway runs its background jobs (the retention purge, the order-hold expiry sweep): one
// run, then a wait of the interval (± jitter) counted from its end, so two runs of a job never
// overlap however long one takes. A failed run is logged, a database that is away as a warning
// since the next run on schedule will do, and the schedule goes on.
import { isDatabaseUnavailable } from '@pits/persistence';
import type { GatewayLogger } from './http/index.js';

export interface PeriodicJob {
  /** Starts the schedule (again after `stop`); a second call while started does nothing. */
  start(): void;
  /** Stops scheduling and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * @example
 * const job = periodicJob({ name: 'retention purge', logger, intervalMs: 60_000, runAtStart: false, run: () => purge() });
 * job.start(); // ... await job.stop();
 */
export function periodicJob(options: {
  /** How the log names it: "<name> failed". */
  name: string;
  logger: GatewayLogger;
  intervalMs: number;
  /** Each wait is the interval times a factor drawn from [1 - jitter, 1 + jitter]; 0 by default. */
  jitter?: number;
  /** True: the first run at start; false: after the first wait. */
  runAtStart: boolean;
  run: () => Promise<unknown>;
}): PeriodicJob {
  const { name, logger, intervalMs, jitter = 0, runAtStart, run } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let started = false;

  const schedule = () => {
    if (!started) return;
    timer = setTimeout(tick, Math.round(intervalMs * (1 - jitter + 2 * jitter * Math.random())));
    timer.unref();
  };

  function tick(): void {
    timer = undefined;
    running = run()
      .then(
        () => undefined,
        (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          if (isDatabaseUnavailable(error)) logger.warn({ reason }, `${name} skipped: the database is unavailable; next run on schedule`);
          else logger.error({ err: error }, `${name} failed`);
        },
      )
      .finally(() => {
        running = undefined;
        schedule();
      });
  }

  return {
    start() {
      if (started) return;
      started = true;
      if (runAtStart) tick();
      else schedule();
    },
    async stop() {
      started = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
