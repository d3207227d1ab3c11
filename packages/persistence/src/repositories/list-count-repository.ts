// Kept list totals (issue 15): for each tenant, how many adjustments, transfers and inbound
// shipments it has in each combination of the values their list filters take (status, location,
// type; status, from and to location; status, location). The repositories that insert those
// documents or change their status call `change…Counts` in the same transaction, so every writer
// keeps them; a list's total is a sum over the matching rows, whose number is bounded by the
// tenant's statuses x locations (x types), never by its history.
//
// A status change is one statement: the old combination -1 and the new one +1, always in that
// order. With row locks the upsert holds those count rows until commit; since every transaction
// takes them last and in the order of the state machines (a status is left before the next one is
// entered), two transactions never wait on each other's count rows in a cycle.
import type { AdjustmentStatus, AdjustmentType, InboundStatus, TransferStatus } from '@pits/domain';
import { type ParamRef, markedRows, preparedQuery } from '../parameterised-query.js';
import { type Scope, type Tx, withTransaction } from '../transaction.js';
import { execute, executeTakeFirst, executeWrite } from '../execution/execute.js';

/** One adjustment's place among the adjustment list's filters. */
export interface AdjustmentCountKey {
  status: AdjustmentStatus;
  location_id: number;
  type: AdjustmentType;
}

/** One transfer's place among the transfer list's filters (its dates are counted by a real COUNT). */
export interface TransferCountKey {
  status: TransferStatus;
  from_location_id: number;
  to_location_id: number;
}

/** One inbound shipment's place among the inbound list's filters. */
export interface InboundCountKey {
  status: InboundStatus;
  location_id: number;
}

type Change<K> = K & { tenant_id: string; count: number };

/**
 * The count changes of one insert (`from` null) or one status change; none when nothing moved
 * (a receipt that leaves a shipment partial).
 */
function changes<K extends { status: string }>(tenantId: string, from: K | null, to: K): Change<K>[] {
  if (from && from.status === to.status) return [];
  return [...(from ? [{ ...from, tenant_id: tenantId, count: -1 }] : []), { ...to, tenant_id: tenantId, count: 1 }];
}

const ADJUSTMENT_KEY = ['tenant_id', 'status', 'location_id', 'type'] as const;
const TRANSFER_KEY = ['tenant_id', 'status', 'from_location_id', 'to_location_id'] as const;
const INBOUND_KEY = ['tenant_id', 'status', 'location_id'] as const;

const bumpAdjustments = preparedQuery({
  shape: (p: { rows: Change<AdjustmentCountKey>[] }) => p.rows.length,
  build: (scope, param, rows) =>
    scope.dialect.upsert(scope.db.insertInto('adjustment_list_counts').values(markedRows(param, 'rows', rows, [...ADJUSTMENT_KEY, 'count'])), ADJUSTMENT_KEY, (eb) => ({
      count: eb('adjustment_list_counts.count', '+', eb.ref('excluded.count')),
    })),
});

const bumpTransfers = preparedQuery({
  shape: (p: { rows: Change<TransferCountKey>[] }) => p.rows.length,
  build: (scope, param, rows) =>
    scope.dialect.upsert(scope.db.insertInto('transfer_list_counts').values(markedRows(param, 'rows', rows, [...TRANSFER_KEY, 'count'])), TRANSFER_KEY, (eb) => ({
      count: eb('transfer_list_counts.count', '+', eb.ref('excluded.count')),
    })),
});

const bumpInbounds = preparedQuery({
  shape: (p: { rows: Change<InboundCountKey>[] }) => p.rows.length,
  build: (scope, param, rows) =>
    scope.dialect.upsert(scope.db.insertInto('inbound_list_counts').values(markedRows(param, 'rows', rows, [...INBOUND_KEY, 'count'])), INBOUND_KEY, (eb) => ({
      count: eb('inbound_list_counts.count', '+', eb.ref('excluded.count')),
    })),
});

/** Counts an adjustment inserted at `to` (`from` null), or moved from `from` to `to`. */
export async function changeAdjustmentCounts(tx: Tx, tenantId: string, from: AdjustmentCountKey | null, to: AdjustmentCountKey): Promise<void> {
  const rows = changes(tenantId, from, to);
  if (rows.length > 0) await executeWrite(tx, bumpAdjustments.with({ rows }));
}

/** Counts a transfer inserted at `to` (`from` null), or moved from `from` to `to`. */
export async function changeTransferCounts(tx: Tx, tenantId: string, from: TransferCountKey | null, to: TransferCountKey): Promise<void> {
  const rows = changes(tenantId, from, to);
  if (rows.length > 0) await executeWrite(tx, bumpTransfers.with({ rows }));
}

/** Counts a shipment inserted at `to` (`from` null), or moved from `from` to `to`. */
export async function changeInboundCounts(tx: Tx, tenantId: string, from: InboundCountKey | null, to: InboundCountKey): Promise<void> {
  const rows = changes(tenantId, from, to);
  if (rows.length > 0) await executeWrite(tx, bumpInbounds.with({ rows }));
}

// ---- totals -------------------------------------------------------------------------------------

export interface AdjustmentTotalParams {
  tenantId: string;
  status: AdjustmentStatus | undefined;
  locationId: number | undefined;
  type: AdjustmentType | undefined;
}

interface TransferTotalParams {
  tenantId: string;
  status: TransferStatus | undefined;
  fromLocationId: number | undefined;
  toLocationId: number | undefined;
}

interface InboundTotalParams {
  tenantId: string;
  status: InboundStatus | undefined;
  locationId: number | undefined;
}

/** Which adjustment list filters are set (the total's SQL differs by them alone). */
export type AdjustmentTotalShape = { status: boolean; locationId: boolean; type: boolean };

/**
 * The kept total of the adjustment list filters, as a query of one row and one column (`total`):
 * a statement of its own, or a scalar subquery riding on the page's statement (adjustment-repository.ts).
 */
export function adjustmentTotalOf(scope: Scope, param: ParamRef<AdjustmentTotalParams>, set: AdjustmentTotalShape) {
  let q = scope.db.selectFrom('adjustment_list_counts').where('tenant_id', '=', param('tenantId'));
  if (set.status) q = q.where('status', '=', param('status')!);
  if (set.locationId) q = q.where('location_id', '=', param('locationId')!);
  if (set.type) q = q.where('type', '=', param('type')!);
  return q.select((eb) => eb.fn.sum<number | string | null>('count').as('total'));
}

const adjustmentTotal = preparedQuery({
  shape: (p: AdjustmentTotalParams): AdjustmentTotalShape => ({ status: p.status !== undefined, locationId: p.locationId !== undefined, type: p.type !== undefined }),
  build: (scope, param: ParamRef<AdjustmentTotalParams>, set) => adjustmentTotalOf(scope, param, set),
});

const transferTotal = preparedQuery({
  shape: (p: TransferTotalParams) => ({ status: p.status !== undefined, fromLocationId: p.fromLocationId !== undefined, toLocationId: p.toLocationId !== undefined }),
  build: (scope, param: ParamRef<TransferTotalParams>, set) => {
    let q = scope.db.selectFrom('transfer_list_counts').where('tenant_id', '=', param('tenantId'));
    if (set.status) q = q.where('status', '=', param('status')!);
    if (set.fromLocationId) q = q.where('from_location_id', '=', param('fromLocationId')!);
    if (set.toLocationId) q = q.where('to_location_id', '=', param('toLocationId')!);
    return q.select((eb) => eb.fn.sum<number | string | null>('count').as('total'));
  },
});

const inboundTotal = preparedQuery({
  shape: (p: InboundTotalParams) => ({ status: p.status !== undefined, locationId: p.locationId !== undefined }),
  build: (scope, param: ParamRef<InboundTotalParams>, set) => {
    let q = scope.db.selectFrom('inbound_list_counts').where('tenant_id', '=', param('tenantId'));
    if (set.status) q = q.where('status', '=', param('status')!);
    if (set.locationId) q = q.where('location_id', '=', param('locationId')!);
    return q.select((eb) => eb.fn.sum<number | string | null>('count').as('total'));
  },
});

// A sum of bigints may come back as a numeric (a string), and is null over no rows.
export const keptTotal = (row: { total: number | string | null } | undefined): number => Number(row?.total ?? 0);

/** The number of the tenant's adjustments matching the list filters, from the kept counts. */
export async function keptAdjustmentTotal(scope: Scope, params: AdjustmentTotalParams): Promise<number> {
  return keptTotal(await executeTakeFirst(scope, adjustmentTotal.with(params)));
}

/** The number of the tenant's transfers matching the list filters other than dates, from the kept counts. */
export async function keptTransferTotal(scope: Scope, params: TransferTotalParams): Promise<number> {
  return keptTotal(await executeTakeFirst(scope, transferTotal.with(params)));
}

/** The number of the tenant's inbound shipments matching the list filters, from the kept counts. */
export async function keptInboundTotal(scope: Scope, params: InboundTotalParams): Promise<number> {
  return keptTotal(await executeTakeFirst(scope, inboundTotal.with(params)));
}

// ---- recount and check ----------------------------------------------------------------------

/**
 * Rebuilds the tenant's kept counts from its documents, in one transaction. For rows written
 * around the repositories (a bulk load, a benchmark's seed); the repositories keep them otherwise.
 *
 * @example await recountListCounts(database, tenantId);
 */
export async function recountListCounts(scope: Scope, tenantId: string): Promise<void> {
  await withTransaction(scope, async (tx) => {
    await executeWrite(tx, tx.db.deleteFrom('adjustment_list_counts').where('tenant_id', '=', tenantId));
    await executeWrite(tx, tx.db.deleteFrom('transfer_list_counts').where('tenant_id', '=', tenantId));
    await executeWrite(tx, tx.db.deleteFrom('inbound_list_counts').where('tenant_id', '=', tenantId));
    await executeWrite(tx, tx.db
      .insertInto('adjustment_list_counts')
      .columns([...ADJUSTMENT_KEY, 'count'])
      .expression(
        tx.db.selectFrom('adjustments').select([...ADJUSTMENT_KEY, (eb) => eb.fn.countAll<number>().as('count')]).where('tenant_id', '=', tenantId).groupBy([...ADJUSTMENT_KEY]),
      ));
    await executeWrite(tx, tx.db
      .insertInto('transfer_list_counts')
      .columns([...TRANSFER_KEY, 'count'])
      .expression(tx.db.selectFrom('transfers').select([...TRANSFER_KEY, (eb) => eb.fn.countAll<number>().as('count')]).where('tenant_id', '=', tenantId).groupBy([...TRANSFER_KEY])));
    await executeWrite(tx, tx.db
      .insertInto('inbound_list_counts')
      .columns([...INBOUND_KEY, 'count'])
      .expression(
        tx.db.selectFrom('inbound_shipments').select([...INBOUND_KEY, (eb) => eb.fn.countAll<number>().as('count')]).where('tenant_id', '=', tenantId).groupBy([...INBOUND_KEY]),
      ));
  });
}

/** A combination whose kept count differs from a real COUNT(*) of the documents. */
export interface ListCountMismatch {
  list: 'adjustments' | 'transfers' | 'inbound';
  /** The combination, e.g. `{status: 'pending', location_id: 3, type: 'increase'}`. */
  key: Record<string, string | number>;
  kept: number;
  actual: number;
}

function compare(list: ListCountMismatch['list'], keyColumns: readonly string[], kept: Record<string, unknown>[], actual: Record<string, unknown>[]): ListCountMismatch[] {
  const keyOf = (row: Record<string, unknown>) => JSON.stringify(keyColumns.map((c) => row[c]));
  const byKey = new Map<string, { key: Record<string, string | number>; kept: number; actual: number }>();
  const entry = (row: Record<string, unknown>) => {
    const id = keyOf(row);
    let found = byKey.get(id);
    if (!found) {
      found = { key: Object.fromEntries(keyColumns.map((c) => [c, row[c] as string | number])), kept: 0, actual: 0 };
      byKey.set(id, found);
    }
    return found;
  };
  for (const row of kept) entry(row).kept += Number(row.count);
  for (const row of actual) entry(row).actual += Number(row.count);
  return [...byKey.values()].filter((e) => e.kept !== e.actual).map((e) => ({ list, ...e }));
}

/**
 * Every combination of the tenant's list filters whose kept count is not the real COUNT(*) of its
 * documents; empty when the counts are right.
 *
 * @example expect(await findListCountMismatches(database, tenantId)).toEqual([]);
 */
export async function findListCountMismatches(scope: Scope, tenantId: string): Promise<ListCountMismatch[]> {
  const keys = (columns: readonly string[]) => columns.filter((c) => c !== 'tenant_id');
  const [keptAdjustments, keptTransfers, keptInbounds, adjustments, transfers, inbounds] = await Promise.all([
    execute(scope, scope.db.selectFrom('adjustment_list_counts').selectAll().where('tenant_id', '=', tenantId)),
    execute(scope, scope.db.selectFrom('transfer_list_counts').selectAll().where('tenant_id', '=', tenantId)),
    execute(scope, scope.db.selectFrom('inbound_list_counts').selectAll().where('tenant_id', '=', tenantId)),
    execute(scope, scope.db.selectFrom('adjustments').select([...ADJUSTMENT_KEY, (eb) => eb.fn.countAll<number>().as('count')]).where('tenant_id', '=', tenantId).groupBy([...ADJUSTMENT_KEY])),
    execute(scope, scope.db.selectFrom('transfers').select([...TRANSFER_KEY, (eb) => eb.fn.countAll<number>().as('count')]).where('tenant_id', '=', tenantId).groupBy([...TRANSFER_KEY])),
    execute(scope, scope.db.selectFrom('inbound_shipments').select([...INBOUND_KEY, (eb) => eb.fn.countAll<number>().as('count')]).where('tenant_id', '=', tenantId).groupBy([...INBOUND_KEY])),
  ]);
  return [
    ...compare('adjustments', keys(ADJUSTMENT_KEY), keptAdjustments, adjustments),
    ...compare('transfers', keys(TRANSFER_KEY), keptTransfers, transfers),
    ...compare('inbound', keys(INBOUND_KEY), keptInbounds, inbounds),
  ];
}

// For the benchmarks' bare routes (bench/bench-statements.ts).
export { adjustmentTotal as adjustmentTotalQuery, bumpAdjustments as changeAdjustmentCountsQuery, changes as countChanges };
