export interface StockLevelTable {
  tenant_id: string;
  location_id: number;
  product_id: number;
  /** Quantities scaled by 10^4; CHECKs keep them >= 0 and reserved <= good. */
  good: number;
  damaged: number;
  reserved: number;
  updated_at: string;
}
