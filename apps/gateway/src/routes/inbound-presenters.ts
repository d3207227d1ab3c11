// Inbound shipments in the contract's two shapes, which agree on the same shipment: the list's
// integer inbound_id is the detail's string id, code is reference_number, inbound_details[].id is
// the detail's items[].id and the item_id that receive takes.
import { isoMicros, pendingQuantity, toJsonNumber } from '@pits/domain';
import type { InboundDetailRecord, InboundRecord, LocationRecord, ProductRecord } from '@pits/persistence';
import { presentTenantLocation } from './tenant-presenters.js';
import type * as contract from '@pits/contract';
import type { z } from 'zod';

/** A product in the shape the inbound list embeds; the products routes answer the same. */
export function presentProduct(p: ProductRecord): z.input<typeof contract.inboundProduct> {
  return {
    product_id: p.id,
    category_id: p.categoryId,
    name: p.name,
    sku: p.sku,
    barcode: p.barcode,
    description: p.description,
    brand: p.brand,
    product_type: p.productType,
    published_price: p.publishedPrice,
    cost_price: p.costPrice,
    weight: p.weight,
    width: p.width,
    height: p.height,
    length: p.length,
    status: p.status,
    is_bundle: p.isBundle,
    is_managed_by_fulfillment: p.isManagedByFulfillment,
    advance_qc: p.advanceQc,
    production_batch: p.productionBatch,
    cold_storage: p.coldStorage,
    fulfillment_manage_by: p.fulfillmentManageBy,
    outbound_expired: p.outboundExpired,
    inbound_expired: p.inboundExpired,
    outer_barcode: p.outerBarcode,
    created_by: p.createdBy,
    updated_by: p.updatedBy,
    deleted_by: p.deletedBy,
    created_at: p.createdAt,
    updated_at: p.updatedAt,
    deleted_at: p.deletedAt,
  };
}

/** The tenant-location object plus the fields only the inbound embedding carries. */
function inboundLocation(l: LocationRecord): z.input<typeof contract.inboundLocation> {
  return {
    ...presentTenantLocation(l),
    is_return: l.isReturn,
    updated_by: l.updatedBy,
    deleted_by: l.deletedBy,
    deleted_at: l.deletedAt,
    updated_at: l.updatedAt,
  };
}

const received = (line: InboundDetailRecord) => line.receivedGood.plus(line.receivedDamaged);

/** An entry of `data.inbounds`. */
export function presentInboundListEntry(s: InboundRecord): z.input<typeof contract.inboundListEntry> {
  const details = s.details.map((line): z.input<typeof contract.inboundDetailLine> => ({
    inbound_detail_id: line.id,
    inbound_id: line.inboundId,
    product_id: line.productId,
    expected_quantity: toJsonNumber(line.expectedQuantity),
    notes: line.notes,
    created_by: line.createdBy,
    updated_by: line.updatedBy,
    deleted_by: line.deletedBy,
    received_by: line.receivedBy,
    deleted_at: line.deletedAt,
    created_at: line.createdAt,
    updated_at: line.updatedAt,
    product: presentProduct(line.product),
  }));
  return {
    inbound_id: s.id,
    code: s.code,
    inbound_date: isoMicros(new Date(s.inboundDate)),
    source_type: s.sourceType,
    source_id: s.sourceId,
    source_code: s.sourceCode,
    location_id: s.locationId,
    status: s.status,
    received_at: s.receivedAt,
    cancelled_at: s.cancelledAt,
    notes: s.notes,
    created_by: s.createdBy,
    updated_by: s.updatedBy,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
    details,
    details_count: details.length,
    location: inboundLocation(s.location),
    inbound_details: details,
  };
}

/** `data.inbound` of the detail. `quantity` is the line's ordered (expected) quantity. */
export function presentInboundDetail(s: InboundRecord): z.input<typeof contract.inboundDetail> {
  return {
    id: String(s.id),
    reference_number: s.code,
    status: s.status,
    location: { id: String(s.location.id), code: s.location.code, name: s.location.name, address: s.location.address },
    items: s.details.map((line) => ({
      id: String(line.id),
      product_id: line.productId,
      sku: line.product.sku,
      name: line.product.name,
      quantity: toJsonNumber(line.expectedQuantity),
      unit: line.unit,
      unit_price: toJsonNumber(line.unitPrice),
      expected_quantity: toJsonNumber(line.expectedQuantity),
      good_received_quantity: toJsonNumber(line.receivedGood),
      damaged_received_quantity: toJsonNumber(line.receivedDamaged),
      grid_id: line.gridId ?? s.location.receivingGrid,
      received_at: line.receivedAt,
      received_by: line.receivedBy,
    })),
    notes: s.notes,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** `data.inbound` of a receipt: the lines it touched, with cumulative figures. */
export function presentReceipt(s: InboundRecord, touched: readonly number[]): z.input<typeof contract.receiveInboundResponse>['data']['inbound'] {
  const byId = new Map(s.details.map((line) => [line.id, line]));
  return {
    id: String(s.id),
    status: s.status,
    updated_at: s.updatedAt,
    items: touched.map((id) => {
      const line = byId.get(id)!;
      return {
        id: String(id),
        product_id: line.productId,
        sku: line.product.sku,
        received_quantity: toJsonNumber(received(line)),
        pending_quantity: toJsonNumber(pendingQuantity({ expected: line.expectedQuantity, received: received(line) })),
        grid_id: line.gridId ?? s.location.receivingGrid,
        received_at: line.receivedAt!,
        received_by: line.receivedBy!,
      };
    }),
  };
}
