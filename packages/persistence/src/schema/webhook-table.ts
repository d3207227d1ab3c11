import type { Generated } from 'kysely';

export interface WebhookEndpointTable {
  id: Generated<number>;
  partner_id: number;
  url: string;
  /** Signing secret, encrypted at rest. */
  secret_enc: string;
  /** JSON array of event types. */
  event_types: string;
  description: string;
  created_at: string;
  deleted_at: string | null;
  /** Whether new events are delivered to it (paused when 0; migration 009). */
  is_active: Generated<0 | 1>;
  /** When its event types or active flag last changed; null until then (migration 009). */
  updated_at: string | null;
}

/** Events written in the same transaction as the change that caused them. */
export interface EventOutboxTable {
  id: Generated<number>;
  event_id: string;
  partner_id: number;
  tenant_id: string;
  type: string;
  resource_type: string;
  resource_id: string;
  /** The whole event body as JSON. */
  payload: string;
  occurred_at: string;
  dispatched_at: string | null;
}

export interface WebhookDeliveryTable {
  id: Generated<number>;
  event_id: string;
  endpoint_id: number;
  status: 'pending' | 'succeeded' | 'failed';
  attempts: number;
  next_attempt_at: string;
  locked_by: string | null;
  locked_until: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface WebhookDeliveryAttemptTable {
  id: Generated<number>;
  delivery_id: number;
  attempt_no: number;
  started_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  succeeded: 0 | 1;
  /** At most 1 KiB of what the receiver answered; null when no response came (migration 004). */
  response_body: string | null;
}
