// Transfers between a tenant's locations, the internal side: ship (reserved goods leave the
// source) and receive (they arrive at the destination as good stock), and a transfer by number.
import { z } from 'zod';
import { safeText } from '@pits/contract';
import { AppError, type Dec, domainError, toPlainString } from '@pits/domain';
import {
  type TransferItemRecord,
  type TransferWithItems,
  findTransfer,
  receiveTransfer,
  shipTransfer,
} from '@pits/persistence';
import { INTERNAL_API_ACTOR, notFoundOn, tenantId } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

const text = (value: Dec) => toPlainString(value);

/**
 * A line with its quantities as exact decimal strings; `allocations` are the lots it took at
 * approval, first expired first (docs/lots.md#holds-and-transfers), each as the partners see it:
 * `{lotNumber, expiryDate, quantity}`, the lot's internal id left out.
 */
function toItemOutput(item: TransferItemRecord) {
  return {
    ...item,
    quantity: text(item.quantity),
    unitPrice: text(item.unitPrice),
    totalValue: text(item.totalValue),
    allocations: item.allocations.map((a) => ({ lotNumber: a.lotNumber, expiryDate: a.expiryDate, quantity: text(a.quantity) })),
  };
}

/**
 * A transfer with its lines as the internal API shows it: the record, with quantities and money as
 * exact decimal strings. Its return type is the procedures' output type (clients read it through
 * `InternalApiOutputs['transfers']['byNumber']`).
 *
 * @example toTransferOutput(transfer).totalValue // '59.97'
 */
export function toTransferOutput(transfer: TransferWithItems) {
  return {
    ...transfer,
    totalQuantity: text(transfer.totalQuantity),
    totalValue: text(transfer.totalValue),
    items: transfer.items.map(toItemOutput),
  };
}

const transferNumber = z.string().trim().regex(/^TRF-\d{8}-\d{6,}$/, 'must be a transfer number such as TRF-20261122-000001');
const actorInput = z.strictObject({ id: z.int().min(0), name: safeText.trim().min(1).max(200), email: safeText.trim().min(1).max(320) });
const actionInput = z.strictObject({ tenantId, number: transferNumber, actor: actorInput.optional() });

type TransferAction = typeof shipTransfer;

function stockAction(schema: typeof actionInput, action: TransferAction) {
  return protectedProcedure.input(schema).mutation(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    try {
      const actor = input.actor ?? INTERNAL_API_ACTOR;
      return toTransferOutput(await action(ctx.database, { tenantId: input.tenantId, number: input.number, actor }, ctx.now()));
    } catch (error) {
      throw notFoundOn(error, 'number');
    }
  });
}

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const transferInputs = {
  ship: actionInput,
  receive: actionInput,
  byNumber: z.strictObject({ tenantId, number: transferNumber }),
};

export const transferRouter = router({
  /**
   * Ship an approved transfer: the reserved quantities leave the source (reserved and good both go
   * down), status `in_transit`. Not approved: CONFLICT, kind INVALID_STATE. Unknown or another
   * tenant's number: NOT_FOUND on `number`. `actor` defaults to the internal API.
   */
  ship: stockAction(transferInputs.ship, shipTransfer),

  /**
   * Receive a transfer in transit: its quantities arrive as good stock at the destination, status
   * `completed`, `actualArrivalDate` today (UTC). Not in transit: CONFLICT, kind INVALID_STATE.
   */
  receive: stockAction(transferInputs.receive, receiveTransfer),

  /** A transfer with its items; unknown or another tenant's: NOT_FOUND on `number`. */
  byNumber: protectedProcedure
    .input(transferInputs.byNumber)
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const transfer = await findTransfer(ctx.database, input.tenantId, input.number);
      if (!transfer) throw new AppError(domainError('NOT_FOUND', `transfer ${input.number} does not exist`, { field: 'number' }));
      return toTransferOutput(transfer);
    }),
});
