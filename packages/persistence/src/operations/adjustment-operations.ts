// Adjustment use cases: create, approve, reject. Each runs in one transaction; approval locks the
// adjustment and its stock rows, asks the domain, and writes the state change, the stock and the
// ledger together.
import type { Insertable, Updateable } from 'kysely';
import {
  type Actor,
  type AdjustmentType,
  AppError,
  type DecimalInput,
  type StockSource,
  adjustmentStockChanges,
  adjustmentTotals,
  approveAdjustment as decideApproval,
  dec,
  domainError,
  formatDocumentNumber,
  rejectAdjustment as decideRejection,
  toPlainString,
  toScaled,
  unwrap,
} from '@pits/domain';
import {
  type AdjustmentRecord,
  type AdjustmentWithItems,
  findAdjustmentRecord,
  lockAdjustment,
  listAdjustmentItems,
  toAdjustmentItemRecord,
  toAdjustmentRecord,
} from '../repositories/adjustment-repository.js';
import { nextDocumentSequence } from '../repositories/document-sequence-repository.js';
import { ledgerActor, lockStockLevels, writeStockOutcome } from '../repositories/stock-repository.js';
import { enqueueEvent } from '../repositories/webhook-repository.js';
import { preparedQuery } from '../prepared-query.js';
import type { AdjustmentItemTable, AdjustmentTable } from '../schema/index.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { requireTenantLocation, requireTenantProducts } from './catalogue-checks.js';

export interface CreateAdjustmentInput {
  tenantId: string;
  partnerId: number;
  actor: Actor;
  locationId: number;
  type: AdjustmentType;
  stockSource: StockSource;
  reason: string;
  items: readonly { productId: number; quantity: DecimalInput; unitCost: DecimalInput; notes?: string | undefined }[];
}

const insertAdjustment = preparedQuery((scope, row: Insertable<AdjustmentTable>) => scope.db.insertInto('adjustments').values(row).returningAll());
const insertItems = preparedQuery((scope, p: { rows: Insertable<AdjustmentItemTable>[] }) =>
  scope.db.insertInto('adjustment_items').values(p.rows).returningAll(),
);

/** Creates a pending adjustment with its next ADJ number. Returns it in detail form. */
export async function createAdjustment(scope: Scope, input: CreateAdjustmentInput, now: Date): Promise<AdjustmentWithItems> {
  const lines = input.items.map((item) => ({ ...item, quantity: dec(item.quantity), unitCost: dec(item.unitCost) }));
  const totals = adjustmentTotals(lines);
  const at = now.toISOString();
  return withTransaction(scope, async (tx) => {
    const location = await requireTenantLocation(tx, input.tenantId, input.locationId, 'location_id');
    const products = await requireTenantProducts(tx, input.tenantId, lines.map((l) => l.productId));
    const number = formatDocumentNumber('ADJ', now, await nextDocumentSequence(tx, input.tenantId, 'ADJ'));
    const row = await insertAdjustment.takeFirst(tx, {
      tenant_id: input.tenantId,
      partner_id: input.partnerId,
      number,
      location_id: location.id,
      type: input.type,
      stock_source: input.stockSource,
      reason: input.reason,
      status: 'pending',
      total_amount: toPlainString(totals.totalAmount),
      item_count: totals.itemCount,
      created_by: JSON.stringify(input.actor),
      approved_at: null,
      approved_by: null,
      rejected_at: null,
      rejected_by: null,
      rejection_reason: null,
      created_at: at,
      updated_at: at,
    });
    if (!row) throw new Error('insert into adjustments returned no row');
    const itemRows = lines.map((line, index) => ({
      adjustment_id: row.id,
      line_no: index + 1,
      product_id: line.productId,
      product_name: products[index]!.name,
      sku: products[index]!.sku,
      quantity: toScaled(line.quantity),
      unit_cost: toPlainString(line.unitCost),
      total_cost: toPlainString(totals.lineTotals[index]!),
      notes: line.notes ?? '',
    }));
    // The inserted lines come back from the insert itself (no second read); RETURNING promises no
    // order, so they are put in line order here.
    const inserted = [];
    for (let i = 0; i < itemRows.length; i += 200) {
      inserted.push(...(await insertItems.execute(tx, { rows: itemRows.slice(i, i + 200) })));
    }
    inserted.sort((a, b) => a.line_no - b.line_no);
    const record = toAdjustmentRecord(row, { id: location.id, code: location.code, name: location.name, address: location.address });
    return { ...record, items: inserted.map(toAdjustmentItemRecord) };
  });
}

function notFound(number: string): AppError {
  return new AppError(domainError('NOT_FOUND', `adjustment ${number} does not exist`, { field: 'id' }));
}

async function lockOrThrow(tx: Tx, tenantId: string, number: string) {
  const row = await lockAdjustment(tx, tenantId, number);
  if (!row) throw notFound(number);
  return row;
}

/** The adjustment.status_changed event, in the transaction of the change. */
async function statusChanged(tx: Tx, tenantId: string, number: string, previous: string, status: string, now: Date): Promise<void> {
  await enqueueEvent(tx, { tenantId, type: 'adjustment.status_changed', resource: { type: 'adjustment', id: number }, data: { adjustment_number: number, previous_status: previous, status } }, now);
}

/** The record after a decision; its items did not change and are not read again. */
async function reload(tx: Tx, tenantId: string, number: string): Promise<AdjustmentRecord> {
  const record = await findAdjustmentRecord(tx, tenantId, number);
  if (!record) throw notFound(number);
  return record;
}

/** A decision's columns, written only while the adjustment is still pending. */
const decidePending = preparedQuery((scope, p: { id: number; set: Updateable<AdjustmentTable> }) =>
  scope.db.updateTable('adjustments').set(p.set).where('id', '=', p.id).where('status', '=', 'pending'),
);

export interface AdjustmentActionInput {
  tenantId: string;
  number: string;
  actor: Actor;
}

/** The decision function approval uses; replaceable in tests to simulate a faulty decision. */
export type ApprovalDecision = typeof decideApproval;

/**
 * Approves a pending adjustment: applies its stock changes and ledger rows and sets it approved, in
 * one transaction. Refusals (INVALID_STATE, INSUFFICIENT_STOCK, NOT_FOUND) change nothing.
 */
export async function approveAdjustment(
  scope: Scope,
  input: AdjustmentActionInput,
  now: Date,
  decide: ApprovalDecision = decideApproval,
): Promise<AdjustmentRecord> {
  return withTransaction(scope, async (tx) => {
    const row = await lockOrThrow(tx, input.tenantId, input.number);
    const items = await listAdjustmentItems(tx, row.id);
    const decision = {
      status: row.status,
      type: row.type,
      stockSource: row.stock_source,
      locationId: row.location_id,
      items: items.map((i) => ({ productId: i.productId, quantity: i.quantity })),
    };
    // Refuse a non-pending adjustment before touching stock rows.
    if (row.status !== 'pending') unwrap(decide(decision, new Map(), now, input.actor));
    const levels = await lockStockLevels(tx, input.tenantId, adjustmentStockChanges(decision), now);
    const approval = unwrap(decide(decision, levels, now, input.actor));
    await writeStockOutcome(
      tx,
      input.tenantId,
      approval.stock,
      { type: 'adjustment', id: row.number, documentNumber: row.number, actor: ledgerActor(input.actor) },
      now,
    );
    await decidePending.run(tx, {
      id: row.id,
      set: {
        status: 'approved',
        approved_at: approval.next.approvedAt.toISOString(),
        approved_by: JSON.stringify(approval.next.approvedBy),
        updated_at: now.toISOString(),
      },
    });
    await statusChanged(tx, input.tenantId, row.number, row.status, 'approved', now);
    return reload(tx, input.tenantId, input.number);
  });
}

/** Rejects a pending adjustment with a reason; no stock effect. */
export async function rejectAdjustment(
  scope: Scope,
  input: AdjustmentActionInput & { reason: string },
  now: Date,
): Promise<AdjustmentRecord> {
  return withTransaction(scope, async (tx) => {
    const row = await lockOrThrow(tx, input.tenantId, input.number);
    const rejection = unwrap(decideRejection(row, input.reason, now, input.actor));
    await decidePending.run(tx, {
      id: row.id,
      set: {
        status: 'rejected',
        rejected_at: rejection.next.rejectedAt.toISOString(),
        rejected_by: JSON.stringify(rejection.next.rejectedBy),
        rejection_reason: rejection.next.rejectionReason,
        updated_at: now.toISOString(),
      },
    });
    await statusChanged(tx, input.tenantId, row.number, row.status, 'rejected', now);
    return reload(tx, input.tenantId, input.number);
  });
}
