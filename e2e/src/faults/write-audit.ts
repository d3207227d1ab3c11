// What the database says about the writes a scenario sent, read over the test's own connection:
// no acknowledged write lost, none applied twice, none half-applied. A create is found by the
// marker in its `reason` (one per Idempotency-Key), an approval by its adjustment's status and the
// ledger rows that adjustment caused.
import type { Database } from '@pits/persistence';
import { type WriteIntent, acknowledged } from './traffic-generator.js';

export interface WriteAudit {
  /** Acknowledged (2xx) writes whose effect is not in the database. */
  lost: string[];
  /** Keys that made more than one adjustment, and adjustments with more ledger rows than one approval writes. */
  doubled: string[];
  /** Adjustments whose status and ledger rows disagree: approved without them, or not approved with some. */
  halfApplied: string[];
  /** Writes that never got a 2xx, even when retried with their key after the fault. */
  unresolved: string[];
}

/**
 * Audits `writes` (their adjustments all carry `marker`s starting with `markerPrefix`) against
 * the tenant's adjustments and ledger.
 *
 * @example
 * const audit = await auditWrites(stack.inspector, stack.tenant, 'fault-suite outage-', traffic.writes);
 * expect(audit.lost).toEqual([]);
 */
export async function auditWrites(inspector: Database, tenantId: string, markerPrefix: string, writes: readonly WriteIntent[]): Promise<WriteAudit> {
  const db = inspector.db;
  const adjustments = await db
    .selectFrom('adjustments')
    .select(['number', 'reason', 'status', 'item_count'])
    .where('tenant_id', '=', tenantId)
    .where('reason', 'like', `${markerPrefix}%`)
    .execute();
  const ledger = await db
    .selectFrom('stock_ledger')
    .select((eb) => ['cause_id', eb.fn.countAll<number | string | bigint>().as('rows')])
    .where('tenant_id', '=', tenantId)
    .where('cause_type', '=', 'adjustment')
    .groupBy('cause_id')
    .execute();
  const ledgerRows = new Map(ledger.map((r) => [r.cause_id, Number(r.rows)]));
  const byReason = new Map<string, typeof adjustments>();
  for (const row of adjustments) byReason.set(row.reason, [...(byReason.get(row.reason) ?? []), row]);
  const byNumber = new Map(adjustments.map((row) => [row.number, row]));

  const audit: WriteAudit = { lost: [], doubled: [], halfApplied: [], unresolved: [] };
  for (const write of writes) {
    if (!acknowledged(write)) audit.unresolved.push(`${write.op} ${write.key}: ${write.attempts.map((a) => a.status).join(',')}`);
    if (write.op === 'create') {
      const made = byReason.get(write.marker ?? '') ?? [];
      if (made.length > 1) audit.doubled.push(`create ${write.key} made ${made.length} adjustments (${made.map((m) => m.number).join(', ')})`);
      if (acknowledged(write) && !made.some((m) => m.number === write.number)) {
        audit.lost.push(`create ${write.key} was answered 2xx with ${write.number ?? '(no number)'}, but the database has ${made.map((m) => m.number).join(', ') || 'nothing'}`);
      }
    } else {
      const target = byNumber.get(write.number ?? '');
      if (acknowledged(write) && target?.status !== 'approved') audit.lost.push(`approve ${write.key} of ${write.number} was answered 2xx, but the adjustment is ${target?.status ?? 'missing'}`);
    }
  }
  for (const row of adjustments) {
    const rows = ledgerRows.get(row.number) ?? 0;
    const expected = row.status === 'approved' ? row.item_count : 0;
    if (rows > expected && row.status === 'approved') audit.doubled.push(`${row.number}: ${rows} ledger rows for ${row.item_count} line(s)`);
    else if (rows !== expected) audit.halfApplied.push(`${row.number}: ${row.status} with ${rows} ledger row(s), ${expected} expected`);
  }
  return audit;
}
