// Webhook delivery rules: how a payload is signed, and when a failed delivery is tried again.
// Pure: the caller passes the secret, the time and the random jitter.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Header names of a delivery. */
export const WEBHOOK_HEADERS = {
  id: 'X-Webhook-Id',
  timestamp: 'X-Webhook-Timestamp',
  signature: 'X-Webhook-Signature',
} as const;

/**
 * The signature header value: `v1=` and the hex HMAC-SHA256, keyed by the endpoint's secret, of
 * `<timestamp>.<body>` (timestamp in Unix seconds, body the exact bytes sent).
 *
 * @example signWebhook('whsec_abc', 1795300000, '{"event_id":"…"}') // 'v1=5f2c…'
 */
export function signWebhook(secret: string, timestampSeconds: number, body: string): string {
  return `v1=${createHmac('sha256', secret).update(`${timestampSeconds}.${body}`, 'utf8').digest('hex')}`;
}

/**
 * What a receiver does: recompute and compare in constant time, and refuse a timestamp older
 * than `toleranceSeconds` (replays).
 */
export function verifyWebhook(
  secret: string,
  header: { timestamp: string | undefined; signature: string | undefined },
  body: string,
  nowSeconds: number,
  toleranceSeconds = 300,
): boolean {
  const timestamp = Number(header.timestamp);
  if (!Number.isInteger(timestamp) || Math.abs(nowSeconds - timestamp) > toleranceSeconds || !header.signature) return false;
  const expected = Buffer.from(signWebhook(secret, timestamp, body));
  const given = Buffer.from(header.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** The published retry schedule: attempts and the base delay before each retry. */
export const WEBHOOK_RETRY = {
  maxAttempts: 8,
  /** Base delay after attempt n (1-based): 10 s x 4^(n-1), capped at 6 h. */
  baseDelayMs: 10_000,
  factor: 4,
  maxDelayMs: 6 * 60 * 60 * 1000,
  /** Each delay is stretched by up to this fraction at random, so retries of many events spread out. */
  jitter: 0.2,
} as const;

export interface RetrySchedule {
  maxAttempts: number;
  baseDelayMs: number;
  factor: number;
  maxDelayMs: number;
  jitter: number;
}

/**
 * When to try again after `attempts` failed attempts, or null when no attempt is left.
 * `random` is in [0, 1).
 *
 * @example nextRetryDelayMs(1, 0) === 10_000; nextRetryDelayMs(8, 0.5) === null
 */
export function nextRetryDelayMs(attempts: number, random: number, schedule: RetrySchedule = WEBHOOK_RETRY): number | null {
  if (attempts >= schedule.maxAttempts) return null;
  const base = Math.min(schedule.maxDelayMs, schedule.baseDelayMs * schedule.factor ** (attempts - 1));
  return Math.round(base * (1 + schedule.jitter * random));
}
