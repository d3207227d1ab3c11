// The webhook delivery worker: claims due deliveries (leased, so several workers never send the
// same one at once and a dead worker's deliveries come back), POSTs each signed event with a
// timeout to an address the URL policy allows, records every attempt with what the receiver
// answered, and schedules retries with exponential backoff and jitter.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type HostResolver, WEBHOOK_RETRY, type RetrySchedule, nextRetryDelayMs } from '@pits/domain';
import { type ClaimedDelivery, type CredentialCipher, type Database, claimDueDeliveries, isDatabaseUnavailable, recordDeliveryAttempt } from '@pits/persistence';
import { type DeliveryLogFields, type DeliveryOutcome, sendDelivery, systemHostResolver } from '@pits/service-runtime';
import type { Logger } from 'pino';
import type { WebhookMetrics } from './webhook-metrics.js';

export interface WebhookWorkerOptions {
  database: Database;
  cipher: CredentialCipher;
  /** The few logger methods the worker uses; a pino `Logger` fits. */
  logger: Pick<Logger, 'info' | 'warn' | 'error'>;
  workerId?: string;
  /** Deliveries claimed per round. */
  batchSize?: number;
  /** Deliveries in flight at once. */
  concurrency?: number;
  /** How long a claim holds; longer than the request timeout so no claim runs out mid-request. */
  leaseMs?: number;
  /** Per-request timeout. */
  timeoutMs?: number;
  /** Pause when nothing is due. */
  pollMs?: number;
  retry?: RetrySchedule;
  /** WEBHOOK_ALLOW_PRIVATE_URLS: also deliver over http:// and to private, loopback... addresses. Off by default. */
  allowPrivateUrls?: boolean;
  /** How host names are resolved before each delivery (tests map names to addresses); the system resolver by default. */
  resolveHost?: HostResolver;
  now?: () => Date;
  random?: () => number;
  /** Counts and times each attempt by outcome (metrics); nothing when absent. */
  metrics?: WebhookMetrics;
}

export interface WebhookWorker {
  readonly workerId: string;
  /** Claims and sends one round; returns how many deliveries it handled. */
  runOnce(): Promise<number>;
  start(): void;
  /** Finishes the round in flight and stops. */
  stop(): Promise<void>;
}

/** The longest pause between rounds while they keep failing. */
const BACKOFF_MAX_MS = 5000;

export function createWebhookWorker(options: WebhookWorkerOptions): WebhookWorker {
  const workerId = options.workerId ?? `worker-${randomUUID()}`;
  const batchSize = options.batchSize ?? 50;
  const concurrency = options.concurrency ?? 16;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const leaseMs = options.leaseMs ?? Math.max(30_000, timeoutMs * 3);
  const pollMs = options.pollMs ?? 100;
  const retry = options.retry ?? WEBHOOK_RETRY;
  const now = options.now ?? (() => new Date());
  const random = options.random ?? Math.random;
  const policy = { allowPrivate: options.allowPrivateUrls ?? false };
  const resolve = options.resolveHost ?? systemHostResolver();
  const { database, cipher, logger } = options;

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const attempt = await sendDelivery(delivery, { timeoutMs, policy, resolve, now, logger });
    const { startedAt, durationMs, succeeded, error, statusCode } = attempt;
    const delay = succeeded ? null : nextRetryDelayMs(delivery.attempts + 1, random(), retry);
    const recorded = await recordDeliveryAttempt(database, delivery, workerId, {
      ...attempt,
      retryAt: delay === null ? null : new Date(startedAt.getTime() + durationMs + delay),
    });
    const outcome: DeliveryOutcome = !recorded ? 'lease_lost' : succeeded ? 'delivered' : delay !== null ? 'retrying' : 'failed';
    options.metrics?.attempted(outcome, durationMs / 1000);
    // One line per attempt, successful ones included, in the shared log schema.
    const line: DeliveryLogFields & { error: string | null; worker_id: string } = {
      event_id: delivery.eventId,
      endpoint_id: delivery.endpointId,
      delivery_id: delivery.id,
      attempt: delivery.attempts + 1,
      status: statusCode,
      duration_ms: durationMs,
      outcome,
      error,
      worker_id: workerId,
    };
    // A failed attempt is something an operator may have to act on (a receiver down or refusing),
    // so it is a warning; a delivered one is routine.
    if (!recorded) logger.warn(line, 'webhook delivery lease was lost before its attempt was recorded');
    else if (succeeded) logger.info(line, 'webhook delivered');
    else logger.warn(line, 'webhook delivery failed');
  }

  async function runOnce(): Promise<number> {
    const claimed = await claimDueDeliveries(database, cipher, workerId, { limit: batchSize, leaseMs, now: now() });
    for (let i = 0; i < claimed.length; i += concurrency) {
      await Promise.all(claimed.slice(i, i + concurrency).map(deliver));
    }
    return claimed.length;
  }

  let running = false;
  let loop: Promise<void> | undefined;
  const wake = new AbortController();
  return {
    workerId,
    runOnce,
    start() {
      if (running) return;
      running = true;
      loop = (async () => {
        // Consecutive failed rounds (the database unreachable, most likely) back off
        // exponentially up to BACKOFF_MAX_MS, logged once when it starts and once when it ends.
        let failures = 0;
        while (running) {
          let handled = 0;
          let pause = pollMs;
          try {
            handled = await runOnce();
            if (failures > 0) logger.info({ worker_id: workerId, failed_rounds: failures }, 'webhook worker resumed');
            failures = 0;
          } catch (error) {
            failures += 1;
            pause = Math.min(pollMs * 2 ** failures, BACKOFF_MAX_MS);
            const reason = (error as Error).message;
            if (failures === 1) {
              if (isDatabaseUnavailable(error)) logger.warn({ worker_id: workerId, reason }, 'webhook worker: the database is unavailable; backing off');
              else logger.error({ err: error, worker_id: workerId }, 'webhook worker round failed; backing off');
            }
          }
          if ((handled === 0 || failures > 0) && running) await sleep(pause, undefined, { signal: wake.signal }).catch(() => undefined);
        }
      })();
    },
    async stop() {
      running = false;
      wake.abort();
      await loop;
    },
  };
}
