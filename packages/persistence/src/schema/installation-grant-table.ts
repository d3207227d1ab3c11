/** A merchant's consent: the tenant lets this partner connect (docs/identity-and-consent.md#consent-and-installations). One row per tenant and partner. */
export interface InstallationGrantTable {
  tenant_id: string;
  partner_id: number;
  granted_at: string;
  /** Set while the grant is withdrawn; cleared by a new grant. */
  withdrawn_at: string | null;
  withdraw_reason: string | null;
  created_at: string;
  updated_at: string;
}
