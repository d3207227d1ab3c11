// Adjustments and their items: rows, their mapping to records, and the queries over them.
import type { Selectable } from 'kysely';
import {
  type Actor,
  type AdjustmentStatus,
  type AdjustmentType,
  type Dec,
  type PageRequest,
  type StockSource,
  dec,
  fromScaled,
  pageOffset,
} from '@pits/domain';
import { preparedQuery } from '../prepared-query.js';
import type { Scope, Tx } from '../transaction.js';
import type { AdjustmentItemTable, AdjustmentTable } from '../schema/index.js';

export type AdjustmentRow = Selectable<AdjustmentTable>;
export type AdjustmentItemRow = Selectable<AdjustmentItemTable>;

export interface AdjustmentLocation {
  id: number;
  code: string;
  name: string;
  address: string;
}

export interface AdjustmentItemRecord {
  id: number;
  lineNo: number;
  productId: number;
  productName: string;
  sku: string;
  quantity: Dec;
  unitCost: Dec;
  totalCost: Dec;
  notes: string;
}

export interface AdjustmentRecord {
  id: number;
  tenantId: string;
  number: string;
  location: AdjustmentLocation;
  type: AdjustmentType;
  stockSource: StockSource;
  reason: string;
  status: AdjustmentStatus;
  totalAmount: Dec;
  itemCount: number;
  createdBy: Actor;
  approvedAt: string | null;
  approvedBy: Actor | null;
  rejectedAt: string | null;
  rejectedBy: Actor | null;
  rejectionReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AdjustmentWithItems extends AdjustmentRecord {
  items: AdjustmentItemRecord[];
}

export function parseActor(json: string): Actor;
export function parseActor(json: string | null): Actor | null;
export function parseActor(json: string | null): Actor | null {
  if (json === null) return null;
  const { id, name, email } = JSON.parse(json) as Actor;
  return { id, name, email };
}

export function toAdjustmentItemRecord(row: AdjustmentItemRow): AdjustmentItemRecord {
  return {
    id: row.id,
    lineNo: row.line_no,
    productId: row.product_id,
    productName: row.product_name,
    sku: row.sku,
    quantity: fromScaled(row.quantity),
    unitCost: dec(row.unit_cost),
    totalCost: dec(row.total_cost),
    notes: row.notes,
  };
}

export function toAdjustmentRecord(row: AdjustmentRow, location: AdjustmentLocation): AdjustmentRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    number: row.number,
    location,
    type: row.type,
    stockSource: row.stock_source,
    reason: row.reason,
    status: row.status,
    totalAmount: dec(row.total_amount),
    itemCount: row.item_count,
    createdBy: parseActor(row.created_by),
    approvedAt: row.approved_at,
    approvedBy: parseActor(row.approved_by),
    rejectedAt: row.rejected_at,
    rejectedBy: parseActor(row.rejected_by),
    rejectionReason: row.rejection_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

// `adjustments.*` rather than the 19 columns by name: the same row, and Kysely builds and compiles
// the query in about half the time (it parses and freezes one node per named column, on every call).
const LOCATION_COLUMNS = ['locations.code as location_code', 'locations.name as location_name', 'locations.address as location_address'] as const;

function withLocation(scope: Scope) {
  return scope.db
    .selectFrom('adjustments')
    .innerJoin('locations', 'locations.id', 'adjustments.location_id')
    .selectAll('adjustments')
    .select(LOCATION_COLUMNS);
}

type JoinedRow = AdjustmentRow & { location_code: string; location_name: string; location_address: string };

function fromJoined(row: JoinedRow): AdjustmentRecord {
  return toAdjustmentRecord(row, {
    id: row.location_id,
    code: row.location_code,
    name: row.location_name,
    address: row.location_address,
  });
}

const itemsOf = preparedQuery((scope, p: { adjustmentId: number }) =>
  scope.db.selectFrom('adjustment_items').selectAll().where('adjustment_id', '=', p.adjustmentId).orderBy('line_no'),
);

export async function listAdjustmentItems(scope: Scope, adjustmentId: number): Promise<AdjustmentItemRecord[]> {
  return (await itemsOf.execute(scope, { adjustmentId })).map(toAdjustmentItemRecord);
}

const byNumber = preparedQuery((scope, p: { tenantId: string; number: string }) =>
  withLocation(scope).where('adjustments.tenant_id', '=', p.tenantId).where('adjustments.number', '=', p.number),
);

/** An adjustment of the tenant by its public number, without its items; another tenant's is undefined. */
export async function findAdjustmentRecord(scope: Scope, tenantId: string, number: string): Promise<AdjustmentRecord | undefined> {
  const row = await byNumber.takeFirst(scope, { tenantId, number });
  return row && fromJoined(row);
}

/** An adjustment of the tenant by its public number, with its items; another tenant's is undefined. */
export async function findAdjustment(scope: Scope, tenantId: string, number: string): Promise<AdjustmentWithItems | undefined> {
  const record = await findAdjustmentRecord(scope, tenantId, number);
  if (!record) return undefined;
  return { ...record, items: await listAdjustmentItems(scope, record.id) };
}

/** Locks the adjustment row until the transaction ends (PostgreSQL row lock; SQLite holds the write lock already). */
const lockByNumber = preparedQuery((scope, p: { tenantId: string; number: string }) => {
  const query = scope.db.selectFrom('adjustments').selectAll().where('tenant_id', '=', p.tenantId).where('number', '=', p.number);
  return scope.dialect === 'postgres' ? query.forUpdate() : query;
});

export async function lockAdjustment(tx: Tx, tenantId: string, number: string): Promise<AdjustmentRow | undefined> {
  return lockByNumber.takeFirst(tx, { tenantId, number });
}

export interface AdjustmentFilters {
  status?: AdjustmentStatus | undefined;
  locationId?: number | undefined;
  type?: AdjustmentType | undefined;
}

interface ListParams {
  tenantId: string;
  status: AdjustmentStatus | undefined;
  locationId: number | undefined;
  type: AdjustmentType | undefined;
  limit: number;
  offset: number;
}

function filtered(scope: Scope, p: ListParams) {
  let base = scope.db.selectFrom('adjustments').where('adjustments.tenant_id', '=', p.tenantId);
  if (p.status !== undefined) base = base.where('adjustments.status', '=', p.status);
  if (p.locationId !== undefined) base = base.where('adjustments.location_id', '=', p.locationId);
  if (p.type !== undefined) base = base.where('adjustments.type', '=', p.type);
  return base;
}

const countFiltered = preparedQuery((scope, p: ListParams) => filtered(scope, p).select((eb) => eb.fn.countAll<number>().as('total')));

const pageFiltered = preparedQuery((scope, p: ListParams) =>
  filtered(scope, p)
    .innerJoin('locations', 'locations.id', 'adjustments.location_id')
    .selectAll('adjustments')
    .select(LOCATION_COLUMNS)
    .orderBy('adjustments.created_at', 'desc')
    .orderBy('adjustments.id', 'desc')
    .limit(p.limit)
    .offset(p.offset),
);

/** A page of the tenant's adjustments, newest first (created_at, then id, descending), and the total. */
export async function listAdjustments(
  scope: Scope,
  tenantId: string,
  filters: AdjustmentFilters,
  page: PageRequest,
): Promise<{ rows: AdjustmentRecord[]; total: number }> {
  const params = {
    tenantId,
    status: filters.status || undefined,
    locationId: filters.locationId,
    type: filters.type || undefined,
    limit: page.perPage,
    offset: pageOffset(page),
  };
  const [count, rows] = await Promise.all([countFiltered.takeFirst(scope, params), pageFiltered.execute(scope, params)]);
  return { rows: rows.map(fromJoined), total: Number(count!.total) };
}
