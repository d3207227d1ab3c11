// The "Receiving webhooks" chapter of /docs: headers, how to verify a signature, and the retry
// schedule, generated from the same constants the worker uses.
import { WEBHOOK_HEADERS, WEBHOOK_RETRY, nextRetryDelayMs } from '@pits/domain';
import type { DocsSection } from './docs-page.js';

function human(ms: number): string {
  if (ms < 60_000) return `${ms / 1000} s`;
  if (ms < 3_600_000) return `${(ms / 60_000).toFixed(ms % 60_000 ? 1 : 0)} min`;
  return `${(ms / 3_600_000).toFixed(ms % 3_600_000 ? 1 : 0)} h`;
}

export function webhookGuide(): DocsSection {
  const delays: string[] = [];
  for (let attempt = 1; attempt < WEBHOOK_RETRY.maxAttempts; attempt += 1) delays.push(human(nextRetryDelayMs(attempt, 0)!));
  return {
    id: 'receiving-webhooks',
    title: 'Receiving webhooks',
    html: `
<p>Register an endpoint with <code>POST /api/partner/v1/webhooks</code>; keep the <code>signing_secret</code> of the response, it is shown once.
Each event is a JSON <code>POST</code> with <code>event_id</code>, <code>type</code>, <code>occurred_at</code>, <code>tenant_id</code>, <code>resource</code> and <code>data</code>, and these headers:</p>
<ul>
<li><code>${WEBHOOK_HEADERS.id}</code>: the event_id (deduplicate on it: a delivery can arrive again after a timeout)</li>
<li><code>${WEBHOOK_HEADERS.timestamp}</code>: Unix seconds when it was sent</li>
<li><code>${WEBHOOK_HEADERS.signature}</code>: <code>v1=</code> and the hex HMAC-SHA256 of <code>&lt;timestamp&gt;.&lt;raw body&gt;</code> keyed with the signing secret</li>
</ul>
<p>To verify: take the raw body bytes as received (before any JSON parsing), compute the HMAC of <code>timestamp + "." + body</code>, compare it with the header in constant time, and refuse timestamps more than 5 minutes from your clock. Answer 2xx within 10 seconds; anything else, or no answer, is retried.</p>
<pre>import { createHmac, timingSafeEqual } from 'node:crypto';

function verify(secret, timestamp, signature, rawBody) {
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) &gt; 300) return false;
  const expected = 'v1=' + createHmac('sha256', secret).update(timestamp + '.' + rawBody).digest('hex');
  return expected.length === signature.length &amp;&amp; timingSafeEqual(Buffer.from(expected), Buffer.from(signature));
}</pre>
<p>Retries: at most ${WEBHOOK_RETRY.maxAttempts} attempts. After a failed attempt the next waits ${delays.join(', ')} (each stretched at random by up to ${WEBHOOK_RETRY.jitter * 100}%). Then the delivery is marked failed; <code>GET /api/partner/v1/webhooks/deliveries</code> lists deliveries with every attempt, and <code>POST /api/partner/v1/webhooks/deliveries/{id}/redeliver</code> sends one again.</p>
<p>Events: <code>inbound.status_changed</code> (pending to partial, received or cancelled), <code>adjustment.status_changed</code> (approved, rejected) and <code>transfer.status_changed</code> (approved, rejected, in_transit, completed). A slow or unreachable endpoint never slows or fails the API call that caused the event: events are written with the change and sent afterwards by the delivery workers.</p>`,
  };
}
