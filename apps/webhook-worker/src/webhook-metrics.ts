// The webhook worker's metrics: deliveries by outcome, how long each attempt took, and the backlog
// of deliveries not yet finished (counted on each scrape, bounded by a timeout).
import { countPendingDeliveries, type Database } from '@pits/persistence';
import { Counter, DELIVERY_OUTCOMES, type DeliveryOutcome, Gauge, Histogram, LATENCY_BUCKETS_SECONDS, type Registry } from '@pits/service-runtime';

export interface WebhookMetrics {
  /** One attempt finished with `outcome`, after `seconds` (the receiver's answer or the failure). */
  attempted(outcome: DeliveryOutcome, seconds: number): void;
}

/** A scrape waits this long for the backlog count; later, the gauge reads NaN for that scrape. */
export const BACKLOG_COUNT_TIMEOUT_MS = 1000;

/** `promise`, or a rejection after `ms` (a late failure of `promise` is taken by the race, never unhandled). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * @example
 * const worker = createWebhookWorker({ ..., metrics: webhookMetrics(metrics.registry, database) });
 */
export function webhookMetrics(registry: Registry, database: Database, backlogTimeoutMs = BACKLOG_COUNT_TIMEOUT_MS): WebhookMetrics {
  const deliveries = new Counter({
    name: 'pits_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered, retrying (failed, sent again later), failed (for good), lease_lost.',
    labelNames: ['outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'pits_webhook_delivery_duration_seconds',
    help: 'Time from sending a webhook to the receiver’s answer (or the failure), by outcome.',
    labelNames: ['outcome'],
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [registry],
  });
  for (const outcome of DELIVERY_OUTCOMES) deliveries.labels(outcome).inc(0);
  new Gauge({
    name: 'pits_webhook_backlog',
    help: 'Webhook deliveries not finished yet (pending: due, waiting for a retry, or being sent); NaN when the database did not answer in time.',
    registers: [registry],
    async collect() {
      try {
        this.set(await within(countPendingDeliveries(database), backlogTimeoutMs));
      } catch {
        this.set(Number.NaN);
      }
    },
  });
  return {
    attempted(outcome, seconds) {
      deliveries.labels(outcome).inc();
      duration.labels(outcome).observe(seconds);
    },
  };
}
