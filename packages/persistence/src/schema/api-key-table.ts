import type { Generated } from 'kysely';

export interface ApiKeyTable {
  id: Generated<number>;
  partner_id: number;
  /** `pk_live_` or `pk_test_`. */
  prefix: string;
  /** SHA-256 hex of the whole secret; the secret itself is never stored. */
  key_hash: string;
  last4: string;
  label: string;
  created_at: string;
  revoked_at: string | null;
}
