// The worker's metrics on every dialect: deliveries by outcome, and the backlog counted on each
// scrape, bounded by its timeout.
import { type Database, DATABASE_ERROR_KINDS, classifyDatabaseError } from '@pits/persistence';
import { type TestDatabase, openTestDatabase, testDialects } from '@pits/persistence/testing';
import { createProcessMetrics, metricSample } from '@pits/service-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { webhookMetrics } from './webhook-metrics.js';

const dialects = await testDialects();

/** `database` whose every statement first waits `ms`. */
function slowed(database: Database, ms: number): Database {
  return {
    ...database,
    db: new Proxy(database.db, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver) as unknown;
        if (key !== 'executeQuery' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await new Promise((r) => setTimeout(r, ms));
          return (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        };
      },
    }),
  };
}

describe.each(dialects)('[%s] webhook worker metrics', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(dialect);
  });
  afterAll(() => t.cleanup());

  it('counts attempts by outcome with their durations, and reports the backlog on each scrape', async () => {
    const metrics = createProcessMetrics('webhook-worker', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
    const worker = webhookMetrics(metrics.registry, t.database);
    worker.attempted('delivered', 0.02);
    worker.attempted('retrying', 3);
    worker.attempted('retrying', 0.5);
    const text = await metrics.registry.metrics();
    expect(metricSample(text, 'pits_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(metricSample(text, 'pits_webhook_deliveries_total', { outcome: 'retrying' })).toBe(2);
    expect(metricSample(text, 'pits_webhook_deliveries_total', { outcome: 'lease_lost' })).toBe(0);
    expect(metricSample(text, 'pits_webhook_delivery_duration_seconds_sum', { outcome: 'retrying' })).toBeCloseTo(3.5);
    expect(metricSample(text, 'pits_webhook_delivery_duration_seconds_bucket', { outcome: 'retrying', le: '1' })).toBe(1);
    expect(metricSample(text, 'pits_webhook_backlog', { app: 'webhook-worker' })).toBe(0);
  });

  it('reports the backlog as NaN, within its timeout, when the database does not answer in time', async () => {
    const metrics = createProcessMetrics('webhook-worker', { kinds: DATABASE_ERROR_KINDS, classify: classifyDatabaseError });
    const reader = await openTestDatabase(dialect);
    webhookMetrics(metrics.registry, slowed(reader.database, 300), 50);
    const started = performance.now();
    const text = await metrics.registry.metrics();
    expect(performance.now() - started).toBeLessThan(280);
    expect(metricSample(text, 'pits_webhook_backlog')).toBeNaN();
    // The late count fails once its database is gone: the run must not see an unhandled rejection.
    await reader.cleanup();
    await new Promise((r) => setTimeout(r, 400));
  });
});
