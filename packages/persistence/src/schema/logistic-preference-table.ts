import type { Generated } from 'kysely';

export interface LogisticPreferenceTable {
  id: Generated<number>;
  tenant_id: string;
  logistic_provider_id: number;
  logistic_provider_name: string;
  /** JSON object of service type name to boolean. */
  available_service_types: string;
  is_default: 0 | 1;
  is_active: 0 | 1;
  /** Credentials, encrypted at rest (AES-256-GCM envelope text). */
  username_enc: string;
  password_enc: string;
  api_key_enc: string;
  api_secret_enc: string;
  account_id: string | null;
  account_name: string | null;
  created_by: string;
  updated_by: string;
  created_at: string;
  updated_at: string;
}
