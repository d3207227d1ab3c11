// The webhook delivery worker: claims due deliveries (leased, so several workers never send the
// same one at once and a dead worker's deliveries come back), POSTs each signed event with a
// timeout, records every attempt, and schedules retries with exponential backoff and jitter.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { WEBHOOK_HEADERS, WEBHOOK_RETRY, type RetrySchedule, nextRetryDelayMs, signWebhook } from '@pits/domain';
import { type ClaimedDelivery, type CredentialCipher, type Database, claimDueDeliveries, recordDeliveryAttempt } from '@pits/persistence';
import type { GatewayLogger } from '../http/index.js';

export interface WebhookWorkerOptions {
  database: Database;
  cipher: CredentialCipher;
  logger: GatewayLogger;
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
  now?: () => Date;
  random?: () => number;
}

export interface WebhookWorker {
  readonly workerId: string;
  /** Claims and sends one round; returns how many deliveries it handled. */
  runOnce(): Promise<number>;
  start(): void;
  /** Finishes the round in flight and stops. */
  stop(): Promise<void>;
}

const DESCRIBE_MAX = 300;

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
  const { database, cipher, logger } = options;

  async function deliver(delivery: ClaimedDelivery): Promise<void> {
    const startedAt = now();
    const timestamp = Math.floor(startedAt.getTime() / 1000);
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(timeoutMs),
        headers: {
          'Content-Type': 'application/json',
          'User-Agent': 'pits-webhooks/1',
          [WEBHOOK_HEADERS.id]: delivery.eventId,
          [WEBHOOK_HEADERS.timestamp]: String(timestamp),
          [WEBHOOK_HEADERS.signature]: signWebhook(delivery.secret, timestamp, delivery.payload),
        },
        body: delivery.payload,
      });
      statusCode = response.status;
      await response.body?.cancel().catch(() => undefined);
      if (statusCode < 200 || statusCode >= 300) error = `HTTP ${statusCode}`;
    } catch (caught) {
      const e = caught as Error & { cause?: { code?: string } };
      error = (e.name === 'TimeoutError' ? `timeout after ${timeoutMs} ms` : (e.cause?.code ?? e.message)).slice(0, DESCRIBE_MAX);
    }
    const durationMs = Math.max(0, now().getTime() - startedAt.getTime());
    const succeeded = error === null;
    const delay = succeeded ? null : nextRetryDelayMs(delivery.attempts + 1, random(), retry);
    const recorded = await recordDeliveryAttempt(database, delivery, workerId, {
      startedAt,
      durationMs,
      statusCode,
      error,
      succeeded,
      retryAt: delay === null ? null : new Date(startedAt.getTime() + durationMs + delay),
    });
    if (!recorded) logger.warn({ delivery: delivery.id, workerId }, 'webhook delivery lease was lost before its attempt was recorded');
    else if (!succeeded) logger.info({ delivery: delivery.id, attempt: delivery.attempts + 1, error, retry: delay !== null }, 'webhook delivery failed');
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
        while (running) {
          let handled = 0;
          try {
            handled = await runOnce();
          } catch (error) {
            logger.error({ err: (error as Error).message, workerId }, 'webhook worker round failed');
          }
          if (handled === 0 && running) await sleep(pollMs, undefined, { signal: wake.signal }).catch(() => undefined);
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
