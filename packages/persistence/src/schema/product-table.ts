import type { Generated } from 'kysely';

export interface ProductTable {
  id: Generated<number>;
  tenant_id: string;
  category_id: number;
  name: string;
  sku: string;
  barcode: string;
  description: string;
  brand: string | null;
  product_type: string;
  /** Money and dimensions: decimal strings. */
  published_price: string;
  cost_price: string;
  weight: string;
  width: string;
  height: string;
  length: string;
  status: string;
  is_bundle: 0 | 1;
  is_managed_by_fulfillment: 0 | 1;
  advance_qc: 0 | 1;
  production_batch: 0 | 1;
  cold_storage: 0 | 1;
  fulfillment_manage_by: string | null;
  outbound_expired: number;
  inbound_expired: number;
  outer_barcode: string | null;
  created_by: string;
  updated_by: string;
  deleted_by: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}
