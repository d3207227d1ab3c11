// Idempotency records. The first request with a partner's key claims it (its own short
// transaction, atomic across processes through the (partner_id, key) primary key) and receives a
// claim token. The response is then stored by `completeIdempotencyKey` inside the transaction of
// the work itself, and only while the token still holds the claim: after any crash either the
// work and its stored response both committed (a retry replays) or neither did (a retry, once the
// dead claim's lease has run out, does the work for the first time). A claim taken over after
// its lease can no longer complete, so it can neither overwrite the newer claim's result nor
// commit its work twice.
import { randomUUID } from 'node:crypto';
import { type ParamRef, preparedQuery } from '../parameterised-query.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { executeTakeFirst, executeWrite } from '../execution/execute.js';

export type IdempotencyClaim =
  | { state: 'new'; token: string }
  | { state: 'replay'; status: number; body: unknown }
  | { state: 'mismatch' }
  | { state: 'in_progress' };

export interface IdempotencyTimings {
  /** How long a finished record replays. */
  ttlMs: number;
  /** After this long an unfinished claim is taken to be dead (its process stopped) and can be claimed again. */
  claimLeaseMs: number;
}

export const DEFAULT_IDEMPOTENCY_TIMINGS: IdempotencyTimings = { ttlMs: 24 * 60 * 60 * 1000, claimLeaseMs: 60_000 };

/**
 * Claims `key` for a request with `fingerprint`, or reports what holds it.
 *
 * @example
 * const claim = await claimIdempotencyKey(db, partnerId, key, fingerprint, Date.now());
 * if (claim.state === 'replay') return claim.body;
 * if (claim.state === 'new') await withTransaction(db, async (tx) => { ...work; await completeIdempotencyKey(tx, partnerId, key, claim.token, 201, body); });
 */
export async function claimIdempotencyKey(
  scope: Scope,
  partnerId: number,
  key: string,
  fingerprint: string,
  now: number,
  timings: IdempotencyTimings = DEFAULT_IDEMPOTENCY_TIMINGS,
): Promise<IdempotencyClaim> {
  const attempt = () =>
    withTransaction(scope, async (tx): Promise<IdempotencyClaim> => {
      const row = await executeTakeFirst(tx, tx.dialect.lockRows(tx.db.selectFrom('idempotency_records').selectAll().where('partner_id', '=', partnerId).where('key', '=', key)));
      const token = randomUUID();
      const claim = {
        fingerprint,
        state: 'in_progress' as const,
        status_code: null,
        response_body: null,
        claim_token: token,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + timings.ttlMs).toISOString(),
      };
      if (!row) {
        await executeWrite(tx, tx.db.insertInto('idempotency_records').values({ partner_id: partnerId, key, ...claim }));
        return { state: 'new', token };
      }
      const expired = Date.parse(row.expires_at) <= now;
      const deadClaim = row.state === 'in_progress' && now - Date.parse(row.created_at) >= timings.claimLeaseMs;
      if (expired || deadClaim) {
        await executeWrite(tx, tx.db.updateTable('idempotency_records').set(claim).where('partner_id', '=', partnerId).where('key', '=', key));
        return { state: 'new', token };
      }
      if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
      if (row.state === 'in_progress') return { state: 'in_progress' };
      return { state: 'replay', status: row.status_code ?? 200, body: JSON.parse(row.response_body ?? 'null') as unknown };
    });
  try {
    return await attempt();
  } catch (error) {
    // Two first claims raced to insert; the loser now sees the winner's row.
    if (scope.dialect.errors.isUniqueViolation(error)) return attempt();
    throw error;
  }
}

const completeClaim = preparedQuery({
  build: (scope, param: ParamRef<{ partnerId: number; key: string; token: string; status: number; body: string }>) =>
    scope.db
      .updateTable('idempotency_records')
      .set({ state: 'complete', status_code: param('status'), response_body: param('body'), claim_token: null })
      .where('partner_id', '=', param('partnerId'))
      .where('key', '=', param('key'))
      .where('claim_token', '=', param('token'))
      .where('state', '=', 'in_progress'),
});

/**
 * Stores the response of a claim still held with `token`; false (nothing written) when the claim
 * was taken over. Call it in the transaction of the work the response describes, and roll that
 * transaction back on false: then the work and its response commit together or not at all.
 */
export async function completeIdempotencyKey(scope: Tx | Scope, partnerId: number, key: string, token: string, status: number, body: unknown): Promise<boolean> {
  const result = await executeWrite(scope, completeClaim.with({ partnerId, key, token, status, body: JSON.stringify(body) }));
  return result.affectedRows === 1;
}

/** Releases an unfinished claim still held with `token`, so the request can be retried with the same key at once. */
export async function abandonIdempotencyKey(scope: Scope, partnerId: number, key: string, token: string): Promise<void> {
  await executeWrite(scope, scope.db
    .deleteFrom('idempotency_records')
    .where('partner_id', '=', partnerId)
    .where('key', '=', key)
    .where('claim_token', '=', token)
    .where('state', '=', 'in_progress'));
}
