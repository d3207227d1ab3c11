// Transfer use cases: create, approve (reserve at the source), reject, ship (reserved goods leave
// the source), receive (goods arrive at the destination). Each is one transaction; the stock steps
// lock the transfer and its stock rows, ask the domain, and write state, stock and ledger together.
import {
  type Actor,
  AppError,
  type Dec,
  type DecimalInput,
  type LotChange,
  type Result,
  type StockLevels,
  type TransferForDecision,
  type TransferStatus,
  type TransferStep,
  approveTransfer as decideApproval,
  dec,
  domainError,
  formatDocumentNumber,
  isoDate,
  receiveTransfer as decideReceipt,
  rejectTransfer as decideRejection,
  shipTransfer as decideShipment,
  toPlainString,
  toScaled,
  transferTotals,
  unwrap,
} from '@pits/domain';
import type { Updateable } from 'kysely';
import { nextDocumentSequence } from '../repositories/document-sequence-repository.js';
import { ledgerActor, lockStockLevels } from '../repositories/stock-repository.js';
import { writeStockChanges } from './stock-writes.js';
import { insertAllocations, productPolicies } from '../repositories/lot-repository.js';
import { allocatedLotIds, commitLots, decideWithLots, openLotBook, refuseLotsOfUntracked, reserveAllocations } from './lot-effects.js';
import {
  type TransferItemRecord,
  type TransferRow,
  type TransferWithItems,
  findTransfer,
  insertTransfer,
  insertTransferItems,
  listTransferItems,
  lockTransfer,
  markTransferLinesWithLots,
  updateTransferStatus,
} from '../repositories/transfer-repository.js';
import type { TransferTable } from '../schema/index.js';
import { type EventInput, enqueueEvent } from '../repositories/event-outbox-repository.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { type ProductRef, requireLineProducts, requireTenantLocation } from './catalogue-checks.js';

export interface CreateTransferInput {
  tenantId: string;
  partnerId: number;
  actor: Actor;
  fromLocationId: number;
  toLocationId: number;
  transferDate: string;
  expectedArrivalDate?: string | undefined;
  referenceNumber?: string | undefined;
  notes?: string | undefined;
  /** Each line names its product by `productId` or by `sku`; `lotNumber` pins a lot-tracked line to that lot. */
  items: readonly (ProductRef & { quantity: DecimalInput; notes?: string | undefined; lotNumber?: string | null | undefined })[];
}

/** Creates a pending transfer with its next TRF number; unit prices are the products' cost prices. */
export async function createTransfer(scope: Scope, input: CreateTransferInput, now: Date): Promise<TransferWithItems> {
  if (input.fromLocationId === input.toLocationId) {
    const issue = 'must differ from from_location_id';
    throw new AppError(domainError('VALIDATION_ERROR', issue, { field: 'to_location_id', issue }));
  }
  const at = now.toISOString();
  return withTransaction(scope, async (tx) => {
    const from = await requireTenantLocation(tx, input.tenantId, input.fromLocationId, 'from_location_id');
    const to = await requireTenantLocation(tx, input.tenantId, input.toLocationId, 'to_location_id');
    const products = await requireLineProducts(tx, input.tenantId, input.items);
    refuseLotsOfUntracked(input.items.map((item, index) => ({ lotNumber: item.lotNumber ?? null, policy: products[index]!.policy })));
    const lines = input.items.map((item, index) => ({ ...item, quantity: dec(item.quantity), unitPrice: dec(products[index]!.costPrice) }));
    const totals = unwrap(transferTotals(lines));
    const number = formatDocumentNumber('TRF', now, await nextDocumentSequence(tx, input.tenantId, 'TRF'));
    const transferId = await insertTransfer(tx, {
      tenant_id: input.tenantId,
      partner_id: input.partnerId,
      number,
      from_location_id: from.id,
      to_location_id: to.id,
      transfer_date: input.transferDate,
      expected_arrival_date: input.expectedArrivalDate ?? null,
      actual_arrival_date: null,
      reference_number: input.referenceNumber ?? '',
      status: 'pending',
      notes: input.notes ?? '',
      total_items: totals.totalItems,
      total_quantity: toScaled(totals.totalQuantity),
      total_value: toPlainString(totals.totalValue),
      created_by: JSON.stringify(input.actor),
      approved_at: null,
      approved_by: null,
      rejected_at: null,
      rejected_by: null,
      rejection_reason: null,
      shipped_at: null,
      shipped_by: null,
      received_at: null,
      received_by: null,
      created_at: at,
      updated_at: at,
    });
    const itemRows = lines.map((line, index) => ({
      transfer_id: transferId,
      line_no: index + 1,
      product_id: products[index]!.id,
      product_name: products[index]!.name,
      sku: products[index]!.sku,
      quantity: toScaled(line.quantity),
      unit_price: toPlainString(line.unitPrice),
      total_value: toPlainString(totals.lineValues[index]!),
      notes: line.notes ?? '',
      lot_number: line.lotNumber ?? null,
    }));
    await insertTransferItems(tx, itemRows);
    return (await findTransfer(tx, input.tenantId, number))!;
  });
}

type TransferEventStatus = EventInput<'transfer.status_changed'>['data']['status'];

/** The transfer.status_changed event, in the transaction of the change. */
async function statusChanged(tx: Tx, tenantId: string, number: string, previous: TransferEventStatus, status: TransferEventStatus, now: Date): Promise<void> {
  await enqueueEvent(tx, { tenantId, type: 'transfer.status_changed', resource: { type: 'transfer', id: number }, data: { transfer_number: number, previous_status: previous, status } }, now);
}

function notFound(number: string): AppError {
  return new AppError(domainError('NOT_FOUND', `transfer ${number} does not exist`, { field: 'id' }));
}

async function lockOrThrow(tx: Tx, tenantId: string, number: string): Promise<TransferRow> {
  const row = await lockTransfer(tx, tenantId, number);
  if (!row) throw notFound(number);
  return row;
}

export interface TransferActionInput {
  tenantId: string;
  number: string;
  actor: Actor;
}

type StockDecision<N> = (transfer: TransferForDecision, stock: StockLevels, now: Date, actor: Actor) => Result<TransferStep<N>>;

/** What a stock-moving step does to the lots of lot-tracked lines (docs/lots.md#holds-and-transfers). */
type TransferLotStep = 'allocate' | 'ship' | 'receive';

/**
 * A transfer step's decision with its lot side: approval allocates sellable lots at the source,
 * first expired first out (or the line's pinned lot), and reserves them; shipping takes the
 * allocated units out of the source's lots; receiving puts the same lots, with their dates, at the
 * destination. Lines of products without lots read nothing more.
 */
async function withTransferLots<N>(
  tx: Tx,
  tenantId: string,
  { from_location_id: fromLocationId, to_location_id: toLocationId }: Pick<TransferRow, 'from_location_id' | 'to_location_id'>,
  items: readonly TransferItemRecord[],
  lotStep: TransferLotStep,
  rows: Result<TransferStep<N>>,
  now: Date,
): Promise<{ step: TransferStep<N>; changes: LotChange[]; shortDated: Map<string, Dec> | undefined }> {
  if (lotStep === 'allocate') {
    const policies = await productPolicies(tx, items.map((i) => i.productId));
    const lines = items.map((i) => ({ productId: i.productId, quantity: i.quantity, lotNumber: i.lotNumber, policy: policies.get(i.productId)! }));
    const tracked = lines.filter((l) => l.policy.lotTracked);
    const book = tracked.length === 0 ? undefined : await openLotBook(tx, tracked.map((l) => ({ locationId: fromLocationId, productId: l.productId })));
    const { value: step, allocations } = decideWithLots(fromLocationId, lines, rows, book);
    if (!book) return { step, changes: [], shortDated: undefined };
    const changes = reserveAllocations(fromLocationId, lines, allocations);
    const allocated = items.flatMap((item, index) => (allocations[index]!.length === 0 ? [] : [{ itemId: item.id, allocations: allocatedLotIds(book, fromLocationId, item.productId, allocations[index]!) }]));
    await markTransferLinesWithLots(tx, allocated.map((a) => a.itemId));
    await insertAllocations(tx, tenantId, 'transfer', allocated);
    return { step, changes, shortDated: await commitLots(tx, tenantId, book, changes, policies, now) };
  }
  const step = unwrap(rows);
  const lotItems = items.filter((i) => i.allocations.length > 0);
  if (lotItems.length === 0) return { step, changes: [], shortDated: undefined };
  const changes = items.flatMap((item, index) =>
    item.allocations.flatMap((a): LotChange[] => {
      const at = { productId: item.productId, lotNumber: a.lotNumber, expiryDate: a.expiryDate, field: `items[${index}].quantity` };
      return lotStep === 'ship'
        ? [
            { ...at, locationId: fromLocationId, bucket: 'reserved', delta: a.quantity.negated() },
            { ...at, locationId: fromLocationId, bucket: 'good', delta: a.quantity.negated() },
          ]
        : [{ ...at, locationId: toLocationId, bucket: 'good', delta: a.quantity }];
    }),
  );
  const book = await openLotBook(tx, changes);
  const lots = lotItems.flatMap((item) => item.allocations.map((a) => ({ id: a.lotId, productId: item.productId, lotNumber: a.lotNumber, expiryDate: a.expiryDate, productionDate: null })));
  const policies = await productPolicies(tx, lotItems.map((i) => i.productId));
  return { step, changes, shortDated: await commitLots(tx, tenantId, book, changes, policies, now, lots) };
}

/** One stock-moving step: lock, decide, write stock and ledger, update the transfer. */
async function stockStep<N>(
  scope: Scope,
  input: TransferActionInput,
  now: Date,
  decide: StockDecision<N>,
  side: 'from' | 'to',
  columns: (next: N) => Updateable<TransferTable> & { status: TransferStatus },
): Promise<TransferWithItems> {
  return withTransaction(scope, async (tx) => {
    const row = await lockOrThrow(tx, input.tenantId, input.number);
    const items = await listTransferItems(tx, row.id);
    const decision: TransferForDecision = {
      status: row.status,
      fromLocationId: row.from_location_id,
      toLocationId: row.to_location_id,
      items: items.map((i) => ({ productId: i.productId, quantity: i.quantity })),
    };
    const locationId = side === 'from' ? row.from_location_id : row.to_location_id;
    const lotStep: TransferLotStep = side === 'to' ? 'receive' : row.status === 'pending' ? 'allocate' : 'ship';
    // A transfer in the wrong state is refused before any stock row is touched.
    const early = decide({ ...decision, items: [] }, new Map(), now, input.actor);
    if (!early.ok) throw new AppError(early.error);
    const levels = await lockStockLevels(tx, input.tenantId, items.map((i) => ({ locationId, productId: i.productId })), now);
    const rows = decide(decision, levels, now, input.actor);
    const { step, changes, shortDated } = await withTransferLots(tx, input.tenantId, row, items, lotStep, rows, now);
    await writeStockChanges(
      tx,
      [{ tenantId: input.tenantId, outcome: step.stock, cause: { type: 'transfer', id: row.number, documentNumber: row.number, actor: ledgerActor(input.actor) }, lots: changes }],
      now,
      shortDated,
    );
    await updateTransferStatus(tx, row, { ...columns(step.next), updated_at: now.toISOString() });
    const updated = (await findTransfer(tx, input.tenantId, input.number))!;
    await statusChanged(tx, input.tenantId, row.number, row.status, updated.status, now);
    return updated;
  });
}

/** Approve: reserves every line at the source, or nothing (INSUFFICIENT_STOCK). */
export function approveTransfer(scope: Scope, input: TransferActionInput, now: Date): Promise<TransferWithItems> {
  return stockStep(scope, input, now, decideApproval, 'from', (next) => ({
    status: next.status,
    approved_at: next.approvedAt.toISOString(),
    approved_by: JSON.stringify(next.approvedBy),
  }));
}

/** Ship: the reserved quantities leave the source (reserved and good both go down). */
export function shipTransfer(scope: Scope, input: TransferActionInput, now: Date): Promise<TransferWithItems> {
  return stockStep(scope, input, now, decideShipment, 'from', (next) => ({
    status: next.status,
    shipped_at: next.shippedAt.toISOString(),
    shipped_by: JSON.stringify(next.shippedBy),
  }));
}

/** Receive: the shipped quantities arrive as good stock at the destination; actual_arrival_date is today (UTC). */
export function receiveTransfer(scope: Scope, input: TransferActionInput, now: Date): Promise<TransferWithItems> {
  return stockStep(scope, input, now, decideReceipt, 'to', (next) => ({
    status: next.status,
    received_at: next.receivedAt.toISOString(),
    received_by: JSON.stringify(next.receivedBy),
    actual_arrival_date: isoDate(next.receivedAt),
  }));
}

/** Reject a pending transfer with a reason; no stock effect. */
export async function rejectTransfer(scope: Scope, input: TransferActionInput & { reason: string }, now: Date): Promise<TransferWithItems> {
  return withTransaction(scope, async (tx) => {
    const row = await lockOrThrow(tx, input.tenantId, input.number);
    const rejection = unwrap(decideRejection(row, input.reason, now, input.actor));
    await updateTransferStatus(tx, row, {
      status: 'rejected',
      rejected_at: rejection.next.rejectedAt.toISOString(),
      rejected_by: JSON.stringify(rejection.next.rejectedBy),
      rejection_reason: rejection.next.rejectionReason,
      updated_at: now.toISOString(),
    });
    await statusChanged(tx, input.tenantId, row.number, row.status, 'rejected', now);
    return (await findTransfer(tx, input.tenantId, input.number))!;
  });
}
