// One attempt at one delivery: the signed POST (only where the URL policy allows) and what came of
// it, ready to record. The webhook worker sends every due delivery this way, and the gateway's
// webhook test route its one test event.
import { type HostResolver, WEBHOOK_HEADERS, type WebhookUrlPolicy, signWebhook } from '@pits/domain';
import type { Logger } from 'pino';
import { postWebhook } from './webhook-request.js';

/** What a claimed delivery carries that sending it needs (persistence's `ClaimedDelivery` is one). */
export interface WebhookDelivery {
  id: number;
  eventId: string;
  url: string;
  /** The endpoint's signing secret, decrypted. */
  secret: string;
  payload: string;
}

export interface SendDeliveryOptions {
  timeoutMs: number;
  policy: WebhookUrlPolicy;
  resolve: HostResolver;
  now: () => Date;
  logger: Pick<Logger, 'error'>;
}

/** What one attempt did, as persistence records it; the caller decides whether and when to retry. */
export interface SentAttempt {
  startedAt: Date;
  durationMs: number;
  /** The receiver's status; null when it never answered. */
  statusCode: number | null;
  /** Why it failed (`HTTP 500`, `connection refused`…); null when it succeeded. */
  error: string | null;
  /** At most 1 KiB of the receiver's answer; null when none came. */
  responseBody: string | null;
  succeeded: boolean;
}

/**
 * Sends `delivery` once, signed with its endpoint's secret over the timestamp and body, and
 * reports the receiver's status and at most 1 KiB of its body, or a generic reason. Never throws.
 *
 * @example const attempt = await sendDelivery(delivery, { timeoutMs: 10_000, policy, resolve, now: () => new Date(), logger });
 */
export async function sendDelivery(delivery: WebhookDelivery, options: SendDeliveryOptions): Promise<SentAttempt> {
  const startedAt = options.now();
  const timestamp = Math.floor(startedAt.getTime() / 1000);
  let statusCode: number | null = null;
  let responseBody: string | null = null;
  let error: string | null;
  try {
    const outcome = await postWebhook({
      url: delivery.url,
      headers: {
        'Content-Type': 'application/json',
        'User-Agent': 'pits-webhooks/1',
        [WEBHOOK_HEADERS.id]: delivery.eventId,
        [WEBHOOK_HEADERS.timestamp]: String(timestamp),
        [WEBHOOK_HEADERS.signature]: signWebhook(delivery.secret, timestamp, delivery.payload),
      },
      body: delivery.payload,
      timeoutMs: options.timeoutMs,
      policy: options.policy,
      resolve: options.resolve,
    });
    if (outcome.answered) {
      ({ statusCode, body: responseBody } = outcome);
      error = statusCode >= 200 && statusCode < 300 ? null : `HTTP ${statusCode}`;
    } else {
      error = outcome.reason;
    }
  } catch (caught) {
    // Not expected (postWebhook turns failures into reasons); still an attempt, never a crash.
    options.logger.error({ err: (caught as Error).message, delivery: delivery.id }, 'webhook request failed unexpectedly');
    error = 'connection failed';
  }
  const durationMs = Math.max(0, options.now().getTime() - startedAt.getTime());
  return { startedAt, durationMs, statusCode, error, responseBody, succeeded: error === null };
}
