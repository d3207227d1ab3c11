// Order holds in the v1 contract's shape (docs/holds.md#reservations): exact decimals become JSON
// numbers only here. The return type is the response schema's, so a field it does not know fails
// to compile here.
import { toJsonNumber } from '@pits/domain';
import type { ReservationItemRecord, ReservationRecord } from '@pits/persistence';
import type * as contract from '@pits/contract';
import type { z } from 'zod';

function reservationItem(item: ReservationItemRecord): z.input<typeof contract.reservationItem> {
  return {
    product_id: String(item.productId),
    sku: item.sku,
    product_name: item.productName,
    quantity: toJsonNumber(item.quantity),
    consumed_quantity: toJsonNumber(item.consumedQuantity),
  };
}

/** The one form every reservation route answers with; `id` is the reservation number. */
export function presentReservation(r: ReservationRecord): z.input<typeof contract.reservation> {
  return {
    id: r.number,
    reservation_number: r.number,
    reference: r.reference,
    location_id: r.locationId,
    status: r.status,
    expires_at: r.expiresAt,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
    consumed_at: r.consumedAt,
    released_at: r.releasedAt,
    release_reason: r.releaseReason,
    created_by: r.createdBy,
    items: r.items.map(reservationItem),
  };
}
