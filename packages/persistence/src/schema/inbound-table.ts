import type { Generated } from 'kysely';

export interface InboundShipmentTable {
  id: Generated<number>;
  tenant_id: string;
  code: string;
  inbound_date: string;
  source_type: string;
  source_id: number;
  source_code: string;
  location_id: number;
  status: 'pending' | 'partial' | 'received' | 'cancelled';
  received_at: string | null;
  cancelled_at: string | null;
  notes: string;
  created_by: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
}

export interface InboundDetailTable {
  id: Generated<number>;
  inbound_id: number;
  product_id: number;
  expected_quantity: number;
  received_good: number;
  received_damaged: number;
  unit: string;
  unit_price: string;
  notes: string;
  grid_id: string | null;
  received_at: string | null;
  received_by: string | null;
  created_by: string;
  updated_by: string;
  deleted_by: string | null;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
}
