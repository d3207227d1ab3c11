import type { Generated } from 'kysely';

export type StockCauseType = 'adjustment' | 'transfer' | 'inbound' | 'reservation' | 'opening' | 'correction';

/** What may change a stock row: a ledger cause, or a lot turning unsellable (no bucket moves). */
export type StockChangeCauseType = StockCauseType | 'lot_expiry';

/** Immutable: one row per change of one bucket. For every stock row, the deltas sum to the balance. */
export interface StockLedgerTable {
  id: Generated<number>;
  tenant_id: string;
  location_id: number;
  product_id: number;
  bucket: 'good' | 'damaged' | 'reserved';
  delta: number;
  quantity_before: number;
  quantity_after: number;
  cause_type: StockCauseType;
  cause_id: string;
  document_number: string | null;
  actor: string;
  occurred_at: string;
  /** The lot the units moved in, for lot-tracked products (migration 011); else null. */
  lot_number: Generated<string | null>;
}
