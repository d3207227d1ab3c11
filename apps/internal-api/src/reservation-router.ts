// Order holds (docs/holds.md) for support teams: a tenant's reservations, one by number, and the
// release of an active one when an order is cancelled by other means. Creating, extending and
// consuming holds is the partners' (the gateway's). Quantities come out as exact decimal strings,
// and every status is the one a hold has by the database's clock (docs/holds.md#states-and-expiry).
import { z } from 'zod';
import { reservationNumber as reservationNumberText, safeText } from '@pits/contract';
import { AppError, type Dec, RESERVATION_STATUSES, domainError, toPlainString } from '@pits/domain';
import { type ReservationItemRecord, type ReservationRecord, findReservation, listReservations, releaseReservation } from '@pits/persistence';
import { INTERNAL_API_ACTOR, idInput, notFoundOn, pageFields, paginationOf, tenantId } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

const text = (value: Dec) => toPlainString(value);

function toItemOutput(item: ReservationItemRecord) {
  return { productId: item.productId, sku: item.sku, productName: item.productName, quantity: text(item.quantity), consumedQuantity: text(item.consumedQuantity) };
}

/**
 * A reservation with its lines as the internal API shows it: quantities as exact decimal strings,
 * its number as `reservationNumber` (the name the procedures take it by). Its return type is the
 * procedures' output type (`InternalApiOutputs['reservations']['get']`).
 *
 * @example toReservationOutput(reservation).items[0].quantity // '2.5'
 */
export function toReservationOutput(reservation: ReservationRecord) {
  return {
    id: reservation.id,
    tenantId: reservation.tenantId,
    reservationNumber: reservation.number,
    reference: reservation.reference,
    locationId: reservation.locationId,
    status: reservation.status,
    expiresAt: reservation.expiresAt,
    consumedAt: reservation.consumedAt,
    releasedAt: reservation.releasedAt,
    releaseReason: reservation.releaseReason,
    createdBy: reservation.createdBy,
    createdAt: reservation.createdAt,
    updatedAt: reservation.updatedAt,
    items: reservation.items.map(toItemOutput),
  };
}

// The contract's reservation number (at most 32 characters), surrounding spaces forgiven; text
// that breaks the text rule is refused as such first, as on every text field.
const reservationNumber = safeText.trim().pipe(reservationNumberText);
const reservationRef = z.strictObject({ tenantId, reservationNumber });

function notFound(number: string): AppError {
  return new AppError(domainError('NOT_FOUND', `reservation ${number} does not exist`, { field: 'reservationNumber' }));
}

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const reservationInputs = {
  list: z.strictObject({
    tenantId,
    status: z.enum(RESERVATION_STATUSES).optional(),
    locationId: idInput.optional(),
    reference: safeText.trim().min(1).max(100).optional(),
    productId: idInput.optional(),
    ...pageFields,
  }),
  get: reservationRef,
  release: z.strictObject({ tenantId, reservationNumber, reason: safeText.trim().min(1).max(500).optional() }),
};

export const reservationRouter = router({
  /**
   * A page of the tenant's reservations, newest first. `status` is matched as of the database's
   * clock (`active` leaves out holds past their expiry, `expired` takes them in); `locationId`,
   * `reference` and `productId` (a hold with a line of that product) are exact. Unknown tenant:
   * NOT_FOUND on `tenantId`.
   */
  list: protectedProcedure.input(reservationInputs.list).query(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    const filters = { status: input.status, locationId: input.locationId, reference: input.reference, productId: input.productId };
    const { rows, total } = await listReservations(ctx.database, input.tenantId, filters, input);
    return { reservations: rows.map(toReservationOutput), pagination: paginationOf(total, input, rows.length) };
  }),

  /** One reservation with its lines; unknown or another tenant's: NOT_FOUND on `reservationNumber`. */
  get: protectedProcedure.input(reservationInputs.get).query(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    const reservation = await findReservation(ctx.database, input.tenantId, input.reservationNumber);
    if (!reservation) throw notFound(input.reservationNumber);
    return toReservationOutput(reservation);
  }),

  /**
   * Releases an active reservation: what it held becomes available again, status `released`,
   * `releaseReason` the `reason` given (at most 500 characters), recorded as done by the internal
   * API. Any other status: CONFLICT, kind INVALID_STATE, and nothing changes, except that a hold
   * found past its expiry is expired then (its stock returned) before the refusal. Unknown or
   * another tenant's: NOT_FOUND on `reservationNumber`.
   */
  release: protectedProcedure
    .input(reservationInputs.release)
    .mutation(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      try {
        const released = await releaseReservation(ctx.database, { tenantId: input.tenantId, number: input.reservationNumber, actor: INTERNAL_API_ACTOR, reason: input.reason });
        return toReservationOutput(released);
      } catch (error) {
        throw notFoundOn(error, 'reservationNumber');
      }
    }),
});
