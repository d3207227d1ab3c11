// Kept list totals: how many documents a tenant has in each combination of the values its list
// filters take (see repositories/list-count-repository.ts). One table per list.

export interface AdjustmentListCountTable {
  tenant_id: string;
  status: 'pending' | 'approved' | 'rejected';
  location_id: number;
  type: 'increase' | 'decrease';
  count: number;
}

export interface TransferListCountTable {
  tenant_id: string;
  status: 'pending' | 'approved' | 'rejected' | 'in_transit' | 'completed';
  from_location_id: number;
  to_location_id: number;
  count: number;
}

export interface InboundListCountTable {
  tenant_id: string;
  status: 'pending' | 'partial' | 'received' | 'cancelled';
  location_id: number;
  count: number;
}
