import type { Generated } from 'kysely';

export interface AdjustmentTable {
  id: Generated<number>;
  tenant_id: string;
  partner_id: number;
  /** ADJ-YYYYMMDD-NNNNNN, the public id. */
  number: string;
  location_id: number;
  type: 'increase' | 'decrease';
  stock_source: 'good' | 'damaged';
  reason: string;
  status: 'pending' | 'approved' | 'rejected';
  total_amount: string;
  item_count: number;
  /** Actor snapshots `{id, name, email}` as JSON. */
  created_by: string;
  approved_at: string | null;
  approved_by: string | null;
  rejected_at: string | null;
  rejected_by: string | null;
  rejection_reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface AdjustmentItemTable {
  id: Generated<number>;
  adjustment_id: number;
  line_no: number;
  product_id: number;
  product_name: string;
  sku: string;
  /** The line's direction (migration 006): its adjustment's type, or for a stock count this line's sign. */
  type: 'increase' | 'decrease';
  quantity: number;
  unit_cost: string;
  total_cost: string;
  notes: string;
  /** The lot the line names (lot-tracked products), migration 011. */
  lot_id: Generated<number | null>;
}
