// What actually committed, read straight from the database the processes share: the records a
// tenant has (adjustments by their `reason`, transfers by their `reference_number`), the ledger
// rows adjustments caused, and a partner's Idempotency-Key records. Counting here, rather than
// through the API, is what makes "exactly one effect per key" a statement about the database.
import { type Database, createDatabase, parseDatabaseUrl } from '@pits/persistence';

export interface CommittedAdjustment {
  number: string;
  reason: string;
  status: string;
  itemCount: number;
  /** Its lines' product ids. */
  productIds: number[];
}

export interface AdjustmentLedgerRow {
  /** The adjustment's number. */
  causeId: string;
  productId: number;
  bucket: string;
  /** Scaled, as stored; only its sign is used. */
  delta: number;
}

export interface CommittedEffects {
  adjustments: CommittedAdjustment[];
  transfers: { number: string; referenceNumber: string }[];
  ledger: AdjustmentLedgerRow[];
}

export interface IdempotencyRow {
  state: 'in_progress' | 'complete';
  claimToken: string | null;
  /** Epoch milliseconds of the claim. */
  claimedAt: number;
  statusCode: number | null;
}

/** A read-only look at the database behind `databaseUrl` (a DATABASE_URL as the apps get it). */
export interface EffectReader {
  effects(tenantId: string): Promise<CommittedEffects>;
  /** The adjustments of `tenantId` whose reason is `reason`. */
  adjustmentsWithReason(tenantId: string, reason: string): Promise<CommittedAdjustment[]>;
  idempotencyRecord(partnerId: number, key: string): Promise<IdempotencyRow | undefined>;
  close(): Promise<void>;
}

/**
 * @example
 * const reader = openEffectReader(stack.database.url);
 * const { adjustments } = await reader.effects(tenant.id);
 * await reader.close();
 */
export function openEffectReader(databaseUrl: string): EffectReader {
  const config = parseDatabaseUrl(databaseUrl);
  const database: Database = createDatabase(config.dialect === 'postgres' ? { ...config, poolSize: 2, applicationName: `pits-crash-reader-${process.pid}` } : config);
  const { db } = database;

  const adjustments = async (tenantId: string, reason?: string): Promise<CommittedAdjustment[]> => {
    let query = db.selectFrom('adjustments').select(['id', 'number', 'reason', 'status', 'item_count']).where('tenant_id', '=', tenantId);
    if (reason !== undefined) query = query.where('reason', '=', reason);
    const rows = await query.orderBy('id').execute();
    const ids = rows.map((r) => r.id);
    const items = ids.length === 0 ? [] : await db.selectFrom('adjustment_items').select(['adjustment_id', 'product_id']).where('adjustment_id', 'in', ids).execute();
    return rows.map((r) => ({
      number: r.number,
      reason: r.reason,
      status: r.status,
      itemCount: Number(r.item_count),
      productIds: items.filter((i) => Number(i.adjustment_id) === Number(r.id)).map((i) => Number(i.product_id)),
    }));
  };

  return {
    async effects(tenantId) {
      const transfers = await db.selectFrom('transfers').select(['number', 'reference_number']).where('tenant_id', '=', tenantId).execute();
      const ledger = await db
        .selectFrom('stock_ledger')
        .select(['cause_id', 'product_id', 'bucket', 'delta'])
        .where('tenant_id', '=', tenantId)
        .where('cause_type', '=', 'adjustment')
        .execute();
      return {
        adjustments: await adjustments(tenantId),
        transfers: transfers.map((t) => ({ number: t.number, referenceNumber: t.reference_number })),
        ledger: ledger.map((l) => ({ causeId: l.cause_id, productId: Number(l.product_id), bucket: l.bucket, delta: Number(l.delta) })),
      };
    },
    adjustmentsWithReason: (tenantId, reason) => adjustments(tenantId, reason),
    async idempotencyRecord(partnerId, key) {
      const row = await db
        .selectFrom('idempotency_records')
        .select(['state', 'claim_token', 'created_at', 'status_code'])
        .where('partner_id', '=', partnerId)
        .where('key', '=', key)
        .executeTakeFirst();
      if (row === undefined) return undefined;
      return { state: row.state, claimToken: row.claim_token, claimedAt: Date.parse(row.created_at), statusCode: row.status_code === null ? null : Number(row.status_code) };
    },
    close: () => database.destroy(),
  };
}
