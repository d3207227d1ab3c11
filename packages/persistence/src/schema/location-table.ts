import type { Generated } from 'kysely';

export interface LocationTable {
  id: Generated<number>;
  tenant_id: string;
  code: string;
  name: string;
  type: string;
  address: string;
  city: string;
  state: string;
  zip: string;
  subdistrict: string;
  country: string;
  pic_name: string;
  phone: string;
  latitude: string;
  longitude: string;
  is_default: 0 | 1;
  is_pickup: 0 | 1;
  is_return: 0 | 1;
  status: string;
  origin_code: string | null;
  /** The grid received goods are put on when a receipt names none. */
  receiving_grid: string;
  created_by: string;
  updated_by: string;
  deleted_by: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}
