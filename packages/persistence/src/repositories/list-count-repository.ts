// Kept list totals (issue 15): for each tenant, how many adjustments, transfers and inbound
// shipments it has in each combination of the values their list filters take (status, location,
// type; status, from and to location; status, location). The database keeps them: triggers on the
// documents' tables (migration 014) count every row inserted, deleted or moved to another status
// in the statement that wrote it, whoever wrote it. A list's total is a sum over the matching
// rows, whose number is bounded by the tenant's statuses x locations (x types), never by its
// history. This file reads them, rebuilds them and checks them.
//
// A status change moves its count in the document's own UPDATE: the old combination -1, then the
// new one +1. With row locks those count rows are held until commit; since a transaction changes
// a document's status after its stock and lines, and in the order of the state machines (a
// status is left before the next one is entered), two transactions never wait on each other's
// count rows in a cycle.
import type { AdjustmentStatus, AdjustmentType, InboundStatus, TransferStatus } from '@pits/domain';
import { type ParamRef, preparedQuery } from '../parameterised-query.js';
import { type Scope, withTransaction } from '../transaction.js';
import { execute, executeTakeFirst, executeWrite } from '../execution/execute.js';

/** The columns each list is counted by, as migration 014's triggers count them. */
const ADJUSTMENT_KEY = ['tenant_id', 'status', 'location_id', 'type'] as const;
const TRANSFER_KEY = ['tenant_id', 'status', 'from_location_id', 'to_location_id'] as const;
const INBOUND_KEY = ['tenant_id', 'status', 'location_id'] as const;

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
 * Rebuilds the tenant's kept counts from its documents, in one transaction: a repair, should they
 * ever drift (`findListCountMismatches` tells); the triggers keep them otherwise.
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

/** What `repairListCounts` found: how many tenants it checked, and the ones it rebuilt with what differed. */
export interface ListCountRepair {
  tenants: number;
  repaired: { tenantId: string; mismatches: ListCountMismatch[] }[];
}

/**
 * Checks every tenant's kept counts and rebuilds those that differ from their documents (the
 * `npm run recount-lists` command).
 *
 * @example const { repaired } = await repairListCounts(database);
 */
export async function repairListCounts(scope: Scope): Promise<ListCountRepair> {
  const tenants = await execute(scope, scope.db.selectFrom('tenants').select('id').orderBy('id'));
  const repaired: ListCountRepair['repaired'] = [];
  for (const { id } of tenants) {
    const mismatches = await findListCountMismatches(scope, id);
    if (mismatches.length === 0) continue;
    await recountListCounts(scope, id);
    repaired.push({ tenantId: id, mismatches });
  }
  return { tenants: tenants.length, repaired };
}

// For the benchmarks' bare routes (bench/bench-statements.ts).
export { adjustmentTotal as adjustmentTotalQuery };
