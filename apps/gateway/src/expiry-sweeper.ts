// The order-hold expiry sweep as a background job of every gateway process
// (docs/holds.md#states-and-expiry): holds past their expiry end as expired and give their stock
// back. Every gateway sweeps because the gateway is the one process every deployment runs; a pass
// locks what it expires (rows another sweeper holds are skipped), so any number of sweepers run
// side by side and each hold ends once.
import { type Database, expireDueReservations } from '@pits/persistence';
import type { GatewayLogger } from './http/index.js';
import { type PeriodicJob, periodicJob } from './periodic-job.js';

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

/** `start`: a run at once, then one every interval (± SWEEP_JITTER), each after the previous ended. */
export interface ExpirySweeper extends PeriodicJob {
  /** One run now: passes until one finds nothing due (at most MAX_PASSES_PER_RUN). */
  runOnce(): Promise<SweepRun>;
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

  return { runOnce, ...periodicJob({ name: 'expiry sweep', logger, intervalMs, jitter: SWEEP_JITTER, runAtStart: true, run: runOnce }) };
}
