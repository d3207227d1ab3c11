// Adjustments and their items: rows, their mapping to records, and the queries over them.
import type { InferResult, Insertable, Selectable } from 'kysely';
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
  withFields,
} from '@pits/domain';
import { type ParamRef, markedColumns, markedRows, preparedQuery } from '../parameterised-query.js';
import type { Scope, Tx } from '../transaction.js';
import type { AdjustmentItemTable, AdjustmentTable } from '../schema/index.js';
import { adjustmentTotalOf, keptAdjustmentTotal, keptTotal } from './list-count-repository.js';
import { execute, executeTakeFirst, executeWrite } from '../execution/execute.js';

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
  type: AdjustmentType;
  quantity: Dec;
  unitCost: Dec;
  totalCost: Dec;
  notes: string;
  /** The lot the line names (docs/lots.md#lines-name-their-lot); null for a product without lots. */
  lotId: number | null;
  lotNumber: string | null;
  expiryDate: string | null;
}

/** What a list shows of an adjustment: everything but the actors, which a list never parses. */
export interface AdjustmentSummary {
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
  approvedAt: string | null;
  rejectedAt: string | null;
  rejectionReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AdjustmentRecord extends AdjustmentSummary {
  createdBy: Actor;
  approvedBy: Actor | null;
  rejectedBy: Actor | null;
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
    type: row.type,
    quantity: fromScaled(row.quantity),
    unitCost: dec(row.unit_cost),
    totalCost: dec(row.total_cost),
    notes: row.notes,
    lotId: row.lot_id === null ? null : Number(row.lot_id),
    lotNumber: null,
    expiryDate: null,
  };
}

/** Lines with their lots' numbers and expiry dates; nothing is read when no line names a lot. */
async function withLots(scope: Scope, items: AdjustmentItemRecord[]): Promise<AdjustmentItemRecord[]> {
  const ids = items.flatMap((i) => (i.lotId === null ? [] : [i.lotId]));
  if (ids.length === 0) return items;
  const lots = new Map((await execute(scope, scope.db.selectFrom('lots').select(['id', 'lot_number', 'expiry_date']).where('id', 'in', ids))).map((l) => [Number(l.id), l]));
  return items.map((i) => (i.lotId === null ? i : withFields(i, { lotNumber: lots.get(i.lotId)?.lot_number ?? null, expiryDate: lots.get(i.lotId)?.expiry_date ?? null })));
}

/** The list's projection of a row: no JSON parsed. */
export function toAdjustmentSummary(row: AdjustmentRow, location: AdjustmentLocation): AdjustmentSummary {
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
    approvedAt: row.approved_at,
    rejectedAt: row.rejected_at,
    rejectionReason: row.rejection_reason,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toAdjustmentRecord(row: AdjustmentRow, location: AdjustmentLocation): AdjustmentRecord {
  return withFields(toAdjustmentSummary(row, location), {
    createdBy: parseActor(row.created_by),
    approvedBy: parseActor(row.approved_by),
    rejectedBy: parseActor(row.rejected_by),
  });
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

const joinedLocation = (row: JoinedRow): AdjustmentLocation => ({ id: row.location_id, code: row.location_code, name: row.location_name, address: row.location_address });

function fromJoined(row: JoinedRow): AdjustmentRecord {
  return toAdjustmentRecord(row, joinedLocation(row));
}

const byNumber = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; number: string }>) =>
  withLocation(scope).where('adjustments.tenant_id', '=', param('tenantId')).where('adjustments.number', '=', param('number')),
});

/** An adjustment of the tenant by its public number, without its items; another tenant's is undefined. */
export async function findAdjustmentRecord(scope: Scope, tenantId: string, number: string): Promise<AdjustmentRecord | undefined> {
  const row = await executeTakeFirst(scope, byNumber.with({ tenantId, number }));
  return row && fromJoined(row);
}

/** An adjustment with its items, and what its location holds now of each line's product. */
export interface AdjustmentDetail extends AdjustmentWithItems {
  /** By product id: the live quantity in the adjustment's bucket (`stockSource`) at its location; absent: no stock row (0). */
  currentStock: ReadonlyMap<number, Dec>;
}

const LINE_COLUMNS = [
  'adjustment_items.id as item_id',
  'adjustment_items.line_no as item_line_no',
  'adjustment_items.product_id as item_product_id',
  'adjustment_items.product_name as item_product_name',
  'adjustment_items.sku as item_sku',
  'adjustment_items.type as item_type',
  'adjustment_items.quantity as item_quantity',
  'adjustment_items.unit_cost as item_unit_cost',
  'adjustment_items.total_cost as item_total_cost',
  'adjustment_items.notes as item_notes',
  'adjustment_items.lot_id as item_lot_id',
  'lots.lot_number as item_lot_number',
  'lots.expiry_date as item_expiry_date',
] as const;

/** The adjustment with its location and one row per line, each with its lot (item columns prefixed `item_`). */
function withLines(scope: Scope, param: ParamRef<{ tenantId: string; number: string }>) {
  return withLocation(scope)
    .leftJoin('adjustment_items', 'adjustment_items.adjustment_id', 'adjustments.id')
    .leftJoin('lots', 'lots.id', 'adjustment_items.lot_id')
    .select(LINE_COLUMNS)
    .where('adjustments.tenant_id', '=', param('tenantId'))
    .where('adjustments.number', '=', param('number'))
    .orderBy('adjustment_items.line_no');
}

type LinesRow = InferResult<ReturnType<typeof withLines>>[number];

/** A line's columns as a joined read returns them, each prefixed `item_` (the adjustment's own columns beside them). */
type PrefixedLine = { [C in Exclude<keyof AdjustmentItemRow, 'adjustment_id'> as `item_${C}`]: AdjustmentItemRow[C] };

/** The line of adjustment `adjustmentId` in `row`'s `item_` columns (its lot's number and date left null). */
function prefixedLine(row: PrefixedLine, adjustmentId: number): AdjustmentItemRecord {
  return toAdjustmentItemRecord({
    id: row.item_id,
    adjustment_id: adjustmentId,
    line_no: row.item_line_no,
    product_id: row.item_product_id,
    product_name: row.item_product_name,
    sku: row.item_sku,
    type: row.item_type,
    quantity: row.item_quantity,
    unit_cost: row.item_unit_cost,
    total_cost: row.item_total_cost,
    notes: row.item_notes,
    lot_id: row.item_lot_id,
  });
}

/** The record and its lines from `withLines` rows (an adjustment always has lines; none read as none). */
function fromLines(rows: readonly LinesRow[]): AdjustmentWithItems {
  const items = rows.flatMap((row): AdjustmentItemRecord[] =>
    // A left join: a row with a line has every line column.
    row.item_id === null ? [] : [withFields(prefixedLine(row as LinesRow & PrefixedLine, row.id), { lotNumber: row.item_lot_number, expiryDate: row.item_expiry_date })],
  );
  return withFields(fromJoined(rows[0]!), { items });
}

/**
 * The adjustment with its location, each line with its lot, and the stock row of each line's
 * product at that location: one row per line (the adjustment's columns repeated), so a detail
 * read is one statement.
 */
const detailByNumber = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; number: string }>) =>
    withLines(scope, param)
      .leftJoin('stock_levels', (join) =>
        join.onRef('stock_levels.location_id', '=', 'adjustments.location_id').onRef('stock_levels.product_id', '=', 'adjustment_items.product_id'),
      )
      .select(['stock_levels.good as stock_good', 'stock_levels.damaged as stock_damaged']),
});

/**
 * An adjustment of the tenant by its public number, with its items (and their lots) and the
 * current stock of their products in its bucket, read in one statement; another tenant's is undefined.
 */
export async function findAdjustment(scope: Scope, tenantId: string, number: string): Promise<AdjustmentDetail | undefined> {
  const rows = await execute(scope, detailByNumber.with({ tenantId, number }));
  if (rows[0] === undefined) return undefined;
  const adjustment = fromLines(rows);
  const currentStock = new Map<number, Dec>();
  for (const row of rows) {
    const held = adjustment.stockSource === 'damaged' ? row.stock_damaged : row.stock_good;
    if (row.item_id !== null && held !== null) currentStock.set(Number(row.item_product_id), fromScaled(held));
  }
  return withFields(adjustment, { currentStock });
}

/** `lockAdjustment` with the lines (and their lots) read in the same statement: what an approval needs. */
const lockWithLinesByNumber = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; number: string }>) => scope.dialect.lockRows(withLines(scope, param), 'adjustments'),
});

/** Locks the adjustment row (only it) until the transaction ends; returns it with its location and lines. */
export async function lockAdjustmentWithItems(tx: Tx, tenantId: string, number: string): Promise<AdjustmentWithItems | undefined> {
  const rows = await execute(tx, lockWithLinesByNumber.with({ tenantId, number }));
  return rows[0] === undefined ? undefined : fromLines(rows);
}

/**
 * Locks the adjustment row until the transaction ends and returns it with its location. Only the
 * adjustment's row is locked: the location's stays free for other documents' inserts.
 */
const lockByNumber = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; number: string }>) =>
    scope.dialect.lockRows(withLocation(scope).where('adjustments.tenant_id', '=', param('tenantId')).where('adjustments.number', '=', param('number')), 'adjustments'),
});

export async function lockAdjustment(tx: Tx, tenantId: string, number: string): Promise<AdjustmentRecord | undefined> {
  const row = await executeTakeFirst(tx, lockByNumber.with({ tenantId, number }));
  return row && fromJoined(row);
}

export type NewAdjustment = Insertable<AdjustmentTable> & Omit<AdjustmentRow, 'id'>;
const ADJUSTMENT_COLUMNS = [
  'tenant_id',
  'partner_id',
  'number',
  'location_id',
  'type',
  'stock_source',
  'reason',
  'status',
  'total_amount',
  'item_count',
  'created_by',
  'approved_at',
  'approved_by',
  'rejected_at',
  'rejected_by',
  'rejection_reason',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof NewAdjustment)[];

const insertAdjustmentRow = preparedQuery({
  build: (scope, param: ParamRef<NewAdjustment>) =>
    scope.dialect.insertReturningAll(scope.db.insertInto('adjustments').values(markedColumns(param, ADJUSTMENT_COLUMNS))),
});

/**
 * Inserts a new adjustment (in any status: a stock count inserts one approved), which the list
 * totals count (migration 014's triggers); returns its record at `location`.
 */
export async function insertAdjustment(tx: Tx, row: NewAdjustment, location: AdjustmentLocation): Promise<AdjustmentRecord> {
  const inserted = await executeTakeFirst(tx, insertAdjustmentRow.with(row));
  if (!inserted) throw new Error('insert into adjustments returned no row');
  return toAdjustmentRecord(inserted, location);
}

export type NewAdjustmentItem = Omit<AdjustmentItemRow, 'id'>;
const ITEM_COLUMNS = ['adjustment_id', 'line_no', 'product_id', 'product_name', 'sku', 'type', 'quantity', 'unit_cost', 'total_cost', 'notes', 'lot_id'] as const satisfies readonly (keyof NewAdjustmentItem)[];

const insertItemRows = preparedQuery({
  shape: (p: { rows: NewAdjustmentItem[] }) => p.rows.length,
  build: (scope, param: ParamRef<{ rows: NewAdjustmentItem[] }>, count) =>
    scope.dialect.insertReturningAll(scope.db.insertInto('adjustment_items').values(markedRows(param, 'rows', count, ITEM_COLUMNS))),
});

/** Lines of an adjustment per statement when they go in on their own. */
const LINES_PER_INSERT = 200;

/** Inserts an adjustment's lines and returns them in line order. */
export async function insertAdjustmentItems(tx: Tx, rows: readonly NewAdjustmentItem[]): Promise<AdjustmentItemRecord[]> {
  const inserted: AdjustmentItemRow[] = [];
  for (let i = 0; i < rows.length; i += LINES_PER_INSERT) {
    inserted.push(...(await execute(tx, insertItemRows.with({ rows: rows.slice(i, i + LINES_PER_INSERT) }))));
  }
  // RETURNING promises no order.
  inserted.sort((a, b) => a.line_no - b.line_no);
  return withLots(tx, inserted.map(toAdjustmentItemRecord));
}

/** A line of an adjustment not inserted yet: its row without the adjustment's id. */
export type NewAdjustmentLine = Omit<NewAdjustmentItem, 'adjustment_id'>;
const LINE_COLUMNS_OF_NEW = ITEM_COLUMNS.filter((c): c is Exclude<(typeof ITEM_COLUMNS)[number], 'adjustment_id'> => c !== 'adjustment_id');

/** The parameters of `insertWithLines`: the adjustment's row and its lines'. */
export type NewAdjustmentWithLines = NewAdjustment & { lines: readonly NewAdjustmentLine[] };

const ADDED_LINE_COLUMNS = [
  'added_lines.id as item_id',
  'added_lines.line_no as item_line_no',
  'added_lines.product_id as item_product_id',
  'added_lines.product_name as item_product_name',
  'added_lines.sku as item_sku',
  'added_lines.type as item_type',
  'added_lines.quantity as item_quantity',
  'added_lines.unit_cost as item_unit_cost',
  'added_lines.total_cost as item_total_cost',
  'added_lines.notes as item_notes',
  'added_lines.lot_id as item_lot_id',
] as const;

/**
 * The adjustment and its lines in one statement, where the dialect runs an insert in a WITH
 * (`insertsInWith`): the adjustment is the WITH `added`, each line takes its id from it, and the
 * statement returns one row per line with the adjustment's columns (line columns prefixed `item_`).
 */
const insertWithLines = preparedQuery({
  shape: (p: NewAdjustmentWithLines) => p.lines.length,
  build: (scope, param: ParamRef<NewAdjustmentWithLines>, count) =>
    scope.db
      .with('added', (db) => scope.dialect.insertReturningAll(db.insertInto('adjustments').values(markedColumns(param, ADJUSTMENT_COLUMNS))))
      .with('added_lines', (db) =>
        scope.dialect.insertReturningAll(
          db.insertInto('adjustment_items').values((eb) =>
            markedRows(param, 'lines', count, LINE_COLUMNS_OF_NEW).map((row) => withFields(row, { adjustment_id: eb.selectFrom('added').select('id') })),
          ),
        ),
      )
      .selectFrom('added')
      .innerJoin('added_lines', 'added_lines.adjustment_id', 'added.id')
      .selectAll('added')
      .select(ADDED_LINE_COLUMNS),
});

/**
 * Inserts a new adjustment (in any status: a stock count inserts one approved) and its lines;
 * returns the record at `location` with its lines in line order. One statement where the dialect
 * takes an insert in a WITH (up to one batch of lines), the adjustment then its lines otherwise.
 */
export async function insertAdjustmentWithItems(tx: Tx, row: NewAdjustment, location: AdjustmentLocation, lines: readonly NewAdjustmentLine[]): Promise<AdjustmentWithItems> {
  if (!tx.dialect.insertsInWith || lines.length === 0 || lines.length > LINES_PER_INSERT) {
    const record = await insertAdjustment(tx, row, location);
    return withFields(record, { items: await insertAdjustmentItems(tx, lines.map((line) => withFields(line, { adjustment_id: record.id }))) });
  }
  const rows = await execute(tx, insertWithLines.with(withFields(row, { lines })));
  if (rows[0] === undefined) throw new Error('insert into adjustments returned no row');
  const items = rows.map((r) => prefixedLine(r, r.id)).sort((a, b) => a.lineNo - b.lineNo);
  return withFields(toAdjustmentRecord(rows[0], location), { items: await withLots(tx, items) });
}

/** The columns a decision sets; the ones it does not decide stay as they were. */
export type AdjustmentDecisionColumns =
  | { status: 'approved'; approvedAt: string; approvedBy: Actor; updatedAt: string }
  | { status: 'rejected'; rejectedAt: string; rejectedBy: Actor; rejectionReason: string; updatedAt: string };

const markApproved = preparedQuery({
  build: (scope, param: ParamRef<{ id: number; approvedAt: string; approvedBy: string; updatedAt: string }>) =>
    scope.db
      .updateTable('adjustments')
      .set({ status: 'approved', approved_at: param('approvedAt'), approved_by: param('approvedBy'), updated_at: param('updatedAt') })
      .where('id', '=', param('id'))
      .where('status', '=', 'pending'),
});

const markRejected = preparedQuery({
  build: (scope, param: ParamRef<{ id: number; rejectedAt: string; rejectedBy: string; rejectionReason: string; updatedAt: string }>) =>
    scope.db
      .updateTable('adjustments')
      .set({ status: 'rejected', rejected_at: param('rejectedAt'), rejected_by: param('rejectedBy'), rejection_reason: param('rejectionReason'), updated_at: param('updatedAt') })
      .where('id', '=', param('id'))
      .where('status', '=', 'pending'),
});

/**
 * Writes a decision on a pending adjustment (locked by `lockAdjustment`), which moves it in the
 * list totals (migration 014's triggers), and returns the decided record. The update only matches a pending row, so a decision
 * can never overwrite another.
 */
export async function recordAdjustmentDecision(tx: Tx, record: AdjustmentRecord, decision: AdjustmentDecisionColumns): Promise<AdjustmentRecord> {
  const result =
    decision.status === 'approved'
      ? await executeWrite(tx, markApproved.with({ id: record.id, approvedAt: decision.approvedAt, approvedBy: JSON.stringify(decision.approvedBy), updatedAt: decision.updatedAt }))
      : await executeWrite(tx, markRejected.with({
          id: record.id,
          rejectedAt: decision.rejectedAt,
          rejectedBy: JSON.stringify(decision.rejectedBy),
          rejectionReason: decision.rejectionReason,
          updatedAt: decision.updatedAt,
        }));
  if (result.affectedRows !== 1) throw new Error(`adjustment ${record.number} was not pending when its decision was written`);
  return decision.status === 'approved'
    ? withFields(record, { status: 'approved' as const, approvedAt: decision.approvedAt, approvedBy: decision.approvedBy, updatedAt: decision.updatedAt })
    : withFields(record, {
        status: 'rejected' as const,
        rejectedAt: decision.rejectedAt,
        rejectedBy: decision.rejectedBy,
        rejectionReason: decision.rejectionReason,
        updatedAt: decision.updatedAt,
      });
}

export interface AdjustmentFilters {
  status?: AdjustmentStatus | undefined;
  locationId?: number | undefined;
  type?: AdjustmentType | undefined;
}

export interface ListParams {
  tenantId: string;
  status: AdjustmentStatus | undefined;
  locationId: number | undefined;
  type: AdjustmentType | undefined;
  limit: number;
  offset: number;
}

/** Which optional filters are set: the only thing that changes the list's SQL. */
const filterShape = (p: ListParams) => ({ status: p.status !== undefined, location: p.locationId !== undefined, type: p.type !== undefined });
type FilterShape = ReturnType<typeof filterShape>;

function filtered(scope: Scope, param: ParamRef<ListParams>, shape: FilterShape) {
  let base = scope.db.selectFrom('adjustments').where('adjustments.tenant_id', '=', param('tenantId'));
  if (shape.status) base = base.where('adjustments.status', '=', param('status') as AdjustmentStatus);
  if (shape.location) base = base.where('adjustments.location_id', '=', param('locationId') as number);
  if (shape.type) base = base.where('adjustments.type', '=', param('type') as AdjustmentType);
  return base;
}

// The page is found on the index alone (ids only; OFFSET skips index entries, not rows), then only
// its rows are read and joined: a deep page costs little more than the first.
const pageFiltered = preparedQuery({
  shape: filterShape,
  build: (scope, param: ParamRef<ListParams>, shape) =>
    scope.db
      .selectFrom(
        filtered(scope, param, shape)
          .select('adjustments.id')
          .orderBy('adjustments.created_at', 'desc')
          .orderBy('adjustments.id', 'desc')
          .limit(param('limit'))
          .offset(param('offset'))
          .as('page'),
      )
      .innerJoin('adjustments', 'adjustments.id', 'page.id')
      .innerJoin('locations', 'locations.id', 'adjustments.location_id')
      .selectAll('adjustments')
      .select(LOCATION_COLUMNS)
      // The kept total rides on every row (an uncorrelated subquery: evaluated once), so a page
      // with rows is one statement.
      .select(adjustmentTotalOf(scope, param, { status: shape.status, locationId: shape.location, type: shape.type }).as('list_total'))
      .orderBy('adjustments.created_at', 'desc')
      .orderBy('adjustments.id', 'desc'),
});

/**
 * A page of the tenant's adjustments, newest first (created_at, then id, descending), and the
 * total from the kept counts (list-count-repository.ts), which costs the same at any history size:
 * one statement for a page with rows, a second only for an empty page.
 */
export async function listAdjustments(
  scope: Scope,
  tenantId: string,
  filters: AdjustmentFilters,
  page: PageRequest,
): Promise<{ rows: AdjustmentSummary[]; total: number }> {
  const params = {
    tenantId,
    status: filters.status || undefined,
    locationId: filters.locationId,
    type: filters.type || undefined,
    limit: page.perPage,
    offset: pageOffset(page),
  };
  const rows = await execute(scope, pageFiltered.with(params));
  // A page past the end (or of no adjustments) has no row to carry the total: it is read alone.
  const total = rows[0] === undefined ? await keptAdjustmentTotal(scope, params) : keptTotal({ total: rows[0].list_total });
  return { rows: rows.map((row) => toAdjustmentSummary(row, joinedLocation(row))), total };
}

// The prepared queries themselves, for the benchmarks' bare routes (bench/bench-statements.ts),
// which run the statements these compile on the raw drivers.
export {
  byNumber as adjustmentByNumberQuery,
  detailByNumber as adjustmentDetailQuery,
  lockWithLinesByNumber as lockAdjustmentWithItemsQuery,
  insertAdjustmentRow as insertAdjustmentQuery,
  insertItemRows as insertAdjustmentItemsQuery,
  insertWithLines as insertAdjustmentWithLinesQuery,
  markApproved as markApprovedQuery,
  pageFiltered as adjustmentPageQuery,
};
