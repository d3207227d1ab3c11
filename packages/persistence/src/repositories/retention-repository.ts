// Retention (docs/operating-guarantees.md#retention): expired idempotency records, finished webhook deliveries with their
// attempts, and events no delivery refers to any more are deleted by the service itself. Each
// batch is one short statement over an index, so a purge never holds a lock for long; the caller
// pauses between batches so other writers get their turn (where a write transaction holds the
// whole database, they wait for every batch).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Scope } from '../transaction.js';
import { executeWrite, type WriteResult } from '../execution/execute.js';

export interface RetentionSettings {
  /** Finished (succeeded or failed) deliveries, their attempts and their events are kept this long after they finished. */
  deliveryRetentionMs: number;
  /** Rows deleted per statement. */
  batchSize: number;
  /** Pause between two batches. */
  pauseMs: number;
  /** At most this many batches per table in one run; the rest waits for the next run. */
  maxBatches: number;
}

export const DEFAULT_RETENTION: RetentionSettings = {
  deliveryRetentionMs: 30 * 24 * 60 * 60 * 1000,
  batchSize: 500,
  pauseMs: 20,
  maxBatches: 200,
};

/** How many rows one run deleted, by kind. */
export interface PurgeCounts {
  idempotencyRecords: number;
  deliveries: number;
  events: number;
}

const affected = (result: WriteResult): number => result.affectedRows;

/** One batch of idempotency records past their expiry (24 h after their request). */
export async function purgeExpiredIdempotencyRecords(scope: Scope, now: Date, batchSize: number): Promise<number> {
  const at = now.toISOString();
  const result = await executeWrite(scope, scope.db
    .deleteFrom('idempotency_records')
    .where(({ eb, refTuple, selectFrom }) =>
      eb(
        refTuple('partner_id', 'key'),
        'in',
        selectFrom('idempotency_records')
          .select(['partner_id', 'key'])
          .where('expires_at', '<=', at)
          .limit(batchSize)
          .$asTuple('partner_id', 'key'),
      ),
    ));
  return affected(result);
}

/** One batch of deliveries that finished before `before`; their attempts go with them (cascade). */
export async function purgeFinishedDeliveries(scope: Scope, before: Date, batchSize: number): Promise<number> {
  const at = before.toISOString();
  const result = await executeWrite(scope, scope.db
    .deleteFrom('webhook_deliveries')
    .where('id', 'in', (eb) =>
      eb.selectFrom('webhook_deliveries').select('id').where('status', 'in', ['succeeded', 'failed']).where('updated_at', '<', at).limit(batchSize),
    ));
  return affected(result);
}

/** One batch of events older than `before` that no delivery refers to any more. */
export async function purgeUndeliverableEvents(scope: Scope, before: Date, batchSize: number): Promise<number> {
  const at = before.toISOString();
  const result = await executeWrite(scope, scope.db
    .deleteFrom('event_outbox')
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('event_outbox as e')
        .select('e.id')
        .where('e.occurred_at', '<', at)
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom('webhook_deliveries as d').select('d.id').whereRef('d.event_id', '=', 'e.event_id'))),
        )
        .limit(batchSize),
    ));
  return affected(result);
}

async function drain(purgeBatch: () => Promise<number>, settings: RetentionSettings): Promise<number> {
  let total = 0;
  for (let batch = 0; batch < settings.maxBatches; batch += 1) {
    const deleted = await purgeBatch();
    total += deleted;
    if (deleted < settings.batchSize) break;
    await sleep(settings.pauseMs);
  }
  return total;
}

/**
 * One retention run: every table in batches, oldest rows first.
 *
 * @example
 * const counts = await purgeExpiredRecords(database, new Date(), DEFAULT_RETENTION);
 * if (counts.deliveries > 0) logger.info({ purged: counts }, 'retention purge');
 */
export async function purgeExpiredRecords(scope: Scope, now: Date, settings: RetentionSettings = DEFAULT_RETENTION): Promise<PurgeCounts> {
  const cutoff = new Date(now.getTime() - settings.deliveryRetentionMs);
  const idempotencyRecords = await drain(() => purgeExpiredIdempotencyRecords(scope, now, settings.batchSize), settings);
  const deliveries = await drain(() => purgeFinishedDeliveries(scope, cutoff, settings.batchSize), settings);
  const events = await drain(() => purgeUndeliverableEvents(scope, cutoff, settings.batchSize), settings);
  return { idempotencyRecords, deliveries, events };
}
