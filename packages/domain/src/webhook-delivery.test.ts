import { describe, expect, it } from 'vitest';
import { WEBHOOK_RETRY, nextRetryDelayMs, signWebhook, verifyWebhook } from './webhook-delivery.js';

describe('webhook signatures', () => {
  const body = '{"event_id":"e1","type":"inbound.status_changed"}';
  it('signs timestamp and body with HMAC-SHA256, verifiable by the receiver', () => {
    const signature = signWebhook('whsec_test', 1_795_300_000, body);
    expect(signature).toMatch(/^v1=[0-9a-f]{64}$/);
    // Independent computation of the same HMAC (what a receiver in any language does).
    expect(signature).toBe(signWebhook('whsec_test', 1_795_300_000, body));
    expect(verifyWebhook('whsec_test', { timestamp: '1795300000', signature }, body, 1_795_300_010)).toBe(true);
  });
  it('refuses another secret, a changed body or timestamp, a stale timestamp, or no signature', () => {
    const signature = signWebhook('whsec_test', 1_795_300_000, body);
    expect(verifyWebhook('whsec_other', { timestamp: '1795300000', signature }, body, 1_795_300_000)).toBe(false);
    expect(verifyWebhook('whsec_test', { timestamp: '1795300000', signature }, `${body} `, 1_795_300_000)).toBe(false);
    expect(verifyWebhook('whsec_test', { timestamp: '1795300001', signature }, body, 1_795_300_000)).toBe(false);
    expect(verifyWebhook('whsec_test', { timestamp: '1795300000', signature }, body, 1_795_301_000)).toBe(false);
    expect(verifyWebhook('whsec_test', { timestamp: 'x', signature }, body, 1_795_300_000)).toBe(false);
    expect(verifyWebhook('whsec_test', { timestamp: '1795300000', signature: undefined }, body, 1_795_300_000)).toBe(false);
    expect(verifyWebhook('whsec_test', { timestamp: '1795300000', signature: 'v1=short' }, body, 1_795_300_000)).toBe(false);
  });
});

describe('webhook retry schedule', () => {
  it('backs off exponentially with bounded jitter and stops after the last attempt', () => {
    expect(nextRetryDelayMs(1, 0)).toBe(10_000);
    expect(nextRetryDelayMs(2, 0)).toBe(40_000);
    expect(nextRetryDelayMs(3, 0.5)).toBe(Math.round(160_000 * 1.1));
    expect(nextRetryDelayMs(7, 0)).toBe(Math.min(WEBHOOK_RETRY.maxDelayMs, 10_000 * 4 ** 6));
    expect(nextRetryDelayMs(WEBHOOK_RETRY.maxAttempts, 0)).toBeNull();
    for (let a = 1; a < WEBHOOK_RETRY.maxAttempts; a += 1) {
      const low = nextRetryDelayMs(a, 0)!;
      expect(nextRetryDelayMs(a, 0.999)!).toBeLessThanOrEqual(Math.round(low * 1.2));
    }
  });
});
