// The database type: one interface per table, merged here.
import type { AdjustmentItemTable, AdjustmentTable } from './adjustment-table.js';
import type { ApiKeyTable } from './api-key-table.js';
import type { AreaTable } from './area-table.js';
import type { AreaRegionTable } from './area-region-table.js';
import type { DocumentSequenceTable } from './document-sequence-table.js';
import type { IdempotencyRecordTable } from './idempotency-table.js';
import type { InboundDetailTable, InboundShipmentTable } from './inbound-table.js';
import type { InstallationTable } from './installation-table.js';
import type { InstallationGrantTable } from './installation-grant-table.js';
import type { AdjustmentListCountTable, InboundListCountTable, TransferListCountTable } from './list-count-table.js';
import type { LocationTable } from './location-table.js';
import type { CalendarShiftTable, LotAllocationTable, LotStockTable, LotTable } from './lot-table.js';
import type { LogisticPreferenceTable } from './logistic-preference-table.js';
import type { PartnerTable } from './partner-table.js';
import type { ProductTable } from './product-table.js';
import type { ReservationItemTable, ReservationTable } from './reservation-table.js';
import type { StockLedgerTable } from './stock-ledger-table.js';
import type { StockLevelTable } from './stock-level-table.js';
import type { TenantTable } from './tenant-table.js';
import type { TransferItemTable, TransferTable } from './transfer-table.js';
import type {
  EventOutboxTable,
  WebhookDeliveryAttemptTable,
  WebhookDeliveryTable,
  WebhookEndpointTable,
} from './webhook-table.js';

export interface DB {
  partners: PartnerTable;
  api_keys: ApiKeyTable;
  tenants: TenantTable;
  installations: InstallationTable;
  installation_grants: InstallationGrantTable;
  locations: LocationTable;
  products: ProductTable;
  logistic_preferences: LogisticPreferenceTable;
  stock_levels: StockLevelTable;
  stock_ledger: StockLedgerTable;
  document_sequences: DocumentSequenceTable;
  adjustments: AdjustmentTable;
  adjustment_items: AdjustmentItemTable;
  transfers: TransferTable;
  transfer_items: TransferItemTable;
  inbound_shipments: InboundShipmentTable;
  inbound_details: InboundDetailTable;
  reservations: ReservationTable;
  reservation_items: ReservationItemTable;
  lots: LotTable;
  lot_stock: LotStockTable;
  lot_allocations: LotAllocationTable;
  calendar_shift: CalendarShiftTable;
  adjustment_list_counts: AdjustmentListCountTable;
  transfer_list_counts: TransferListCountTable;
  inbound_list_counts: InboundListCountTable;
  areas: AreaTable;
  area_regions: AreaRegionTable;
  idempotency_records: IdempotencyRecordTable;
  webhook_endpoints: WebhookEndpointTable;
  event_outbox: EventOutboxTable;
  webhook_deliveries: WebhookDeliveryTable;
  webhook_delivery_attempts: WebhookDeliveryAttemptTable;
}

export type * from './adjustment-table.js';
export type * from './api-key-table.js';
export type * from './area-table.js';
export type * from './area-region-table.js';
export type * from './document-sequence-table.js';
export type * from './idempotency-table.js';
export type * from './inbound-table.js';
export type * from './installation-table.js';
export type * from './installation-grant-table.js';
export type * from './list-count-table.js';
export type * from './location-table.js';
export type * from './logistic-preference-table.js';
export type * from './lot-table.js';
export type * from './partner-table.js';
export type * from './product-table.js';
export type * from './reservation-table.js';
export type * from './stock-ledger-table.js';
export type * from './stock-level-table.js';
export type * from './tenant-table.js';
export type * from './transfer-table.js';
export type * from './webhook-table.js';
