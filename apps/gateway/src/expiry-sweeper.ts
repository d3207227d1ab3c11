// The order-hold expiry sweep as a background job of every gateway process
// (docs/holds.md#states-and-expiry): holds past their expiry end as expired and give their stock
// back. Every gateway sweeps because the gateway is the one process every deployment runs; a pass
// locks what it expires (rows another sweeper holds are skipped), so any number of sweepers run
// side by side and each hold ends once. Its gauges tell the on-call engineer whether expiry keeps
// up (docs/holds.md#watching-expiry). Each run also announces the lots whose day boundary has come
// (docs/lots.md#events): a notice 7 days before a lot turns unsellable, and the stock.level_changed
// of a row whose lot turned unsellable at 00:00 WIB, within one interval of it.
import { type Database, type LotBoundaryRun, type SetAsideHold, announceLotBoundaries, dueHoldBacklog, expireAllDue } from '@pits/persistence';
import { Counter, Gauge, type Registry } from '@pits/service-runtime';
import type { GatewayLogger } from './http/index.js';
import { type PeriodicJob, periodicJob } from './periodic-job.js';

/** Each wait between runs is the interval times a factor drawn from [1 - JITTER, 1 + JITTER]. */
export const SWEEP_JITTER = 0.2;

export interface SweepRun {
  /** Holds this run expired. */
  expired: number;
  /** Passes it made (each one transaction). */
  passes: number;
  /** Due holds it could not expire (their stock rows keep less than they hold), each logged at error level. */
  setAside: SetAsideHold[];
  /** Lots at their locations whose notice or turning unsellable this run announced. */
  lots: LotBoundaryRun;
}

/** `start`: a run at once, then one every interval (± SWEEP_JITTER), each after the previous ended. */
export interface ExpirySweeper extends PeriodicJob {
  /** One run now: passes until everything due when the last pass looked is ended or set aside. */
  runOnce(): Promise<SweepRun>;
}

/** The sweep's metrics: the backlog it leaves after each run, and the holds it had to set aside. */
function sweepMetrics(registry: Registry | undefined) {
  let backlog: { due: number; oldestAgeSeconds: number; measuredAt: number } | undefined;
  if (!registry) return { measured: (_due: number, _age: number) => undefined, setAside: (_n: number) => undefined };
  new Gauge({
    name: 'pits_reservations_due',
    help: 'Active order holds past their expires_at when the last sweep run ended (by the database clock): not yet given back.',
    registers: [registry],
    collect() {
      this.set(backlog?.due ?? 0);
    },
  });
  new Gauge({
    name: 'pits_reservations_oldest_due_age_seconds',
    help: 'Seconds since the oldest active hold still past its expires_at expired, as of now: grows while that hold waits, also when no sweep runs.',
    registers: [registry],
    collect() {
      this.set(backlog && backlog.due > 0 ? backlog.oldestAgeSeconds + (performance.now() - backlog.measuredAt) / 1000 : 0);
    },
  });
  const setAside = new Counter({
    name: 'pits_reservation_expiry_set_aside_total',
    help: 'Due order holds a sweep could not expire because their stock rows keep less than they hold (each logged at error level, listed by stock.verify).',
    registers: [registry],
  });
  return {
    measured: (due: number, oldestAgeSeconds: number) => void (backlog = { due, oldestAgeSeconds, measuredAt: performance.now() }),
    setAside: (n: number) => setAside.inc(n),
  };
}

/**
 * @example
 * const sweeper = createExpirySweeper({ database, logger, intervalMs: 15_000, batchSize: 100, registry: metrics.registry });
 * sweeper.start(); // ... await sweeper.stop();
 */
export function createExpirySweeper(options: {
  database: Database;
  logger: GatewayLogger;
  intervalMs: number;
  batchSize: number;
  /** Where the backlog gauges and the set-aside counter go; none, no metrics. */
  registry?: Registry;
}): ExpirySweeper {
  const { database, logger, intervalMs, batchSize } = options;
  const metrics = sweepMetrics(options.registry);
  let stopping = false;

  async function runOnce(): Promise<SweepRun> {
    const began = performance.now();
    const { expired, passes, setAside } = await expireAllDue(database, batchSize, () => stopping);
    for (const hold of setAside) {
      logger.error({ reservation_number: hold.number, tenant_id: hold.tenantId, reason: hold.reason }, 'expiry sweep set aside a hold it cannot expire; stock.verify lists its row');
    }
    metrics.setAside(setAside.length);
    const backlog = await dueHoldBacklog(database);
    metrics.measured(backlog.due, backlog.oldestExpiresAt ? (Date.parse(backlog.at) - Date.parse(backlog.oldestExpiresAt)) / 1000 : 0);
    if (expired > 0 || setAside.length > 0) {
      logger.info({ expired, passes, set_aside: setAside.length, still_due: backlog.due, duration_ms: Math.round(performance.now() - began) }, 'expiry sweep expired reservations');
    }
    const lots = await announceLotBoundaries(database, batchSize, () => stopping);
    if (lots.expiring > 0 || lots.unsellable > 0) logger.info({ lots_expiring: lots.expiring, lots_unsellable: lots.unsellable }, 'expiry sweep announced lot boundaries');
    return { expired, passes, setAside, lots };
  }

  const job = periodicJob({ name: 'expiry sweep', logger, intervalMs, jitter: SWEEP_JITTER, runAtStart: true, run: runOnce });
  return {
    runOnce,
    start() {
      stopping = false;
      job.start();
    },
    async stop() {
      // A run under way ends after its current pass.
      stopping = true;
      await job.stop();
    },
  };
}
