import type { Generated } from 'kysely';

export interface TransferTable {
  id: Generated<number>;
  tenant_id: string;
  partner_id: number;
  /** TRF-YYYYMMDD-NNNNNN, the public id. */
  number: string;
  from_location_id: number;
  to_location_id: number;
  transfer_date: string;
  expected_arrival_date: string | null;
  actual_arrival_date: string | null;
  reference_number: string;
  status: 'pending' | 'approved' | 'rejected' | 'in_transit' | 'completed';
  notes: string;
  total_items: number;
  total_quantity: number;
  total_value: string;
  created_by: string;
  approved_at: string | null;
  approved_by: string | null;
  rejected_at: string | null;
  rejected_by: string | null;
  rejection_reason: string | null;
  shipped_at: string | null;
  shipped_by: string | null;
  received_at: string | null;
  received_by: string | null;
  created_at: string;
  updated_at: string;
}

export interface TransferItemTable {
  id: Generated<number>;
  transfer_id: number;
  line_no: number;
  product_id: number;
  product_name: string;
  sku: string;
  quantity: number;
  unit_price: string;
  total_value: string;
  notes: string;
  /** 1 when the line took lots (lot_allocations), migration 011. */
  has_lots: Generated<number>;
  /** The lot the line is pinned to (migration 011); null: first expired, first out. */
  lot_number: Generated<string | null>;
}
