import type { Generated } from 'kysely';

export type PartnerTier = 'small' | 'medium' | 'large';

export interface PartnerTable {
  id: Generated<number>;
  name: string;
  email: string;
  tier: PartnerTier;
  /** Public application id and key shown in tenant installations (not secret). */
  app_id: string;
  app_key: string;
  created_at: string;
  updated_at: string;
}
