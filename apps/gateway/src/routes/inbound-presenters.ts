// Inbound shipments in the contract's two shapes, which agree on the same shipment: the list's
// integer inbound_id is the detail's string id, code is reference_number, inbound_details[].id is
// the detail's items[].id and the item_id that receive takes.
import { fromScaled, isoMicros, pendingQuantity, toFixedString, toJsonNumber } from '@pits/domain';
import type { InboundAggregate, InboundDetailRow, LocationRow, ProductRow } from '@pits/persistence';
import { presentTenantLocation } from './tenant-presenters.js';

const two = (value: string) => toFixedString(value, 2);

function product(p: ProductRow) {
  return {
    product_id: p.id,
    category_id: p.category_id,
    name: p.name,
    sku: p.sku,
    barcode: p.barcode,
    description: p.description,
    brand: p.brand,
    product_type: p.product_type,
    published_price: two(p.published_price),
    cost_price: two(p.cost_price),
    weight: two(p.weight),
    width: two(p.width),
    height: two(p.height),
    length: two(p.length),
    status: p.status,
    is_bundle: p.is_bundle === 1,
    is_managed_by_fulfillment: p.is_managed_by_fulfillment === 1,
    advance_qc: p.advance_qc === 1,
    production_batch: p.production_batch === 1,
    cold_storage: p.cold_storage === 1,
    fulfillment_manage_by: p.fulfillment_manage_by,
    outbound_expired: p.outbound_expired,
    inbound_expired: p.inbound_expired,
    outer_barcode: p.outer_barcode,
    created_by: p.created_by,
    updated_by: p.updated_by,
    deleted_by: p.deleted_by,
    created_at: p.created_at,
    updated_at: p.updated_at,
    deleted_at: p.deleted_at,
  };
}

/** The tenant-location object plus the fields only the inbound embedding carries. */
function inboundLocation(l: LocationRow) {
  return {
    ...presentTenantLocation(l),
    is_return: l.is_return === 1,
    updated_by: l.updated_by,
    deleted_by: l.deleted_by,
    deleted_at: l.deleted_at,
    updated_at: l.updated_at,
  };
}

const received = (row: InboundDetailRow) => fromScaled(row.received_good + row.received_damaged);

/** An entry of `data.inbounds`. */
export function presentInboundListEntry(a: InboundAggregate) {
  const s = a.shipment;
  const details = a.details.map(({ row, product: p }) => ({
    inbound_detail_id: row.id,
    inbound_id: row.inbound_id,
    product_id: row.product_id,
    expected_quantity: toJsonNumber(fromScaled(row.expected_quantity)),
    notes: row.notes,
    created_by: row.created_by,
    updated_by: row.updated_by,
    deleted_by: row.deleted_by,
    received_by: row.received_by,
    deleted_at: row.deleted_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    product: product(p),
  }));
  return {
    inbound_id: s.id,
    code: s.code,
    inbound_date: isoMicros(new Date(s.inbound_date)),
    source_type: s.source_type,
    source_id: s.source_id,
    source_code: s.source_code,
    location_id: s.location_id,
    status: s.status,
    received_at: s.received_at,
    cancelled_at: s.cancelled_at,
    notes: s.notes,
    created_by: s.created_by,
    updated_by: s.updated_by,
    created_at: s.created_at,
    updated_at: s.updated_at,
    details,
    details_count: details.length,
    location: inboundLocation(a.location),
    inbound_details: details,
  };
}

/** `data.inbound` of the detail. `quantity` is the line's ordered (expected) quantity. */
export function presentInboundDetail(a: InboundAggregate) {
  const s = a.shipment;
  return {
    id: String(s.id),
    reference_number: s.code,
    status: s.status,
    location: { id: String(a.location.id), code: a.location.code, name: a.location.name, address: a.location.address },
    items: a.details.map(({ row, product: p }) => ({
      id: String(row.id),
      sku: p.sku,
      name: p.name,
      quantity: toJsonNumber(fromScaled(row.expected_quantity)),
      unit: row.unit,
      unit_price: toJsonNumber(row.unit_price),
      expected_quantity: toJsonNumber(fromScaled(row.expected_quantity)),
      good_received_quantity: toJsonNumber(fromScaled(row.received_good)),
      damaged_received_quantity: toJsonNumber(fromScaled(row.received_damaged)),
      grid_id: row.grid_id ?? a.location.receiving_grid,
      received_at: row.received_at,
      received_by: row.received_by,
    })),
    notes: s.notes,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

/** `data.inbound` of a receipt: the lines it touched, with cumulative figures. */
export function presentReceipt(a: InboundAggregate, touched: readonly number[]) {
  const byId = new Map(a.details.map((d) => [d.row.id, d.row]));
  return {
    id: String(a.shipment.id),
    status: a.shipment.status,
    updated_at: a.shipment.updated_at,
    items: touched.map((id) => {
      const row = byId.get(id)!;
      return {
        id: String(id),
        received_quantity: toJsonNumber(received(row)),
        pending_quantity: toJsonNumber(pendingQuantity({ expected: fromScaled(row.expected_quantity), received: received(row) })),
        grid_id: row.grid_id ?? a.location.receiving_grid,
        received_at: row.received_at!,
        received_by: row.received_by!,
      };
    }),
  };
}
