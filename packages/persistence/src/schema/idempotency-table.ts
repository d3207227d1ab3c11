export interface IdempotencyRecordTable {
  partner_id: number;
  key: string;
  fingerprint: string;
  state: 'in_progress' | 'complete';
  status_code: number | null;
  response_body: string | null;
  created_at: string;
  expires_at: string;
  /** Known only to the request holding an unfinished claim; completing the claim requires it. */
  claim_token: string | null;
}
