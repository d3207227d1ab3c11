// The retention purge as a background job of the gateway process (docs/operating-guarantees.md#retention): expired
// idempotency records and finished webhook deliveries past their retention are deleted in small
// batches, on an interval, and every run that deleted something says so in the log. Several
// gateway processes may each run it; the batches simply find less to do.
import { type Database, type RetentionSettings, DEFAULT_RETENTION, purgeExpiredRecords } from '@pits/persistence';
import type { GatewayLogger } from './http/index.js';
import { type PeriodicJob, periodicJob } from './periodic-job.js';

/** `start`: the first run after one interval, then one an interval after each run ends. */
export interface RetentionJob extends PeriodicJob {
  /** One run now; resolves with what it purged. */
  runOnce(): Promise<Awaited<ReturnType<typeof purgeExpiredRecords>>>;
}

export function createRetentionJob(options: {
  database: Database;
  logger: GatewayLogger;
  intervalMs: number;
  settings: Partial<RetentionSettings>;
  now?: () => Date;
}): RetentionJob {
  const { database, logger, intervalMs } = options;
  const settings = { ...DEFAULT_RETENTION, ...options.settings };
  const now = options.now ?? (() => new Date());

  async function runOnce() {
    const started = performance.now();
    const purged = await purgeExpiredRecords(database, now(), settings);
    const total = purged.idempotencyRecords + purged.deliveries + purged.events;
    if (total > 0) {
      logger.info({ purged, duration_ms: Math.round(performance.now() - started), retention_ms: settings.deliveryRetentionMs }, 'retention purge deleted expired records');
    }
    return purged;
  }

  return { runOnce, ...periodicJob({ name: 'retention purge', logger, intervalMs, runAtStart: false, run: runOnce }) };
}
