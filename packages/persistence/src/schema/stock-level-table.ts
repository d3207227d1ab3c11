import type { Generated } from 'kysely';

export interface StockLevelTable {
  tenant_id: string;
  location_id: number;
  product_id: number;
  /** Quantities scaled by 10^4; CHECKs keep them >= 0 and reserved <= good. */
  good: number;
  damaged: number;
  reserved: number;
  /** The part of `reserved` order holds keep (docs/holds.md#stock-effect); the rest is approved transfers'. */
  reserved_for_orders: number;
  /** Grows by one with every change of the row's quantities (stock.level_changed carries it). */
  version: number;
  updated_at: string;
  /**
   * The newest ledger row of each bucket (migration 013; null: none yet), set by the statement
   * that writes the levels, so `stock.verify` finds where each ledger ends by primary key.
   */
  good_ledger_id: Generated<number | null>;
  damaged_ledger_id: Generated<number | null>;
  reserved_ledger_id: Generated<number | null>;
}
