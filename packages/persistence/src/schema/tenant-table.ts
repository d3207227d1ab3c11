export interface TenantTable {
  /** UUID. */
  id: string;
  name: string;
  tenant_type: string;
  created_at: string;
  updated_at: string;
}
