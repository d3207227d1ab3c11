// Order holds (docs/holds.md): rows, their mapping to records, and the queries over them. Every read
// reports the status a hold has by the database's clock: an active hold past its expiry reads as
// expired before the sweep has written it so (docs/holds.md#states-and-expiry).
import type { Expression, ExpressionBuilder, Insertable, Selectable, SqlBool, Updateable } from 'kysely';
import { type Actor, type Dec, type LotAllocation, type PageRequest, type ReservationStatus, fromScaled, pageOffset, withFields } from '@pits/domain';
import { listAllocations } from './lot-repository.js';
import type { DB, ReservationItemTable, ReservationTable } from '../schema/index.js';
import type { Scope, Tx } from '../transaction.js';
import { parseActor } from './adjustment-repository.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow, executeWrite } from '../execution/execute.js';
import { type ParamRef, markedColumns, markedList, markedRows, preparedQuery } from '../parameterised-query.js';

export type ReservationRow = Selectable<ReservationTable>;

export interface ReservationItemRecord {
  productId: number;
  sku: string;
  productName: string;
  quantity: Dec;
  consumedQuantity: Dec;
  /** The lots the line took, first expired first (docs/lots.md#holds-and-transfers); empty for a product without lots. */
  allocations: LotAllocation[];
}

export interface ReservationRecord {
  id: number;
  tenantId: string;
  number: string;
  reference: string;
  locationId: number;
  /** As of the database's clock when read: `expired` once past `expiresAt`, even before the sweep. */
  status: ReservationStatus;
  expiresAt: string;
  consumedAt: string | null;
  releasedAt: string | null;
  releaseReason: string | null;
  createdBy: Actor;
  createdAt: string;
  updatedAt: string;
  items: ReservationItemRecord[];
}

// The statements of creating and consuming a hold are prepared (built once per dialect and shape,
// then only bound: parameterised-query.ts), as on the other hot write paths.

const clock = preparedQuery({
  build: (scope, _param: ParamRef<Record<string, never>>) => scope.db.selectNoFrom(() => [scope.dialect.clockNow().as('now')]),
});

/** The database's clock, as an ISO-8601 string. */
export async function databaseNow(scope: Scope): Promise<string> {
  const row = await executeTakeFirstOrThrow(scope, clock.with({}));
  return new Date(row.now).toISOString();
}

const RESERVATION_COLUMNS = [
  'reservations.id',
  'reservations.tenant_id',
  'reservations.number',
  'reservations.reference',
  'reservations.location_id',
  'reservations.expires_at',
  'reservations.consumed_at',
  'reservations.released_at',
  'reservations.release_reason',
  'reservations.created_by',
  'reservations.created_at',
  'reservations.updated_at',
] as const;

type ReservationsBuilder = ExpressionBuilder<DB, 'reservations'>;
/** A point in time a query compares expiries with: the database's clock, or a time read from it. */
type Instant = string | Expression<string>;

/**
 * The domain's `effectiveStatus` (docs/holds.md#states-and-expiry) in SQL, its one home here: a
 * hold stored active whose expiry is at or before `now` has run out and reads as expired.
 * `reservation-repository.test.ts` holds the two to the same answers.
 */
function ranOut(eb: ReservationsBuilder, now: Instant): Expression<SqlBool> {
  return eb.and([eb('reservations.status', '=', 'active'), eb('reservations.expires_at', '<=', now)]);
}

/** The other side of `ranOut` among active holds: stored active and not yet at its expiry. */
function stillActive(eb: ReservationsBuilder, now: Instant): Expression<SqlBool> {
  return eb.and([eb('reservations.status', '=', 'active'), eb('reservations.expires_at', '>', now)]);
}

/**
 * The reservations rows as of the database's clock: an active hold past its expiry reads as the
 * sweep will write it, `expired`, released and last updated at its `expires_at`.
 */
function withEffectiveStatus(scope: Scope) {
  return scope.db
    .selectFrom('reservations')
    .select(RESERVATION_COLUMNS.filter((column) => column !== 'reservations.released_at' && column !== 'reservations.updated_at'))
    .select((eb) => {
      const now = scope.dialect.clockNow();
      const expired = () => ranOut(eb, now);
      return [
        eb.case().when(expired()).then(eb.val<ReservationStatus>('expired')).else(eb.ref('reservations.status')).end().as('status'),
        eb.case().when(expired()).then(eb.ref('reservations.expires_at')).else(eb.ref('reservations.released_at')).end().as('released_at'),
        eb.case().when(expired()).then(eb.ref('reservations.expires_at')).else(eb.ref('reservations.updated_at')).end().as('updated_at'),
      ];
    });
}

type EffectiveRow = Omit<ReservationRow, 'status' | 'partner_id'> & { status: ReservationStatus };

function toItem(row: Selectable<ReservationItemTable>, allocations: LotAllocation[] = []): ReservationItemRecord {
  return { productId: row.product_id, sku: row.sku, productName: row.product_name, quantity: fromScaled(row.quantity), consumedQuantity: fromScaled(row.consumed_quantity), allocations };
}

function toRecord(row: EffectiveRow, items: ReservationItemRecord[]): ReservationRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    number: row.number,
    reference: row.reference,
    locationId: row.location_id,
    status: row.status,
    expiresAt: row.expires_at,
    consumedAt: row.consumed_at,
    releasedAt: row.released_at,
    releaseReason: row.release_reason,
    createdBy: parseActor(row.created_by),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    items,
  };
}

/** The stored lines of reservations, in line order per reservation (`ids`: at most 500). */
const itemsOfReservations = preparedQuery({
  shape: (p: { ids: number[] }) => p.ids.length,
  build: (scope, param: ParamRef<{ ids: number[] }>, count) =>
    scope.db.selectFrom('reservation_items').selectAll().where('reservation_id', 'in', markedList(param, 'ids', count)).orderBy('reservation_id').orderBy('line_no'),
});

async function itemsOf(scope: Scope, reservationIds: readonly number[]): Promise<Map<number, ReservationItemRecord[]>> {
  const byReservation = new Map<number, ReservationItemRecord[]>();
  const lines = await listReservationItems(scope, reservationIds);
  const withLots = [...lines.values()].flat().filter((row) => Number(row.has_lots) === 1);
  const allocations = withLots.length === 0 ? new Map() : await listAllocations(scope, 'reservation', withLots.map((row) => row.id));
  for (const [id, rows] of lines) byReservation.set(id, rows.map((row) => toItem(row, allocations.get(row.id))));
  return byReservation;
}

const byNumber = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; number: string }>) =>
    withEffectiveStatus(scope).where('reservations.tenant_id', '=', param('tenantId')).where('reservations.number', '=', param('number')),
});

/** A reservation of the tenant by its public number, with its lines; another tenant's is undefined. */
export async function findReservation(scope: Scope, tenantId: string, number: string): Promise<ReservationRecord | undefined> {
  const row = await executeTakeFirst(scope, byNumber.with({ tenantId, number }));
  if (!row) return undefined;
  return toRecord(row, (await itemsOf(scope, [row.id])).get(row.id) ?? []);
}

const lockByNumber = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; number: string }>) =>
    scope.dialect.lockRows(scope.db.selectFrom('reservations').selectAll().where('tenant_id', '=', param('tenantId')).where('number', '=', param('number'))),
});

/** Locks the reservation row until the transaction ends (its stored status, not the effective one). */
export async function lockReservation(tx: Tx, tenantId: string, number: string): Promise<ReservationRow | undefined> {
  return executeTakeFirst(tx, lockByNumber.with({ tenantId, number }));
}

const lockActiveByReference = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; reference: string }>) =>
    scope.dialect.lockRows(scope.db.selectFrom('reservations').selectAll().where('tenant_id', '=', param('tenantId')).where('reference', '=', param('reference')).where('status', '=', 'active')),
});

/** Locks the tenant's active hold of `reference`, if there is one. */
export async function lockActiveReservationOf(tx: Tx, tenantId: string, reference: string): Promise<ReservationRow | undefined> {
  return executeTakeFirst(tx, lockActiveByReference.with({ tenantId, reference }));
}

/** Where a sweep run has got to: the last hold a pass found, in expiry order. */
export interface DueCursor {
  expiresAt: string;
  id: number;
}

/**
 * Active holds past `at` (the database's clock, read first, so the query reads the expiry index as
 * a range), after `after` in (expires_at, id) order, oldest expiry first, locked; rows another
 * transaction holds are skipped (another sweeper, or a call on that hold, has them).
 */
function dueHolds(tx: Tx, at: string, limit: number, after: DueCursor | undefined) {
  let query = tx.db.selectFrom('reservations').selectAll().where((eb) => ranOut(eb, at));
  if (after) query = query.where((eb) => eb(eb.refTuple('expires_at', 'id'), '>', eb.tuple(after.expiresAt, after.id)));
  return tx.dialect.lockRowsSkipLocked(query.orderBy('expires_at').orderBy('id').limit(limit));
}

/** Up to `limit` due holds (see `dueHolds`), locked. */
export async function lockDueReservations(tx: Tx, at: string, limit: number, after?: DueCursor): Promise<ReservationRow[]> {
  return execute(tx, dueHolds(tx, at, limit, after));
}

/** The first due hold after `after`, locked. */
export async function lockDueReservation(tx: Tx, at: string, after?: DueCursor): Promise<ReservationRow | undefined> {
  return executeTakeFirst(tx, dueHolds(tx, at, 1, after));
}

/** How many active holds are past their expiry, and the oldest expiry among them (metrics). */
export async function dueHoldBacklog(scope: Scope): Promise<{ at: string; due: number; oldestExpiresAt: string | null }> {
  const at = await databaseNow(scope);
  const row = await executeTakeFirstOrThrow(
    scope,
    scope.db
      .selectFrom('reservations')
      .where((eb) => ranOut(eb, at))
      .select((eb) => [eb.fn.countAll<number | string>().as('due'), eb.fn.min('expires_at').as('oldest')]),
  );
  return { at, due: Number(row.due), oldestExpiresAt: row.oldest === null ? null : new Date(row.oldest).toISOString() };
}

/** The stored lines of reservations, by reservation id, in line order. */
export async function listReservationItems(scope: Scope, reservationIds: readonly number[]): Promise<Map<number, Selectable<ReservationItemTable>[]>> {
  const byReservation = new Map<number, Selectable<ReservationItemTable>[]>(reservationIds.map((id) => [id, []]));
  if (reservationIds.length === 0) return byReservation;
  for (let i = 0; i < reservationIds.length; i += 500) {
    const rows = await execute(scope, itemsOfReservations.with({ ids: reservationIds.slice(i, i + 500) }));
    for (const row of rows) byReservation.get(row.reservation_id)?.push(row);
  }
  return byReservation;
}

/** A new reservation row: every column but the generated id. */
export type NewReservation = Insertable<ReservationTable> & Omit<ReservationRow, 'id'>;
const RESERVATION_INSERT_COLUMNS = [
  'tenant_id',
  'partner_id',
  'number',
  'reference',
  'location_id',
  'status',
  'expires_at',
  'consumed_at',
  'released_at',
  'release_reason',
  'created_by',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof NewReservation)[];

const insertReservationRow = preparedQuery({
  build: (scope, param: ParamRef<NewReservation>) =>
    scope.dialect.insertReturning(scope.db.insertInto('reservations').values(markedColumns(param, RESERVATION_INSERT_COLUMNS)), ['id']),
});

export async function insertReservation(tx: Tx, row: NewReservation): Promise<number> {
  const { id } = await executeTakeFirstOrThrow(tx, insertReservationRow.with(row));
  return id;
}

/** A new line of a reservation: every column but the generated id. */
export type NewReservationItem = Insertable<ReservationItemTable> & Omit<Selectable<ReservationItemTable>, 'id' | 'has_lots'>;
const ITEM_INSERT_COLUMNS = ['reservation_id', 'line_no', 'product_id', 'sku', 'product_name', 'quantity', 'consumed_quantity'] as const satisfies readonly (keyof NewReservationItem)[];

const insertItemRows = preparedQuery({
  shape: (p: { rows: NewReservationItem[] }) => p.rows.length,
  build: (scope, param: ParamRef<{ rows: NewReservationItem[] }>, count) => scope.db.insertInto('reservation_items').values(markedRows(param, 'rows', count, ITEM_INSERT_COLUMNS)),
});

/** Marks lines of a hold as having taken lots; returns the row id of each, by line number. */
export async function markLinesWithLots(tx: Tx, reservationId: number, lineNumbers: readonly number[]): Promise<Map<number, number>> {
  const lines = { reservationId, lineNumbers: [...lineNumbers] };
  await executeWrite(tx, markLines.with(lines));
  return new Map((await execute(tx, lineIds.with(lines))).map((r) => [Number(r.line_no), Number(r.id)]));
}

type HoldLines = { reservationId: number; lineNumbers: number[] };

const markLines = preparedQuery({
  shape: (p: HoldLines) => p.lineNumbers.length,
  build: (scope, param: ParamRef<HoldLines>, count) =>
    scope.db.updateTable('reservation_items').set({ has_lots: 1 }).where('reservation_id', '=', param('reservationId')).where('line_no', 'in', markedList(param, 'lineNumbers', count)),
});

const lineIds = preparedQuery({
  shape: (p: HoldLines) => p.lineNumbers.length,
  build: (scope, param: ParamRef<HoldLines>, count) =>
    scope.db.selectFrom('reservation_items').select(['id', 'line_no']).where('reservation_id', '=', param('reservationId')).where('line_no', 'in', markedList(param, 'lineNumbers', count)),
});

/** A reservation's lines, 200 rows per statement. */
export async function insertReservationItems(tx: Tx, rows: readonly NewReservationItem[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) await executeWrite(tx, insertItemRows.with({ rows: rows.slice(i, i + 200) }));
}

type ReservationChange = Updateable<ReservationTable>;
type ChangeParams = ReservationChange & { id: number };

/**
 * The update of an active reservation's columns: one template per set of columns changed (extend,
 * release, consume and expire each change their own), the columns in the order given.
 */
const updateActive = preparedQuery({
  shape: (p: ChangeParams) => Object.keys(p).filter((column) => column !== 'id' && p[column as keyof ChangeParams] !== undefined),
  build: (scope, param: ParamRef<ChangeParams>, columns) =>
    scope.db
      .updateTable('reservations')
      .set(markedColumns(param, columns as (keyof ReservationChange & string)[]))
      .where('id', '=', param('id'))
      .where('status', '=', 'active'),
});

/** Ends or extends a reservation locked by this transaction; only a row still active is changed. */
export async function updateActiveReservation(tx: Tx, row: ReservationRow, set: ReservationChange): Promise<void> {
  const result = await executeWrite(tx, updateActive.with(withFields(set, { id: row.id })));
  if (result.affectedRows !== 1) throw new Error(`reservation ${row.number} was not active when its change was written`);
}

const setConsumed = preparedQuery({
  build: (scope, param: ParamRef<{ reservationId: number; lineNo: number; consumed: number }>) =>
    scope.db.updateTable('reservation_items').set({ consumed_quantity: param('consumed') }).where('reservation_id', '=', param('reservationId')).where('line_no', '=', param('lineNo')),
});

export async function setConsumedQuantity(tx: Tx, reservationId: number, lineNo: number, consumed: number): Promise<void> {
  await executeWrite(tx, setConsumed.with({ reservationId, lineNo, consumed }));
}

export interface ReservationFilters {
  /** As of the database's clock: `active` leaves out holds past their expiry, `expired` takes them in. */
  status?: ReservationStatus | undefined;
  locationId?: number | undefined;
  reference?: string | undefined;
  /** With `sku`, both name the same line's product. */
  productId?: number | undefined;
  /** The product's SKU as the catalogue has it now. */
  sku?: string | undefined;
}

/** A page of the tenant's reservations, newest first (created_at, then id), and the total. */
export async function listReservations(scope: Scope, tenantId: string, filters: ReservationFilters, page: PageRequest): Promise<{ rows: ReservationRecord[]; total: number }> {
  let base = scope.db.selectFrom('reservations').where('reservations.tenant_id', '=', tenantId);
  const now = scope.dialect.clockNow();
  if (filters.status === 'active') base = base.where((eb) => stillActive(eb, now));
  else if (filters.status === 'expired') base = base.where((eb) => eb.or([eb('reservations.status', '=', 'expired'), ranOut(eb, now)]));
  else if (filters.status) base = base.where('reservations.status', '=', filters.status);
  if (filters.locationId !== undefined) base = base.where('reservations.location_id', '=', filters.locationId);
  if (filters.reference !== undefined) base = base.where('reservations.reference', '=', filters.reference);
  const { productId, sku } = filters;
  if (productId !== undefined || sku !== undefined) {
    base = base.where((eb) => {
      let line = eb.selectFrom('reservation_items').innerJoin('products', 'products.id', 'reservation_items.product_id').select('reservation_items.id').whereRef('reservation_items.reservation_id', '=', 'reservations.id');
      if (productId !== undefined) line = line.where('reservation_items.product_id', '=', productId);
      if (sku !== undefined) line = line.where('products.sku', '=', sku);
      return eb.exists(line);
    });
  }
  const ids = base.select('reservations.id').orderBy('reservations.created_at', 'desc').orderBy('reservations.id', 'desc').limit(page.perPage).offset(pageOffset(page));
  const [count, rows] = await Promise.all([
    executeTakeFirstOrThrow(scope, base.select((eb) => eb.fn.countAll<number>().as('total'))),
    execute(scope, withEffectiveStatus(scope).where('reservations.id', 'in', ids).orderBy('reservations.created_at', 'desc').orderBy('reservations.id', 'desc')),
  ]);
  const items = await itemsOf(scope, rows.map((r) => r.id));
  return { rows: rows.map((r) => toRecord(r, items.get(r.id) ?? [])), total: Number(count.total) };
}

/** Per stock row, what active holds keep, for the invariant check. */
export async function heldByActiveReservations(scope: Scope, tenantId?: string): Promise<{ tenantId: string; locationId: number; productId: number; held: Dec }[]> {
  let query = scope.db
    .selectFrom('reservation_items')
    .innerJoin('reservations', 'reservations.id', 'reservation_items.reservation_id')
    .where('reservations.status', '=', 'active')
    .select((eb) => ['reservations.tenant_id', 'reservations.location_id', 'reservation_items.product_id', eb.fn.sum<number>('reservation_items.quantity').as('held')])
    .groupBy(['reservations.tenant_id', 'reservations.location_id', 'reservation_items.product_id']);
  if (tenantId) query = query.where('reservations.tenant_id', '=', tenantId);
  const rows = await execute(scope, query);
  return rows.map((r) => ({ tenantId: r.tenant_id, locationId: r.location_id, productId: r.product_id, held: fromScaled(String(r.held)) }));
}

// For the benchmarks' bare routes (bench/bench-statements.ts).
export {
  byNumber as reservationByNumberQuery,
  clock as databaseNowQuery,
  insertItemRows as insertReservationItemsQuery,
  insertReservationRow as insertReservationQuery,
  itemsOfReservations as reservationItemsQuery,
  lineIds as lotLineIdsQuery,
  markLines as markLotLinesQuery,
  lockActiveByReference as lockActiveReservationOfQuery,
  lockByNumber as lockReservationQuery,
  setConsumed as setConsumedQuantityQuery,
  updateActive as updateActiveReservationQuery,
};
