import type { Generated } from 'kysely';

/** A tenant's lot of a product (docs/lots.md): unique per (product, lot number); its dates never change. */
export interface LotTable {
  id: Generated<number>;
  tenant_id: string;
  product_id: number;
  lot_number: string;
  /** `YYYY-MM-DD` (a WIB day); null for a lot without one, such as LEGACY. */
  expiry_date: string | null;
  production_date: string | null;
  /** First WIB day the lot is not sellable, from the product's outbound_expired; null: never. */
  unsellable_from: string | null;
  /** First WIB day its stock.lot_expiring is due (7 days before `unsellable_from`). */
  expiring_from: string | null;
  created_at: string;
}

/** A lot's units at a location. Quantities scaled by 10^4; CHECKs keep them >= 0 and reserved <= good. */
export interface LotStockTable {
  id: Generated<number>;
  tenant_id: string;
  location_id: number;
  product_id: number;
  lot_id: number;
  good: number;
  damaged: number;
  reserved: number;
  /** 1 once stock.lot_expiring was sent for the lot here. */
  expiring_sent: number;
  /** 1 once the lot's turning unsellable here was sent as stock.level_changed. */
  unsellable_sent: number;
  updated_at: string;
}

/** Units of a lot that a hold line or a transfer line took, in the order they were taken. */
export interface LotAllocationTable {
  id: Generated<number>;
  tenant_id: string;
  document: 'reservation' | 'transfer';
  /** reservation_items.id or transfer_items.id. */
  item_id: number;
  seq: number;
  lot_id: number;
  quantity: number;
}

/** Days the service's calendar is moved by (tests only; no row: 0). */
export interface CalendarShiftTable {
  id: number;
  days: number;
}
