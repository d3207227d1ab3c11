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

export async function listAdjustmentItems(scope: Scope, adjustmentId: number): Promise<AdjustmentItemRecord[]> {
  const rows = await scope.db.selectFrom('adjustment_items').selectAll().where('adjustment_id', '=', adjustmentId).orderBy('line_no').execute();
  return rows.map(toAdjustmentItemRecord);
}

/** An adjustment of the tenant by its public number, without its items; another tenant's is undefined. */
export async function findAdjustmentRecord(scope: Scope, tenantId: string, number: string): Promise<AdjustmentRecord | undefined> {
  const row = await withLocation(scope).where('adjustments.tenant_id', '=', tenantId).where('adjustments.number', '=', number).executeTakeFirst();
  return row && fromJoined(row);
}

/** An adjustment of the tenant by its public number, with its items; another tenant's is undefined. */
export async function findAdjustment(scope: Scope, tenantId: string, number: string): Promise<AdjustmentWithItems | undefined> {
  const record = await findAdjustmentRecord(scope, tenantId, number);
  if (!record) return undefined;
  return { ...record, items: await listAdjustmentItems(scope, record.id) };
}

/** Locks the adjustment row until the transaction ends (PostgreSQL row lock; SQLite holds the write lock already). */
export async function lockAdjustment(tx: Tx, tenantId: string, number: string): Promise<AdjustmentRow | undefined> {
  let query = tx.db.selectFrom('adjustments').selectAll().where('tenant_id', '=', tenantId).where('number', '=', number);
  if (tx.dialect === 'postgres') query = query.forUpdate();
  return query.executeTakeFirst();
}

export interface AdjustmentFilters {
  status?: AdjustmentStatus | undefined;
  locationId?: number | undefined;
  type?: AdjustmentType | undefined;
}

/** A page of the tenant's adjustments, newest first (created_at, then id, descending), and the total. */
export async function listAdjustments(
  scope: Scope,
  tenantId: string,
  filters: AdjustmentFilters,
  page: PageRequest,
): Promise<{ rows: AdjustmentRecord[]; total: number }> {
  let base = scope.db.selectFrom('adjustments').where('adjustments.tenant_id', '=', tenantId);
  if (filters.status) base = base.where('adjustments.status', '=', filters.status);
  if (filters.locationId !== undefined) base = base.where('adjustments.location_id', '=', filters.locationId);
  if (filters.type) base = base.where('adjustments.type', '=', filters.type);
  const [count, rows] = await Promise.all([
    base.select((eb) => eb.fn.countAll<number>().as('total')).executeTakeFirstOrThrow(),
    base
      .innerJoin('locations', 'locations.id', 'adjustments.location_id')
      .selectAll('adjustments')
      .select(LOCATION_COLUMNS)
      .orderBy('adjustments.created_at', 'desc')
      .orderBy('adjustments.id', 'desc')
      .limit(page.perPage)
      .offset(pageOffset(page))
      .execute(),
  ]);
  return { rows: rows.map(fromJoined), total: Number(count.total) };
}
