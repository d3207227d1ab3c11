// The retention purge as a background job of the gateway process (docs/operating-guarantees.md#retention): expired
// idempotency records and finished webhook deliveries past their retention are deleted in small
// batches, on an interval, and every run that deleted something says so in the log. Several
// gateway processes may each run it; the batches simply find less to do.
import { type Database, type RetentionSettings, DEFAULT_RETENTION, isDatabaseUnavailable, purgeExpiredRecords } from '@pits/persistence';
import type { GatewayLogger } from './http/index.js';

export interface RetentionJob {
  /** One run now; resolves with what it purged. */
  runOnce(): Promise<Awaited<ReturnType<typeof purgeExpiredRecords>>>;
  /** First run after one interval, then every interval. */
  start(): void;
  /** Stops scheduling and waits for a run in progress. */
  stop(): Promise<void>;
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
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<unknown> | undefined;

  async function runOnce() {
    const started = performance.now();
    const purged = await purgeExpiredRecords(database, now(), settings);
    const total = purged.idempotencyRecords + purged.deliveries + purged.events;
    if (total > 0) {
      logger.info({ purged, duration_ms: Math.round(performance.now() - started), retention_ms: settings.deliveryRetentionMs }, 'retention purge deleted expired records');
    }
    return purged;
  }

  const tick = () => {
    running = runOnce()
      .catch((error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        if (isDatabaseUnavailable(error)) logger.warn({ reason }, 'retention purge skipped: the database is unavailable; next run on schedule');
        else logger.error({ err: error }, 'retention purge failed');
      })
      .finally(() => {
        running = undefined;
      });
  };

  return {
    runOnce,
    start() {
      if (timer) return;
      timer = setInterval(tick, intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running;
    },
  };
}
