// The order-hold expiry sweep as a background job of every gateway process
// (docs/holds.md#states-and-expiry): holds past their expiry end as expired and give their stock
// back. Every gateway sweeps because the gateway is the one process every deployment runs; a pass
// locks what it expires (rows another sweeper holds are skipped), so any number of sweepers run
// side by side and each hold ends once.
import { type Database, expireDueReservations, isDatabaseUnavailable } from '@pits/persistence';
import type { GatewayLogger } from './http/index.js';

/** Passes per run at most: a backlog larger than this many batches is finished by the next runs. */
export const MAX_PASSES_PER_RUN = 50;
/** Each wait between runs is the interval times a factor drawn from [1 - JITTER, 1 + JITTER]. */
export const SWEEP_JITTER = 0.2;

export interface SweepRun {
  /** Holds this run expired. */
  expired: number;
  /** Passes it made (each one transaction). */
  passes: number;
  /** True when it stopped at MAX_PASSES_PER_RUN with its last pass still finding holds. */
  moreDue: boolean;
}

export interface ExpirySweeper {
  /** One run now: passes until one finds nothing due (at most MAX_PASSES_PER_RUN). */
  runOnce(): Promise<SweepRun>;
  /** A run at once, then one every interval (± SWEEP_JITTER), each after the previous ended. */
  start(): void;
  /** Stops scheduling and waits for a run in progress. */
  stop(): Promise<void>;
}

/**
 * @example
 * const sweeper = createExpirySweeper({ database, logger, intervalMs: 15_000, batchSize: 100 });
 * sweeper.start(); // ... await sweeper.stop();
 */
export function createExpirySweeper(options: {
  database: Database;
  logger: GatewayLogger;
  intervalMs: number;
  batchSize: number;
}): ExpirySweeper {
  const { database, logger, intervalMs, batchSize } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let started = false;

  async function runOnce(): Promise<SweepRun> {
    const began = performance.now();
    let expired = 0;
    let passes = 0;
    let last = 0;
    // A pass expires the due holds of one tenant only, so a pass below the batch size does not
    // mean nothing is left: the run goes on until a pass finds nothing.
    do {
      last = await expireDueReservations(database, batchSize);
      expired += last;
      passes += 1;
    } while (last > 0 && passes < MAX_PASSES_PER_RUN);
    const moreDue = last > 0;
    if (expired > 0) {
      logger.info({ expired, passes, more_due: moreDue, duration_ms: Math.round(performance.now() - began) }, 'expiry sweep expired reservations');
    }
    return { expired, passes, moreDue };
  }

  const schedule = () => {
    if (!started) return;
    const factor = 1 - SWEEP_JITTER + 2 * SWEEP_JITTER * Math.random();
    timer = setTimeout(tick, Math.round(intervalMs * factor));
    timer.unref();
  };

  function tick(): void {
    timer = undefined;
    running = runOnce()
      .then(
        () => undefined,
        (error: unknown) => {
          const reason = error instanceof Error ? error.message : String(error);
          if (isDatabaseUnavailable(error)) logger.warn({ reason }, 'expiry sweep skipped: the database is unavailable; next run on schedule');
          else logger.error({ err: error }, 'expiry sweep failed');
        },
      )
      .finally(() => {
        running = undefined;
        schedule();
      });
  }

  return {
    runOnce,
    start() {
      if (started) return;
      started = true;
      tick();
    },
    async stop() {
      started = false;
      if (timer) clearTimeout(timer);
      timer = undefined;
      await running;
    },
  };
}
