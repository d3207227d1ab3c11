import type { Generated } from 'kysely';

export type ReservationStatusColumn = 'active' | 'consumed' | 'released' | 'expired';

/** An order hold (docs/holds.md). At most one active hold per (tenant, reference). */
export interface ReservationTable {
  id: Generated<number>;
  tenant_id: string;
  partner_id: number;
  /** RSV-YYYYMMDD-NNNNNN, the public id. */
  number: string;
  /** The partner's order id. */
  reference: string;
  location_id: number;
  status: ReservationStatusColumn;
  /** Judged against the database's clock, never a process's. */
  expires_at: string;
  consumed_at: string | null;
  /** When a hold was released or expired. */
  released_at: string | null;
  release_reason: string | null;
  /** Actor snapshot `{id, name, email}` as JSON. */
  created_by: string;
  created_at: string;
  updated_at: string;
}

export interface ReservationItemTable {
  id: Generated<number>;
  reservation_id: number;
  line_no: number;
  product_id: number;
  sku: string;
  product_name: string;
  /** Scaled by 10^4: what the line holds while active. */
  quantity: number;
  consumed_quantity: number;
  /** 1 when the line took lots (lot_allocations), migration 011. */
  has_lots: Generated<number>;
}
