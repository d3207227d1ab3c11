// Transfers and their items: rows, their mapping to records, and the queries over them.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Actor, type Dec, type PageRequest, type TransferStatus, dec, fromScaled, pageOffset } from '@pits/domain';
import { type StoredAllocation, listAllocations } from './lot-repository.js';
import type { TransferItemTable, TransferTable } from '../schema/index.js';
import type { Scope, Tx } from '../transaction.js';
import { parseActor } from './adjustment-repository.js';
import { keptTransferTotal } from './list-count-repository.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow, executeWrite } from '../execution/execute.js';

export type TransferRow = Selectable<TransferTable>;
export type TransferItemRow = Selectable<TransferItemTable>;

export interface TransferLocation {
  id: number;
  code: string;
  name: string;
  address: string;
  contactPerson: string;
  phone: string;
}

export interface TransferItemRecord {
  id: number;
  lineNo: number;
  productId: number;
  productName: string;
  sku: string;
  quantity: Dec;
  unitPrice: Dec;
  totalValue: Dec;
  notes: string;
  /** The lot the line is pinned to; null: first expired, first out. */
  lotNumber: string | null;
  /** The lots the line took at approval (docs/lots.md#holds-and-transfers); empty for a product without lots. */
  allocations: StoredAllocation[];
  hasLots: boolean;
}

export interface TransferRecord {
  id: number;
  tenantId: string;
  number: string;
  fromLocation: TransferLocation;
  toLocation: TransferLocation;
  transferDate: string;
  expectedArrivalDate: string | null;
  actualArrivalDate: string | null;
  referenceNumber: string;
  status: TransferStatus;
  notes: string;
  totalItems: number;
  totalQuantity: Dec;
  totalValue: Dec;
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
}

export interface TransferWithItems extends TransferRecord {
  items: TransferItemRecord[];
}

export function toTransferItemRecord(row: TransferItemRow): TransferItemRecord {
  return {
    id: row.id,
    lineNo: row.line_no,
    productId: row.product_id,
    productName: row.product_name,
    sku: row.sku,
    quantity: fromScaled(row.quantity),
    unitPrice: dec(row.unit_price),
    totalValue: dec(row.total_value),
    notes: row.notes,
    lotNumber: row.lot_number,
    allocations: [],
    hasLots: Number(row.has_lots) === 1,
  };
}

export function toTransferRecord(row: TransferRow, from: TransferLocation, to: TransferLocation): TransferRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    number: row.number,
    fromLocation: from,
    toLocation: to,
    transferDate: row.transfer_date,
    expectedArrivalDate: row.expected_arrival_date,
    actualArrivalDate: row.actual_arrival_date,
    referenceNumber: row.reference_number,
    status: row.status,
    notes: row.notes,
    totalItems: row.total_items,
    totalQuantity: fromScaled(row.total_quantity),
    totalValue: dec(row.total_value),
    createdBy: parseActor(row.created_by),
    approvedAt: row.approved_at,
    approvedBy: parseActor(row.approved_by),
    rejectedAt: row.rejected_at,
    rejectedBy: parseActor(row.rejected_by),
    rejectionReason: row.rejection_reason,
    shippedAt: row.shipped_at,
    shippedBy: parseActor(row.shipped_by),
    receivedAt: row.received_at,
    receivedBy: parseActor(row.received_by),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const TRANSFER_COLUMNS = [
  'transfers.id', 'transfers.tenant_id', 'transfers.partner_id', 'transfers.number', 'transfers.from_location_id',
  'transfers.to_location_id', 'transfers.transfer_date', 'transfers.expected_arrival_date', 'transfers.actual_arrival_date',
  'transfers.reference_number', 'transfers.status', 'transfers.notes', 'transfers.total_items', 'transfers.total_quantity',
  'transfers.total_value', 'transfers.created_by', 'transfers.approved_at', 'transfers.approved_by', 'transfers.rejected_at',
  'transfers.rejected_by', 'transfers.rejection_reason', 'transfers.shipped_at', 'transfers.shipped_by', 'transfers.received_at',
  'transfers.received_by', 'transfers.created_at', 'transfers.updated_at',
] as const;

const LOCATION_COLUMNS = [
  'f.code as f_code', 'f.name as f_name', 'f.address as f_address', 'f.pic_name as f_pic', 'f.phone as f_phone',
  't.code as t_code', 't.name as t_name', 't.address as t_address', 't.pic_name as t_pic', 't.phone as t_phone',
] as const;

function joined(scope: Scope) {
  return scope.db
    .selectFrom('transfers')
    .innerJoin('locations as f', 'f.id', 'transfers.from_location_id')
    .innerJoin('locations as t', 't.id', 'transfers.to_location_id')
    .select(TRANSFER_COLUMNS)
    .select(LOCATION_COLUMNS);
}

type JoinedRow = TransferRow & Record<`${'f' | 't'}_${'code' | 'name' | 'address' | 'pic' | 'phone'}`, string>;

function fromJoined(row: JoinedRow): TransferRecord {
  return toTransferRecord(
    row,
    { id: row.from_location_id, code: row.f_code, name: row.f_name, address: row.f_address, contactPerson: row.f_pic, phone: row.f_phone },
    { id: row.to_location_id, code: row.t_code, name: row.t_name, address: row.t_address, contactPerson: row.t_pic, phone: row.t_phone },
  );
}

export async function listTransferItems(scope: Scope, transferId: number): Promise<TransferItemRecord[]> {
  const rows = await execute(scope, scope.db.selectFrom('transfer_items').selectAll().where('transfer_id', '=', transferId).orderBy('line_no'));
  const items = rows.map(toTransferItemRecord);
  const withLots = items.filter((i) => i.hasLots);
  if (withLots.length === 0) return items;
  const allocations = await listAllocations(scope, 'transfer', withLots.map((i) => i.id));
  return items.map((i) => ({ ...i, allocations: allocations.get(i.id) ?? [] }));
}

/** A transfer of the tenant by its public number, with items; another tenant's is undefined. */
export async function findTransfer(scope: Scope, tenantId: string, number: string): Promise<TransferWithItems | undefined> {
  const row = await executeTakeFirst(scope, joined(scope).where('transfers.tenant_id', '=', tenantId).where('transfers.number', '=', number));
  if (!row) return undefined;
  return { ...fromJoined(row), items: await listTransferItems(scope, row.id) };
}

/** Locks the transfer row until the transaction ends. */
export async function lockTransfer(tx: Tx, tenantId: string, number: string): Promise<TransferRow | undefined> {
  return executeTakeFirst(tx, tx.dialect.lockRows(tx.db.selectFrom('transfers').selectAll().where('tenant_id', '=', tenantId).where('number', '=', number)));
}

/** Inserts a new transfer (the list totals count it: migration 014's triggers); returns its id. */
export async function insertTransfer(tx: Tx, row: Insertable<TransferTable> & Pick<TransferRow, 'status'>): Promise<number> {
  const { id } = await executeTakeFirstOrThrow(tx, tx.dialect.insertReturning(tx.db.insertInto('transfers').values(row), ['id']));
  return id;
}

/**
 * Moves a transfer (locked by `lockTransfer`) from its status in `row` to `set.status`, with the
 * other columns of `set`, and so in the list totals (migration 014's triggers). Only a row still
 * in `row.status` is changed.
 */
export async function updateTransferStatus(tx: Tx, row: TransferRow, set: Updateable<TransferTable> & { status: TransferStatus }): Promise<void> {
  const result = await executeWrite(tx, tx.db.updateTable('transfers').set(set).where('id', '=', row.id).where('status', '=', row.status));
  if (result.affectedRows !== 1) throw new Error(`transfer ${row.number} was not ${row.status} when its change was written`);
}

/** A transfer's lines, 200 rows per statement (a long transfer stays under every driver's parameter limit). */
/** Marks lines of a transfer as having taken lots (at approval). */
export async function markTransferLinesWithLots(tx: Tx, itemIds: readonly number[]): Promise<void> {
  if (itemIds.length > 0) await executeWrite(tx, tx.db.updateTable('transfer_items').set({ has_lots: 1 }).where('id', 'in', [...itemIds]));
}

export async function insertTransferItems(tx: Tx, rows: readonly Insertable<TransferItemTable>[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    await executeWrite(tx, tx.db.insertInto('transfer_items').values(rows.slice(i, i + 200)));
  }
}

export interface TransferFilters {
  status?: TransferStatus | undefined;
  fromLocationId?: number | undefined;
  toLocationId?: number | undefined;
  /** Inclusive bounds on transfer_date, YYYY-MM-DD. */
  transferDateFrom?: string | undefined;
  transferDateTo?: string | undefined;
}

/**
 * A page of the tenant's transfers, newest first (created_at, then id, descending), and the total:
 * from the kept counts, except with a transfer_date bound, which only a real COUNT over the
 * tenant's transfers in that range can answer.
 */
export async function listTransfers(scope: Scope, tenantId: string, filters: TransferFilters, page: PageRequest): Promise<{ rows: TransferRecord[]; total: number }> {
  let base = scope.db.selectFrom('transfers').where('transfers.tenant_id', '=', tenantId);
  if (filters.status) base = base.where('transfers.status', '=', filters.status);
  if (filters.fromLocationId !== undefined) base = base.where('transfers.from_location_id', '=', filters.fromLocationId);
  if (filters.toLocationId !== undefined) base = base.where('transfers.to_location_id', '=', filters.toLocationId);
  const byDate = Boolean(filters.transferDateFrom || filters.transferDateTo);
  if (filters.transferDateFrom) base = base.where('transfers.transfer_date', '>=', filters.transferDateFrom);
  if (filters.transferDateTo) base = base.where('transfers.transfer_date', '<=', filters.transferDateTo);
  // The page's ids on the index alone, then only its rows read and joined (see listAdjustments).
  const ids = base.select('transfers.id').orderBy('transfers.created_at', 'desc').orderBy('transfers.id', 'desc').limit(page.perPage).offset(pageOffset(page));
  const [total, rows] = await Promise.all([
    byDate
      ? executeTakeFirstOrThrow(scope, base.select((eb) => eb.fn.countAll<number>().as('total'))).then((r) => Number(r.total))
      : keptTransferTotal(scope, { tenantId, status: filters.status || undefined, fromLocationId: filters.fromLocationId, toLocationId: filters.toLocationId }),
    execute(scope, scope.db
      .selectFrom(ids.as('page'))
      .innerJoin('transfers', 'transfers.id', 'page.id')
      .innerJoin('locations as f', 'f.id', 'transfers.from_location_id')
      .innerJoin('locations as t', 't.id', 'transfers.to_location_id')
      .select(TRANSFER_COLUMNS)
      .select(LOCATION_COLUMNS)
      .orderBy('transfers.created_at', 'desc')
      .orderBy('transfers.id', 'desc')),
  ]);
  return { rows: rows.map(fromJoined), total };
}
