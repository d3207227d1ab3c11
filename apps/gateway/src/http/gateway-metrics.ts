// The gateway's own metrics, beside the HTTP and database ones every process has: requests the
// rate limits refused, and requests answered from a stored Idempotency-Key response.
import { Counter, type Registry } from '@pits/service-runtime';

export interface GatewayMetrics {
  /** One 429, by the bucket that refused it: `tier`, the operation's name, or `anonymous` (the budget per address without a valid key). */
  rateLimitRefused(limit: string): void;
  idempotencyReplayed(): void;
}

/**
 * @example const gatewayCounts = gatewayMetrics(metrics.registry);
 */
export function gatewayMetrics(registry: Registry): GatewayMetrics {
  const refusals = new Counter({
    name: 'pits_rate_limit_refusals_total',
    help: 'Requests refused 429 by a rate limit, by the limit that refused them: tier (the partner tier), an operation name, or anonymous (requests without a valid key, per client address).',
    labelNames: ['limit'],
    registers: [registry],
  });
  refusals.labels('tier').inc(0);
  refusals.labels('anonymous').inc(0);
  const replays = new Counter({
    name: 'pits_idempotency_replays_total',
    help: 'Requests answered with the stored response of an earlier request with the same Idempotency-Key.',
    registers: [registry],
  });
  return {
    rateLimitRefused: (limit) => refusals.labels(limit).inc(),
    idempotencyReplayed: () => replays.inc(),
  };
}
