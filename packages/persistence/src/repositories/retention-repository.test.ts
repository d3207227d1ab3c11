import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPartner } from './partner-repository.js';
import { claimIdempotencyKey, completeIdempotencyKey } from './idempotency-repository.js';
import { purgeExpiredRecords } from './retention-repository.js';
import { type TestDatabase, openTestDatabase, testDialects } from '../testing/index.js';

const dialects = await testDialects();
const NOW = new Date('2026-11-22T12:00:00.000Z');
const DAY = 24 * 60 * 60 * 1000;
const ago = (ms: number) => new Date(NOW.getTime() - ms).toISOString();

describe.each(dialects)('[%s] retention purge', (dialect) => {
  let t: TestDatabase;
  let partnerId: number;
  let endpointId: number;

  async function event(occurredMsAgo: number): Promise<string> {
    const eventId = randomUUID();
    await t.database.db
      .insertInto('event_outbox')
      .values({
        event_id: eventId,
        partner_id: partnerId,
        tenant_id: randomUUID(),
        type: 'adjustment.status_changed',
        resource_type: 'adjustment',
        resource_id: 'ADJ-1',
        payload: '{}',
        occurred_at: ago(occurredMsAgo),
        dispatched_at: ago(occurredMsAgo),
      })
      .execute();
    return eventId;
  }

  /** A delivery of a new event in `status`, last changed `finishedMsAgo`, with two attempts. */
  async function delivery(status: 'pending' | 'succeeded' | 'failed', finishedMsAgo: number): Promise<{ eventId: string; id: number }> {
    const eventId = await event(finishedMsAgo + 1000);
    const row = await t.database.db
      .insertInto('webhook_deliveries')
      .values({
        event_id: eventId,
        endpoint_id: endpointId,
        status,
        attempts: 2,
        next_attempt_at: ago(finishedMsAgo),
        locked_by: null,
        locked_until: null,
        last_status_code: 200,
        last_error: null,
        delivered_at: status === 'succeeded' ? ago(finishedMsAgo) : null,
        created_at: ago(finishedMsAgo + 1000),
        updated_at: ago(finishedMsAgo),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    for (const attemptNo of [1, 2]) {
      await t.database.db
        .insertInto('webhook_delivery_attempts')
        .values({ delivery_id: row.id, attempt_no: attemptNo, started_at: ago(finishedMsAgo), duration_ms: 5, status_code: 500, error: 'HTTP 500', succeeded: 0 })
        .execute();
    }
    return { eventId, id: row.id };
  }

  beforeAll(async () => {
    t = await openTestDatabase(dialect);
    partnerId = (await createPartner(t.database, { name: 'P', email: 'p@x', tier: 'small' }, NOW)).id;
    endpointId = (
      await t.database.db
        .insertInto('webhook_endpoints')
        .values({ partner_id: partnerId, url: 'https://hooks.example.com/x', secret_enc: 'x', event_types: '["adjustment.status_changed"]', description: '', created_at: ago(40 * DAY), deleted_at: null })
        .returning('id')
        .executeTakeFirstOrThrow()
    ).id;
  });
  afterAll(() => t.cleanup());

  it('deletes what is past its retention in small batches and keeps everything within it', async () => {
    const oldDelivered = await Promise.all(Array.from({ length: 5 }, () => delivery('succeeded', 31 * DAY)));
    const oldDead = await delivery('failed', 31 * DAY);
    const oldPending = await delivery('pending', 31 * DAY);
    const recentDelivered = await delivery('succeeded', 29 * DAY);
    const lonelyOldEvent = await event(31 * DAY);
    const lonelyRecentEvent = await event(1 * DAY);

    const expired = await claimIdempotencyKey(t.database, partnerId, 'expired', 'fp', NOW.getTime() - 25 * 60 * 60 * 1000);
    const fresh = await claimIdempotencyKey(t.database, partnerId, 'fresh', 'fp', NOW.getTime() - 23 * 60 * 60 * 1000);
    if (expired.state !== 'new' || fresh.state !== 'new') throw new Error('claims expected');
    await completeIdempotencyKey(t.database, partnerId, 'expired', expired.token, 201, { old: true });
    await completeIdempotencyKey(t.database, partnerId, 'fresh', fresh.token, 201, { fresh: true });

    const counts = await purgeExpiredRecords(t.database, NOW, { deliveryRetentionMs: 30 * DAY, batchSize: 2, pauseMs: 0, maxBatches: 100 });
    expect(counts).toEqual({ idempotencyRecords: 1, deliveries: 6, events: 7 });

    const deliveries = await t.database.db.selectFrom('webhook_deliveries').select('id').orderBy('id').execute();
    expect(deliveries.map((d) => d.id)).toEqual([oldPending.id, recentDelivered.id]);
    const attempts = await t.database.db.selectFrom('webhook_delivery_attempts').select('delivery_id').distinct().orderBy('delivery_id').execute();
    expect(attempts.map((a) => a.delivery_id)).toEqual([oldPending.id, recentDelivered.id]);
    const events = new Set((await t.database.db.selectFrom('event_outbox').select('event_id').execute()).map((e) => e.event_id));
    expect(events).toEqual(new Set([oldPending.eventId, recentDelivered.eventId, lonelyRecentEvent]));
    expect(events.has(lonelyOldEvent)).toBe(false);
    for (const d of [...oldDelivered, oldDead]) expect(events.has(d.eventId)).toBe(false);

    const keys = await t.database.db.selectFrom('idempotency_records').select('key').execute();
    expect(keys.map((k) => k.key)).toEqual(['fresh']);
    // What stays still replays.
    expect(await claimIdempotencyKey(t.database, partnerId, 'fresh', 'fp', NOW.getTime())).toEqual({ state: 'replay', status: 201, body: { fresh: true } });

    // A second run finds nothing more.
    expect(await purgeExpiredRecords(t.database, NOW, { deliveryRetentionMs: 30 * DAY, batchSize: 2, pauseMs: 0, maxBatches: 100 })).toEqual({ idempotencyRecords: 0, deliveries: 0, events: 0 });
  });

  it('stops after maxBatches per table and leaves the rest for the next run', async () => {
    await Promise.all(Array.from({ length: 5 }, () => delivery('succeeded', 40 * DAY)));
    const first = await purgeExpiredRecords(t.database, NOW, { deliveryRetentionMs: 30 * DAY, batchSize: 2, pauseMs: 0, maxBatches: 1 });
    expect(first.deliveries).toBe(2);
    const second = await purgeExpiredRecords(t.database, NOW, { deliveryRetentionMs: 30 * DAY, batchSize: 2, pauseMs: 0, maxBatches: 100 });
    expect(second.deliveries).toBe(3);
  });
});
