// Inbound use cases: internal teams create and cancel shipments; warehouses receive items. A
// receipt locks the shipment, asks the domain, and writes lines, stock, ledger, status and the
// inbound.status_changed event in one transaction.
import {
  type Actor,
  AppError,
  type DecimalInput,
  type FieldIssue,
  type InboundStatus,
  type LotChange,
  type LotLineInput,
  checkShelfLife,
  shelfLifeError,
  wibDate,
  type ReceiptCondition,
  cancelInbound as decideCancel,
  dec,
  domainError,
  formatDocumentNumber,
  fromScaled,
  receiveInbound as decideReceipt,
  toFixedString,
  toScaled,
  unwrap,
} from '@pits/domain';
import { findTenantProducts } from '../repositories/product-repository.js';
import { nextDocumentSequence } from '../repositories/document-sequence-repository.js';
import {
  type InboundRecord,
  findInbound,
  insertInbound,
  insertInboundDetails,
  listOpenInboundDetails,
  lockInbound,
  recordInboundDetailReceipt,
  updateInboundStatus,
} from '../repositories/inbound-repository.js';
import { receivingGridOf } from '../repositories/location-repository.js';
import { lockStockLevels } from '../repositories/stock-repository.js';
import { writeStockChanges } from './stock-writes.js';
import { productPolicies } from '../repositories/lot-repository.js';
import { commitLots, openLotBook, resolveLots } from './lot-effects.js';
import { enqueueEvent } from '../repositories/event-outbox-repository.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { requireTenantLocation, requireTenantProducts } from './catalogue-checks.js';

export interface CreateInboundInput {
  tenantId: string;
  locationId: number;
  sourceType: string;
  sourceId: number;
  sourceCode: string;
  /** Defaults to the next INB-YYYYMMDD-NNNNNN of the tenant. */
  code?: string | undefined;
  inboundDate?: Date | undefined;
  notes?: string | undefined;
  createdBy: string;
  lines: readonly { productId: number; expectedQuantity: DecimalInput; unit?: string | undefined; unitPrice?: DecimalInput | undefined; notes?: string | undefined }[];
}

export async function createInbound(scope: Scope, input: CreateInboundInput, now: Date): Promise<InboundRecord> {
  if (input.lines.length === 0) throw new AppError(domainError('VALIDATION_ERROR', 'an inbound shipment needs at least one line', { field: 'lines' }));
  const at = now.toISOString();
  const id = await withTransaction(scope, async (tx) => {
    await requireTenantLocation(tx, input.tenantId, input.locationId, 'locationId');
    const products = await requireTenantProducts(tx, input.tenantId, input.lines.map((l) => l.productId));
    const code = input.code ?? formatDocumentNumber('INB', now, await nextDocumentSequence(tx, input.tenantId, 'INB'));
    const inboundId = await insertInbound(tx, {
      tenant_id: input.tenantId,
      code,
      inbound_date: (input.inboundDate ?? now).toISOString(),
      source_type: input.sourceType,
      source_id: input.sourceId,
      source_code: input.sourceCode,
      location_id: input.locationId,
      status: 'pending',
      received_at: null,
      cancelled_at: null,
      notes: input.notes ?? '',
      created_by: input.createdBy,
      updated_by: input.createdBy,
      created_at: at,
      updated_at: at,
    });
    await insertInboundDetails(
      tx,
      input.lines.map((line, index) => ({
          inbound_id: inboundId,
          product_id: line.productId,
          expected_quantity: toScaled(dec(line.expectedQuantity)),
          received_good: 0,
          received_damaged: 0,
          unit: line.unit ?? 'pcs',
          unit_price: toFixedString(line.unitPrice ?? products[index]!.costPrice, 2),
          notes: line.notes ?? '',
          grid_id: null,
          received_at: null,
          received_by: null,
          created_by: input.createdBy,
          updated_by: input.createdBy,
          deleted_by: null,
          deleted_at: null,
          created_at: at,
          updated_at: at,
        })),
    );
    return inboundId;
  });
  return (await findInbound(scope, input.tenantId, id))!;
}

function notFound(id: number): AppError {
  return new AppError(domainError('NOT_FOUND', `inbound shipment ${id} does not exist`, { field: 'id' }));
}

async function statusEvent(tx: Tx, tenantId: string, shipment: { id: number; code: string }, previous: InboundStatus, status: InboundStatus, now: Date) {
  await enqueueEvent(
    tx,
    { tenantId, type: 'inbound.status_changed', resource: { type: 'inbound', id: String(shipment.id) }, data: { inbound_id: shipment.id, code: shipment.code, previous_status: previous, status } },
    now,
  );
}

/** Cancels a pending shipment. */
export async function cancelInbound(scope: Scope, input: { tenantId: string; id: number; actor: string }, now: Date): Promise<InboundRecord> {
  return withTransaction(scope, async (tx) => {
    const row = await lockInbound(tx, input.tenantId, input.id);
    if (!row) throw notFound(input.id);
    unwrap(decideCancel(row));
    await updateInboundStatus(tx, row, { status: 'cancelled', cancelled_at: now.toISOString(), updated_by: input.actor, updated_at: now.toISOString() });
    await statusEvent(tx, input.tenantId, row, row.status, 'cancelled', now);
    return (await findInbound(tx, input.tenantId, input.id))!;
  });
}

export interface ReceiptInput extends LotLineInput {
  /** The shipment line received, by its item id; or `sku` names the shipment's line of that product. */
  itemId?: number | undefined;
  sku?: string | undefined;
  quantity: DecimalInput;
  condition?: ReceiptCondition | undefined;
  gridId?: string | undefined;
  receivedAt?: Date | undefined;
  receivedBy?: string | undefined;
}

export interface ReceiveResult {
  shipment: InboundRecord;
  /** The lines this receipt touched, in request order without repeats. */
  touched: number[];
}

/**
 * The item id of every receipt line: as given, or the shipment's one line whose product has the
 * line's SKU. A SKU no line of the shipment carries, or that several carry, is VALIDATION_ERROR on
 * `items[i].sku`; an item named twice (once by id, once by SKU) on the later line. An item id that
 * is not the shipment's is left to the domain's check, as before.
 */
async function receiptItemIds(tx: Tx, tenantId: string, details: readonly { id: number; product_id: number }[], receipts: readonly ReceiptInput[]): Promise<number[]> {
  if (receipts.every((r) => r.itemId !== undefined)) return receipts.map((r) => r.itemId!);
  const products = await findTenantProducts(tx, tenantId, details.map((d) => d.product_id));
  const issues: FieldIssue[] = [];
  const firstLine = new Map<number, number>();
  const ids = receipts.map((r, index) => {
    if (r.itemId !== undefined) {
      if (!firstLine.has(r.itemId)) firstLine.set(r.itemId, index);
      return r.itemId;
    }
    const lines = details.filter((d) => products.get(d.product_id)?.sku === r.sku);
    const field = `items[${index}].sku`;
    if (lines.length !== 1) {
      issues.push({ field, issue: lines.length === 0 ? `no line of this shipment has sku ${JSON.stringify(r.sku ?? '')}` : `several lines of this shipment have sku ${JSON.stringify(r.sku ?? '')}; give item_id` });
      return 0;
    }
    const id = lines[0]!.id;
    const first = firstLine.get(id);
    if (first === undefined) firstLine.set(id, index);
    else issues.push({ field, issue: `is the same item as items[${first}]` });
    return id;
  });
  const first = issues[0];
  if (first) throw new AppError(domainError('VALIDATION_ERROR', first.issue, { field: first.field, issue: first.issue, issues }));
  return ids;
}

/**
 * Receives items: cumulative quantities never exceed what is expected; goods join the location's
 * stock in their condition; the shipment becomes partial or received.
 */
export async function receiveInbound(
  scope: Scope,
  input: { tenantId: string; id: number; actor: Actor; receipts: readonly ReceiptInput[] },
  now: Date,
): Promise<ReceiveResult> {
  let touched: number[] = [];
  // The shipment is read back inside the transaction, so the response shows this receipt's result
  // even when other receipts commit right after it.
  const shipment = await withTransaction(scope, async (tx) => {
    const row = await lockInbound(tx, input.tenantId, input.id);
    if (!row) throw notFound(input.id);
    const receivingGrid = await receivingGridOf(tx, row.location_id);
    const details = await listOpenInboundDetails(tx, row.id);
    const decision = {
      status: row.status,
      locationId: row.location_id,
      lines: details.map((d) => ({ id: d.id, productId: d.product_id, expected: fromScaled(d.expected_quantity), received: fromScaled(d.received_good + d.received_damaged) })),
    };
    const itemIds = await receiptItemIds(tx, input.tenantId, details, input.receipts);
    touched = [...new Set(itemIds)];
    const receipts = input.receipts.map((r, index) => ({ itemId: itemIds[index]!, quantity: dec(r.quantity), condition: r.condition ?? 'good' }));
    // State and line checks first, against no stock: refusals touch no stock row.
    const early = decideReceipt(decision, receipts, new Map());
    if (!early.ok && early.error.kind !== 'INSUFFICIENT_STOCK') throw new AppError(early.error);
    const productOf = new Map(details.map((d) => [d.id, d.product_id]));
    // Each receipt of a lot-tracked product names its lot, which must have shelf life enough on the
    // day it arrives (docs/lots.md#receiving); nothing of the receipt is applied otherwise.
    const products = receipts.map((r) => productOf.get(r.itemId)!);
    const policies = await productPolicies(tx, products);
    const lots = await resolveLots(tx, input.tenantId, input.receipts.map((r, index) => ({ productId: products[index]!, policy: policies.get(products[index]!)!, lot: r, path: `items[${index}]` })), now);
    const tracked = lots.some((lot) => lot !== null);
    const today = tracked ? (await openLotBook(tx, [])).today : '';
    lots.forEach((lot, index) => {
      if (!lot) return;
      const receivedOn = input.receipts[index]!.receivedAt ? wibDate(input.receipts[index]!.receivedAt!) : today;
      const short = checkShelfLife(lot, policies.get(lot.productId)!.inboundExpired, receivedOn, `items[${index}].expiry_date`);
      if (short) throw new AppError(shelfLifeError(short));
    });
    const levels = await lockStockLevels(tx, input.tenantId, receipts.flatMap((r) => (productOf.has(r.itemId) ? [{ locationId: row.location_id, productId: productOf.get(r.itemId)! }] : [])), now);
    const receipt = unwrap(decideReceipt(decision, receipts, levels));
    const actorName = input.actor.name;
    const lotChanges = receipts.flatMap((r, index): LotChange[] => {
      const lot = lots[index];
      return lot ? [{ locationId: row.location_id, productId: lot.productId, lotNumber: lot.lotNumber, expiryDate: lot.expiryDate, bucket: r.condition, delta: r.quantity, field: `items[${index}].received_quantity` }] : [];
    });
    const book = tracked ? await openLotBook(tx, lotChanges) : undefined;
    const shortDated = book ? await commitLots(tx, input.tenantId, book, lotChanges, policies, now, lots.flatMap((l) => (l ? [l] : []))) : undefined;
    await writeStockChanges(
      tx,
      [{ tenantId: input.tenantId, outcome: receipt.stock, cause: { type: 'inbound', id: String(row.id), documentNumber: row.code, actor: `partner:${input.actor.id}:${actorName}` }, lots: lotChanges }],
      now,
      shortDated,
    );
    const at = now.toISOString();
    const byItem = new Map<number, { good: number; damaged: number; receipt: ReceiptInput }>();
    input.receipts.forEach((r, index) => {
      const itemId = itemIds[index]!;
      const entry = byItem.get(itemId) ?? { good: 0, damaged: 0, receipt: r };
      entry[r.condition ?? 'good'] += toScaled(dec(r.quantity));
      entry.receipt = r;
      byItem.set(itemId, entry);
    });
    for (const detail of details) {
      const got = byItem.get(detail.id);
      if (!got) continue;
      await recordInboundDetailReceipt(tx, detail.id, {
        received_good: detail.received_good + got.good,
        received_damaged: detail.received_damaged + got.damaged,
        grid_id: got.receipt.gridId ?? detail.grid_id ?? receivingGrid,
        received_at: (got.receipt.receivedAt ?? now).toISOString(),
        received_by: got.receipt.receivedBy ?? actorName,
        updated_by: actorName,
        updated_at: at,
      });
    }
    const status = receipt.next.status;
    await updateInboundStatus(tx, row, { status, received_at: status === 'received' ? at : null, updated_by: actorName, updated_at: at });
    if (status !== row.status) await statusEvent(tx, input.tenantId, row, row.status, status, now);
    return (await findInbound(tx, input.tenantId, input.id))!;
  });
  return { shipment, touched };
}
