// Transfers between a tenant's locations, the internal side: ship (reserved goods leave the
// source) and receive (they arrive at the destination as good stock), and a transfer by number.
import { z } from 'zod';
import { type Actor, AppError, type Dec, domainError, toPlainString } from '@pits/domain';
import {
  type TransferItemRecord,
  type TransferLocation,
  type TransferWithItems,
  findTransfer,
  receiveTransfer,
  shipTransfer,
} from '@pits/persistence';
import { tenantId } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

/** Who ships or receives when the caller names no one: the internal API itself. */
export const INTERNAL_TRANSFER_ACTOR: Actor = { id: 0, name: 'internal-api', email: 'internal@platform' };

export interface TransferItemOutput {
  id: number;
  lineNo: number;
  productId: number;
  productName: string;
  sku: string;
  /** Exact decimal strings. */
  quantity: string;
  unitPrice: string;
  totalValue: string;
  notes: string;
}

/** A transfer with its lines as the internal API shows it; quantities and money are exact decimal strings. */
export interface TransferOutput {
  id: number;
  tenantId: string;
  number: string;
  fromLocation: TransferLocation;
  toLocation: TransferLocation;
  transferDate: string;
  expectedArrivalDate: string | null;
  actualArrivalDate: string | null;
  referenceNumber: string;
  status: string;
  notes: string;
  totalItems: number;
  totalQuantity: string;
  totalValue: string;
  createdBy: Actor;
  approvedAt: string | null;
  approvedBy: Actor | null;
  rejectedAt: string | null;
  rejectedBy: Actor | null;
  rejectionReason: string | null;
  shippedAt: string | null;
  shippedBy: Actor | null;
  receivedAt: string | null;
  receivedBy: Actor | null;
  createdAt: string;
  updatedAt: string;
  items: TransferItemOutput[];
}

const text = (value: Dec) => toPlainString(value);

function toItemOutput(item: TransferItemRecord): TransferItemOutput {
  return { ...item, quantity: text(item.quantity), unitPrice: text(item.unitPrice), totalValue: text(item.totalValue) };
}

export function toTransferOutput(transfer: TransferWithItems): TransferOutput {
  return {
    ...transfer,
    totalQuantity: text(transfer.totalQuantity),
    totalValue: text(transfer.totalValue),
    items: transfer.items.map(toItemOutput),
  };
}

const transferNumber = z.string().trim().regex(/^TRF-\d{8}-\d{6,}$/, 'must be a transfer number such as TRF-20261122-000001');
const actorInput = z.strictObject({ id: z.int().min(0), name: z.string().trim().min(1).max(200), email: z.string().trim().min(1).max(320) });
const actionInput = z.strictObject({ tenantId, number: transferNumber, actor: actorInput.optional() });

/** The operations name a missing transfer after the partners' path parameter (`id`); here the input is `number`. */
function onNumber(error: unknown): unknown {
  if (error instanceof AppError && error.kind === 'NOT_FOUND') {
    return new AppError(domainError('NOT_FOUND', error.message, { field: 'number' }));
  }
  return error;
}

type TransferAction = typeof shipTransfer;

function stockAction(action: TransferAction) {
  return protectedProcedure.input(actionInput).mutation(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    try {
      const actor = input.actor ?? INTERNAL_TRANSFER_ACTOR;
      return toTransferOutput(await action(ctx.database, { tenantId: input.tenantId, number: input.number, actor }, ctx.now()));
    } catch (error) {
      throw onNumber(error);
    }
  });
}

export const transferRouter = router({
  /**
   * Ship an approved transfer: the reserved quantities leave the source (reserved and good both go
   * down), status `in_transit`. Not approved: CONFLICT, kind INVALID_STATE. Unknown or another
   * tenant's number: NOT_FOUND on `number`. `actor` defaults to the internal API.
   */
  ship: stockAction(shipTransfer),

  /**
   * Receive a transfer in transit: its quantities arrive as good stock at the destination, status
   * `completed`, `actualArrivalDate` today (UTC). Not in transit: CONFLICT, kind INVALID_STATE.
   */
  receive: stockAction(receiveTransfer),

  /** A transfer with its items; unknown or another tenant's: NOT_FOUND on `number`. */
  byNumber: protectedProcedure
    .input(z.strictObject({ tenantId, number: transferNumber }))
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const transfer = await findTransfer(ctx.database, input.tenantId, input.number);
      if (!transfer) throw new AppError(domainError('NOT_FOUND', `transfer ${input.number} does not exist`, { field: 'number' }));
      return toTransferOutput(transfer);
    }),
});
