// One log schema for every process: the field names a request, a procedure call, a webhook
// delivery and an import summary are logged under, defined once here so the gateway, the internal
// API, the webhook worker and the importer cannot drift apart. Log search and dashboards rely on
// these names; renaming one is a breaking change for operators.
import { hostname } from 'node:os';
import { type DestinationStream, type Logger, pino } from 'pino';
import type { LogLevel } from './process-settings.js';

/** The processes of the service, as the `app` field (and the `app` metric label) names them. */
export type AppName = 'gateway' | 'internal-api' | 'webhook-worker' | 'importer';

/** What every finished request (gateway) or procedure call (internal API) logs. */
export interface RequestLogFields {
  /** Fresh per request; the gateway also sends it as `X-Request-Id` and in every envelope. */
  request_id: string;
  method: string;
  /** The route template (`/api/partner/v1/areas/:id`) or tRPC procedure path; `unmatched` when none matched. */
  route: string;
  status: number;
  /** Milliseconds, three decimals. */
  duration_ms: number;
  partner_id: number | null;
  tenant_id: string | null;
  /** From a valid W3C `traceparent` header; null without one. */
  trace_id: string | null;
  /** The caller's span (the parent id of `traceparent`); null without one. */
  parent_span_id: string | null;
  /**
   * The code of the error the request was answered with (gateway: the envelope's `error.code`,
   * `NOT_FOUND`; internal API: the tRPC code, `BAD_REQUEST`); null for an answer that is no error.
   * Handed over by whatever wrote the error, never read back from the body.
   */
  error_code: string | null;
}

/** What every webhook delivery attempt logs, successful or not. */
export interface DeliveryLogFields {
  event_id: string;
  endpoint_id: number;
  delivery_id: number;
  /** 1 for the first attempt. */
  attempt: number;
  /** The receiver's HTTP status; null when it never answered. */
  status: number | null;
  duration_ms: number;
  outcome: DeliveryOutcome;
}

/**
 * How one delivery attempt ended: `delivered` (2xx), `retrying` (failed, will be sent again),
 * `failed` (failed for good), `lease_lost` (its claim ran out before the attempt was recorded;
 * another worker sends it again).
 */
export type DeliveryOutcome = 'delivered' | 'retrying' | 'failed' | 'lease_lost';
export const DELIVERY_OUTCOMES: readonly DeliveryOutcome[] = ['delivered', 'retrying', 'failed', 'lease_lost'];

/** The value of `route` (log field and metric label) when no route or procedure matched. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The field names of a request line, in the order they are documented. */
export const REQUEST_LOG_FIELDS = [
  'request_id',
  'method',
  'route',
  'status',
  'duration_ms',
  'partner_id',
  'tenant_id',
  'trace_id',
  'parent_span_id',
  'error_code',
] as const satisfies readonly (keyof RequestLogFields)[];

/** The field names of a delivery line. */
export const DELIVERY_LOG_FIELDS = [
  'event_id',
  'endpoint_id',
  'delivery_id',
  'attempt',
  'status',
  'duration_ms',
  'outcome',
] as const satisfies readonly (keyof DeliveryLogFields)[];

/** A duration in milliseconds as logged: three decimals. */
export function durationMs(startedMs: number, endedMs: number): number {
  return Math.round((endedMs - startedMs) * 1000) / 1000;
}

/** The keys every log line of every process starts with, in this order (then the line's own fields). */
export const BASE_LOG_FIELDS = ['level', 'time', 'app', 'pid', 'hostname', 'msg'] as const;

/**
 * The process's JSON logger: every line carries `app`, `pid`, `hostname`, `time`, `level` and `msg`.
 * `base` replaces pino's default bindings, so `hostname` is named here (pino adds it only when
 * `base` is left out).
 *
 * @example const logger = createProcessLogger('gateway', config.logLevel);
 */
export function createProcessLogger(app: AppName, level: LogLevel, destination?: DestinationStream): Logger {
  const options = { level, base: { app, pid: process.pid, hostname: hostname() } };
  return destination ? pino(options, destination) : pino(options);
}
