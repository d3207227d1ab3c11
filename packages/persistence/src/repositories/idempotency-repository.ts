// Idempotency records: the first request with a partner's key claims it; a repeat replays the
// stored response. Claims are atomic across processes through the (partner_id, key) primary key.
import { isUniqueViolation } from '../dialect.js';
import { type Scope, withTransaction } from '../transaction.js';

export type IdempotencyClaim =
  | { state: 'new' }
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
      let query = tx.db.selectFrom('idempotency_records').selectAll().where('partner_id', '=', partnerId).where('key', '=', key);
      if (tx.dialect === 'postgres') query = query.forUpdate();
      const row = await query.executeTakeFirst();
      const claim = {
        fingerprint,
        state: 'in_progress' as const,
        status_code: null,
        response_body: null,
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + timings.ttlMs).toISOString(),
      };
      if (!row) {
        await tx.db.insertInto('idempotency_records').values({ partner_id: partnerId, key, ...claim }).execute();
        return { state: 'new' };
      }
      const expired = Date.parse(row.expires_at) <= now;
      const deadClaim = row.state === 'in_progress' && now - Date.parse(row.created_at) >= timings.claimLeaseMs;
      if (expired || deadClaim) {
        await tx.db.updateTable('idempotency_records').set(claim).where('partner_id', '=', partnerId).where('key', '=', key).execute();
        return { state: 'new' };
      }
      if (row.fingerprint !== fingerprint) return { state: 'mismatch' };
      if (row.state === 'in_progress') return { state: 'in_progress' };
      return { state: 'replay', status: row.status_code ?? 200, body: JSON.parse(row.response_body ?? 'null') as unknown };
    });
  try {
    return await attempt();
  } catch (error) {
    // Two first claims raced to insert; the loser now sees the winner's row.
    if (isUniqueViolation(error)) return attempt();
    throw error;
  }
}

/** Stores the response of a claimed key. */
export async function completeIdempotencyKey(scope: Scope, partnerId: number, key: string, status: number, body: unknown): Promise<void> {
  await scope.db
    .updateTable('idempotency_records')
    .set({ state: 'complete', status_code: status, response_body: JSON.stringify(body) })
    .where('partner_id', '=', partnerId)
    .where('key', '=', key)
    .execute();
}

/** Releases an unfinished claim so the request can be retried with the same key. */
export async function abandonIdempotencyKey(scope: Scope, partnerId: number, key: string): Promise<void> {
  await scope.db
    .deleteFrom('idempotency_records')
    .where('partner_id', '=', partnerId)
    .where('key', '=', key)
    .where('state', '=', 'in_progress')
    .execute();
}

/** Deletes expired records; returns how many. Run periodically. */
export async function purgeExpiredIdempotencyKeys(scope: Scope, now: number): Promise<number> {
  const result = await scope.db.deleteFrom('idempotency_records').where('expires_at', '<=', new Date(now).toISOString()).executeTakeFirst();
  return Number(result.numDeletedRows);
}
