export type InstallationType = 'custom' | 'marketplace';

export interface InstallationTable {
  /** UUID, `id` of the tenant installation resource. */
  id: string;
  partner_id: number;
  tenant_id: string;
  installation_type: InstallationType;
  days_connected: number;
  installed_at: string;
  uninstall_at: string | null;
  uninstall_reason: string | null;
  created_at: string;
  updated_at: string;
}
