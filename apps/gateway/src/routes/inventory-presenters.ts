// Adjustments, transfers and stock in the v1 contract's shapes: exact decimals become JSON numbers
// only here, at the edge. Each presenter's return type is its part of the response schema, so a
// field the schema does not know fails to compile here.
import { type Dec, availableQuantity, reservedForTransfers, toJsonNumber } from '@pits/domain';
import type {
  AdjustmentItemRecord,
  AdjustmentRecord,
  AdjustmentSummary,
  AdjustmentWithItems,
  StockLevelView,
  StockMovementView,
  TransferRecord,
  TransferWithItems,
} from '@pits/persistence';
import type * as contract from '@pits/contract';
import type { z } from 'zod';

const n = (value: Dec) => toJsonNumber(value);

function adjustmentItem(item: AdjustmentItemRecord): z.input<typeof contract.adjustmentItem> {
  return {
    id: item.id,
    product_id: String(item.productId),
    product_name: item.productName,
    sku: item.sku,
    type: item.type,
    quantity: n(item.quantity),
    unit_cost: n(item.unitCost),
    total_cost: n(item.totalCost),
    notes: item.notes,
  };
}

function adjustmentHead(a: AdjustmentRecord): Omit<z.input<typeof contract.adjustmentDetail>, 'items'> {
  return {
    id: a.number,
    adjustment_number: a.number,
    location: { id: a.location.id, code: a.location.code, name: a.location.name, address: a.location.address },
    type: a.type,
    stock_source: a.stockSource,
    reason: a.reason,
    status: a.status,
    total_amount: n(a.totalAmount),
    item_count: a.itemCount,
    created_by: a.createdBy,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
    approved_at: a.approvedAt,
    approved_by: a.approvedBy,
    rejected_at: a.rejectedAt,
    rejected_by: a.rejectedBy,
    rejection_reason: a.rejectionReason,
  };
}

/** Create response: detail form, items without current_stock. */
export function presentCreatedAdjustment(a: AdjustmentWithItems): z.input<typeof contract.adjustmentCreated> {
  return { ...adjustmentHead(a), items: a.items.map(adjustmentItem) };
}

/** Detail: items with the live quantity of their bucket (`currentStock(productId)`). */
export function presentAdjustmentDetail(a: AdjustmentWithItems, currentStock: (productId: number) => Dec): z.input<typeof contract.adjustmentDetail> {
  return { ...adjustmentHead(a), items: a.items.map((i) => ({ ...adjustmentItem(i), current_stock: n(currentStock(i.productId)) })) };
}

export function presentAdjustmentListEntry(a: AdjustmentSummary): z.input<typeof contract.adjustmentListEntry> {
  return {
    id: a.number,
    adjustment_number: a.number,
    location: { id: a.location.id, code: a.location.code, name: a.location.name },
    type: a.type,
    reason: a.reason,
    status: a.status,
    total_amount: n(a.totalAmount),
    item_count: a.itemCount,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

function transferHead(t: TransferRecord): Omit<z.input<typeof contract.transferListEntry>, 'from_location' | 'to_location'> {
  return {
    id: t.number,
    transfer_number: t.number,
    transfer_date: t.transferDate,
    expected_arrival_date: t.expectedArrivalDate,
    actual_arrival_date: t.actualArrivalDate,
    reference_number: t.referenceNumber,
    status: t.status,
    notes: t.notes,
    total_items: t.totalItems,
    total_quantity: n(t.totalQuantity),
    created_by: t.createdBy,
    created_at: t.createdAt,
    updated_at: t.updatedAt,
    approved_at: t.approvedAt,
    approved_by: t.approvedBy,
    rejected_at: t.rejectedAt,
    rejected_by: t.rejectedBy,
    shipped_at: t.shippedAt,
    shipped_by: t.shippedBy,
    received_at: t.receivedAt,
    received_by: t.receivedBy,
    rejection_reason: t.rejectionReason,
  };
}

const fullLocation = (l: TransferRecord['fromLocation']): z.input<typeof contract.transferLocation> => ({ id: l.id, code: l.code, name: l.name, address: l.address, contact_person: l.contactPerson, phone: l.phone });
const addressedLocation = (l: z.input<typeof contract.transferLocation>): z.input<typeof contract.transferCreatedLocation> => ({ id: l.id, code: l.code, name: l.name, address: l.address });
const shortLocation = (l: TransferRecord['fromLocation']) => ({ id: l.id, code: l.code, name: l.name });

/** Create: the full form, locations with their address only; `available(productId)` as in the detail. */
export function presentCreatedTransfer(t: TransferWithItems, available: (productId: number) => Dec): z.input<typeof contract.transferCreated> {
  const { from_location: from, to_location: to, ...rest } = presentTransferDetail(t, available);
  return { ...rest, from_location: addressedLocation(from), to_location: addressedLocation(to) };
}

/** Detail: full form, locations with contact person and phone; `available(productId)` is the live available quantity at the source. */
export function presentTransferDetail(t: TransferWithItems, available: (productId: number) => Dec): z.input<typeof contract.transferDetail> {
  return {
    ...transferHead(t),
    from_location: fullLocation(t.fromLocation),
    to_location: fullLocation(t.toLocation),
    total_value: n(t.totalValue),
    items: t.items.map((i) => ({
      id: i.id,
      product_id: String(i.productId),
      product_name: i.productName,
      sku: i.sku,
      quantity: n(i.quantity),
      available_stock: n(available(i.productId)),
      unit_price: n(i.unitPrice),
      total_value: n(i.totalValue),
      notes: i.notes,
    })),
  };
}

export function presentTransferListEntry(t: TransferRecord): z.input<typeof contract.transferListEntry> {
  return { ...transferHead(t), from_location: shortLocation(t.fromLocation), to_location: shortLocation(t.toLocation) };
}

/**
 * A transfer an operation has just moved, whose record must show the move. The response schemas
 * promise the new status with its time and actor; a record without them is a bug (500), never a
 * response that breaks the contract.
 */
function notRecorded(t: TransferRecord, expected: TransferRecord['status']): Error {
  return new Error(`transfer ${t.number} is ${t.status} after being moved to ${expected}, or lacks its time or actor`);
}

/** `data.transfer` of approve. */
export function presentTransferApproval(t: TransferRecord): z.input<typeof contract.approveTransferResponse>['data']['transfer'] {
  if (t.status !== 'approved' || t.approvedAt === null || t.approvedBy === null) throw notRecorded(t, 'approved');
  return { id: t.number, transfer_number: t.number, status: t.status, approved_at: t.approvedAt, approved_by: t.approvedBy };
}

/** `data.transfer` of reject. */
export function presentTransferRejection(t: TransferRecord): z.input<typeof contract.rejectTransferResponse>['data']['transfer'] {
  if (t.status !== 'rejected' || t.rejectedAt === null || t.rejectedBy === null || t.rejectionReason === null) throw notRecorded(t, 'rejected');
  return { id: t.number, transfer_number: t.number, status: t.status, rejected_at: t.rejectedAt, rejected_by: t.rejectedBy, rejection_reason: t.rejectionReason };
}

/** `data.transfer` of ship. */
export function presentTransferShipment(t: TransferRecord): z.input<typeof contract.shipTransferResponse>['data']['transfer'] {
  if (t.status !== 'in_transit' || t.shippedAt === null || t.shippedBy === null) throw notRecorded(t, 'in_transit');
  return { id: t.number, transfer_number: t.number, status: t.status, shipped_at: t.shippedAt, shipped_by: t.shippedBy };
}

/** `data.transfer` of receive. */
export function presentTransferReceipt(t: TransferRecord): z.input<typeof contract.receiveTransferResponse>['data']['transfer'] {
  if (t.status !== 'completed' || t.receivedAt === null || t.receivedBy === null) throw notRecorded(t, 'completed');
  return { id: t.number, transfer_number: t.number, status: t.status, received_at: t.receivedAt, received_by: t.receivedBy };
}

export function presentStockLevel(s: StockLevelView): z.input<typeof contract.stockLevelEntry> {
  return {
    location_id: s.locationId,
    product_id: String(s.productId),
    sku: s.sku,
    product_name: s.productName,
    good: n(s.good),
    damaged: n(s.damaged),
    reserved: n(s.reserved),
    reserved_for_transfers: n(reservedForTransfers(s)),
    reserved_for_orders: n(s.reservedForOrders),
    available: n(availableQuantity(s)),
    version: s.version,
  };
}

export function presentStockMovement(m: StockMovementView): z.input<typeof contract.stockMovementEntry> {
  return {
    id: String(m.id),
    location_id: m.locationId,
    product_id: String(m.productId),
    sku: m.sku,
    bucket: m.bucket,
    quantity_change: n(m.change),
    quantity_before: n(m.before),
    quantity_after: n(m.after),
    cause_type: m.causeType,
    cause_id: m.causeId,
    document_number: m.documentNumber,
    actor: m.actor,
    occurred_at: m.occurredAt,
  };
}
