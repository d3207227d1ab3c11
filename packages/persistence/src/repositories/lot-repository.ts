// Lots (docs/lots.md): a tenant's lots of a product with their dates, each lot's units at a
// location, and the lots hold and transfer lines took. Every change of a lot's units happens
// under the lock of its stock row (stock-repository.ts), so these reads and writes need none of
// their own. "Today" is the database clock's WIB day, moved by `calendar_shift` in tests.
import {
  type Dec,
  type LotAllocation,
  type LotBalance,
  type LotOutcome,
  type LotPolicy,
  type StockKey,
  addDays,
  fromScaled,
  lotExpirySchedule,
  lotStockKey,
  stockKey,
  toScaled,
  wibDate,
} from '@pits/domain';
import type { Scope, Tx } from '../transaction.js';
import type { Insertable } from 'kysely';
import { type ParamRef, markedList, markedRows, preparedQuery } from '../parameterised-query.js';
import type { LotAllocationTable, LotStockTable } from '../schema/index.js';
import type { TenantStockKey } from './stock-repository.js';
import { execute, executeTakeFirstOrThrow, executeWrite } from '../execution/execute.js';

/** A lot as stored. */
export interface LotRecord {
  id: number;
  productId: number;
  lotNumber: string;
  expiryDate: string | null;
  productionDate: string | null;
}

/** A lot's units at a location, with the lot's identity. */
export interface LotLevelRecord extends LotBalance {
  lotId: number;
  productionDate: string | null;
}

/** The lot settings of a product row. */
export function lotPolicyOf(row: { production_batch: number | boolean; inbound_expired: number; outbound_expired: number }): LotPolicy {
  return { lotTracked: Boolean(row.production_batch), inboundExpired: Number(row.inbound_expired), outboundExpired: Number(row.outbound_expired) };
}

/** `productId:lotNumber`, a lot's key within a tenant. */
export function lotKey(productId: number, lotNumber: string): string {
  return `${productId}:${lotNumber}`;
}

/**
 * The service's today: the WIB calendar day of the database's clock, plus the days a test moved
 * the calendar by (`moveCalendar`). Every lot rule that depends on the day asks this.
 */
export async function databaseToday(scope: Scope): Promise<string> {
  return todayOf(await executeTakeFirstOrThrow(scope, today.with({})));
}

// The statements of a hold on lot-tracked products are prepared (built once per dialect and shape,
// then only bound: parameterised-query.ts), as on the other hot write paths.

const today = preparedQuery({
  build: (scope, _param: ParamRef<Record<string, never>>) =>
    scope.db.selectNoFrom((eb) => [scope.dialect.clockNow().as('now'), eb.selectFrom('calendar_shift').select('days').where('id', '=', 1).as('shift')]),
});

/** The day of a clock reading and the calendar's shift. */
export function todayOf(row: { now: unknown; shift: unknown }): string {
  return addDays(wibDate(new Date(String(row.now))), Number(row.shift ?? 0));
}

/** Moves the service's calendar `days` from the database's clock (tests; 0 puts it back). */
export async function moveCalendar(scope: Scope, days: number): Promise<void> {
  await executeWrite(scope, scope.dialect.upsert(scope.db.insertInto('calendar_shift').values({ id: 1, days }), ['id'], { days }));
}

const LOT_COLUMNS = ['lots.id', 'lots.product_id', 'lots.lot_number', 'lots.expiry_date', 'lots.production_date'] as const;

type LotRow = { id: number; product_id: number; lot_number: string; expiry_date: string | null; production_date: string | null };

function toLot(row: LotRow): LotRecord {
  return { id: Number(row.id), productId: Number(row.product_id), lotNumber: row.lot_number, expiryDate: row.expiry_date, productionDate: row.production_date };
}

/** The tenant's lots among `keys` ({productId, lotNumber}), by `lotKey`. */
export async function findLots(scope: Scope, tenantId: string, keys: readonly { productId: number; lotNumber: string }[]): Promise<Map<string, LotRecord>> {
  const found = new Map<string, LotRecord>();
  const unique = [...new Map(keys.map((k) => [lotKey(k.productId, k.lotNumber), k])).values()];
  for (let i = 0; i < unique.length; i += 300) {
    const chunk = unique.slice(i, i + 300);
    const rows = await execute(
      scope,
      scope.db
        .selectFrom('lots')
        .select(LOT_COLUMNS)
        .where('tenant_id', '=', tenantId)
        .where((eb) => eb(eb.refTuple('product_id', 'lot_number'), 'in', chunk.map((k) => eb.tuple(k.productId, k.lotNumber)))),
    );
    for (const row of rows) found.set(lotKey(Number(row.product_id), row.lot_number), toLot(row));
  }
  return found;
}

/** A lot to create: its identity and the product's `outbound_expired`, which dates its notices. */
export interface NewLot {
  productId: number;
  lotNumber: string;
  expiryDate: string | null;
  productionDate: string | null;
  outboundExpired: number;
}

/**
 * Creates the lots that do not exist yet and returns all of them, by `lotKey`. Two transactions
 * creating one lot at once both get the one row (the first insert wins; the caller compares the
 * dates it gave with those the lot has).
 */
export async function createLots(tx: Tx, tenantId: string, lots: readonly NewLot[], now: Date): Promise<Map<string, LotRecord>> {
  if (lots.length === 0) return new Map();
  const at = now.toISOString();
  // In one order (product, lot number): two transactions creating the same new lots wait for each
  // other's unique-index entries in that order, never crosswise.
  const ordered = [...lots].sort((a, b) => a.productId - b.productId || (a.lotNumber < b.lotNumber ? -1 : a.lotNumber > b.lotNumber ? 1 : 0));
  const rows = ordered.map((lot) => {
    const schedule = lotExpirySchedule(lot, lot.outboundExpired);
    return {
      tenant_id: tenantId,
      product_id: lot.productId,
      lot_number: lot.lotNumber,
      expiry_date: lot.expiryDate,
      production_date: lot.productionDate,
      unsellable_from: schedule?.unsellableFrom ?? null,
      expiring_from: schedule?.expiringFrom ?? null,
      created_at: at,
    };
  });
  await executeWrite(tx, tx.dialect.insertIgnoringDuplicates(tx.db.insertInto('lots').values(rows), ['product_id', 'lot_number']));
  return findLots(tx, tenantId, lots);
}

/**
 * A product's `outbound_expired` changed: its lots' notice days follow (docs/lots.md#short-dated-stock).
 */
export async function redateLots(tx: Tx, productId: number, outboundExpired: number): Promise<void> {
  const rows = await execute(tx, tx.db.selectFrom('lots').select(['id', 'expiry_date']).where('product_id', '=', productId).where('expiry_date', 'is not', null));
  for (const row of rows) {
    const schedule = lotExpirySchedule({ expiryDate: row.expiry_date }, outboundExpired)!;
    await executeWrite(tx, tx.db.updateTable('lots').set({ unsellable_from: schedule.unsellableFrom, expiring_from: schedule.expiringFrom }).where('id', '=', row.id));
  }
}

function toLevel(row: LotRow & { location_id: number; lot_id: number; good: number; damaged: number; reserved: number }): LotLevelRecord {
  return {
    locationId: Number(row.location_id),
    productId: Number(row.product_id),
    lotId: Number(row.lot_id),
    lotNumber: row.lot_number,
    expiryDate: row.expiry_date,
    productionDate: row.production_date,
    good: fromScaled(row.good),
    damaged: fromScaled(row.damaged),
    reserved: fromScaled(row.reserved),
  };
}

/**
 * The lots at the stock rows `keys`, by `lotStockKey`. Changing them needs the rows locked
 * (`lockStockRows`) before this read, in the same transaction.
 */
export async function readLotLevels(scope: Scope, keys: readonly StockKey[]): Promise<Map<string, LotLevelRecord>> {
  const unique = [...new Map(keys.map((k) => [stockKey(k), { locationId: k.locationId, productId: k.productId }])).values()];
  const levels = new Map<string, LotLevelRecord>();
  for (let i = 0; i < unique.length; i += 300) {
    for (const row of await execute(scope, lotLevels.with({ keys: unique.slice(i, i + 300) }))) {
      const level = toLevel(row);
      levels.set(lotStockKey(level), level);
    }
  }
  return levels;
}

const lotLevels = preparedQuery({
  shape: (p: { keys: StockKey[] }) => p.keys.length,
  build: (scope, param: ParamRef<{ keys: StockKey[] }>, count) =>
    scope.db
      .selectFrom('lot_stock')
      .innerJoin('lots', 'lots.id', 'lot_stock.lot_id')
      .select([...LOT_COLUMNS, 'lot_stock.location_id', 'lot_stock.lot_id', 'lot_stock.good', 'lot_stock.damaged', 'lot_stock.reserved'])
      .where((eb) =>
        eb(
          eb.refTuple('lot_stock.location_id', 'lot_stock.product_id'),
          'in',
          Array.from({ length: count }, (_, i) => eb.tuple(param('keys', i, 'locationId'), param('keys', i, 'productId'))),
        ),
      ),
});

/** The lots at each stock row among `levels`, by `stockKey`. */
export function lotsByRow(levels: Iterable<LotBalance>): Map<string, LotBalance[]> {
  const rows = new Map<string, LotBalance[]>();
  for (const level of levels) rows.set(stockKey(level), [...(rows.get(stockKey(level)) ?? []), level]);
  return rows;
}

/**
 * Writes the lots' new units (rows locked in this transaction), creating a lot's row at a
 * location on its first units there. `lotIds` gives each lot's id by `lotKey`.
 */
export async function writeLotLevels(tx: Tx, tenantId: string, outcome: LotOutcome, lotIds: ReadonlyMap<string, number>, now: Date): Promise<void> {
  const at = now.toISOString();
  const rows = [...outcome.lots.values()].map(
    (lot): LotStockRow => ({
      tenant_id: tenantId,
      location_id: lot.locationId,
      product_id: lot.productId,
      lot_id: lotIds.get(lotKey(lot.productId, lot.lotNumber))!,
      good: toScaled(lot.good),
      damaged: toScaled(lot.damaged),
      reserved: toScaled(lot.reserved),
      expiring_sent: 0,
      unsellable_sent: 0,
      updated_at: at,
    }),
  );
  for (let i = 0; i < rows.length; i += 200) await executeWrite(tx, writeLotStock.with({ rows: rows.slice(i, i + 200) }));
}

/** A lot_stock row as `writeLotLevels` writes it. */
export type LotStockRow = Omit<Insertable<LotStockTable>, 'id'>;
const LOT_STOCK_COLUMNS = ['tenant_id', 'location_id', 'product_id', 'lot_id', 'good', 'damaged', 'reserved', 'expiring_sent', 'unsellable_sent', 'updated_at'] as const satisfies readonly (keyof LotStockRow)[];

/**
 * A lot's units at a location, its row created on its first units there. A row that was empty gets
 * units again: its stock.lot_expiring is due again (docs/lots.md#events); otherwise a conflict
 * keeps the notice flags.
 */
const writeLotStock = preparedQuery({
  shape: (p: { rows: LotStockRow[] }) => p.rows.length,
  build: (scope, param: ParamRef<{ rows: LotStockRow[] }>, count) =>
    scope.dialect.upsert(scope.db.insertInto('lot_stock').values(markedRows(param, 'rows', count, LOT_STOCK_COLUMNS)), ['location_id', 'product_id', 'lot_id'], (eb) => ({
      good: eb.ref('excluded.good'),
      damaged: eb.ref('excluded.damaged'),
      reserved: eb.ref('excluded.reserved'),
      expiring_sent: eb
        .case()
        .when(eb.and([eb('lot_stock.good', '=', 0), eb('lot_stock.damaged', '=', 0)]))
        .then(0)
        .else(eb.ref('lot_stock.expiring_sent'))
        .end(),
      updated_at: eb.ref('excluded.updated_at'),
    })),
});

/** Which document's lines took lots. */
export type AllocatingDocument = 'reservation' | 'transfer';

/** An allocation with its lot's id. */
export interface StoredAllocation extends LotAllocation {
  lotId: number;
}

/** Writes the allocations of lines (`itemId` is the line's row id), each line's in its order. */
export async function insertAllocations(
  tx: Tx,
  tenantId: string,
  document: AllocatingDocument,
  lines: readonly { itemId: number; allocations: readonly { lotId: number; quantity: Dec }[] }[],
): Promise<void> {
  const rows = lines.flatMap((line) =>
    line.allocations.map((a, index): NewLotAllocation => ({ tenant_id: tenantId, document, item_id: line.itemId, seq: index + 1, lot_id: a.lotId, quantity: toScaled(a.quantity) })),
  );
  for (let i = 0; i < rows.length; i += 300) await executeWrite(tx, insertAllocationRows.with({ rows: rows.slice(i, i + 300) }));
}

/** A lot_allocations row. */
export type NewLotAllocation = Omit<Insertable<LotAllocationTable>, 'id'>;
const ALLOCATION_COLUMNS = ['tenant_id', 'document', 'item_id', 'seq', 'lot_id', 'quantity'] as const satisfies readonly (keyof NewLotAllocation)[];

const insertAllocationRows = preparedQuery({
  shape: (p: { rows: NewLotAllocation[] }) => p.rows.length,
  build: (scope, param: ParamRef<{ rows: NewLotAllocation[] }>, count) => scope.db.insertInto('lot_allocations').values(markedRows(param, 'rows', count, ALLOCATION_COLUMNS)),
});

/** The allocations of lines by their row id, each in the order they were taken; lines without lots are absent. */
export async function listAllocations(scope: Scope, document: AllocatingDocument, itemIds: readonly number[]): Promise<Map<number, StoredAllocation[]>> {
  const byItem = new Map<number, StoredAllocation[]>();
  const unique = [...new Set(itemIds)];
  for (let i = 0; i < unique.length; i += 500) {
    for (const row of await execute(scope, allocationsOf.with({ document, ids: unique.slice(i, i + 500) }))) {
      const id = Number(row.item_id);
      byItem.set(id, [...(byItem.get(id) ?? []), { lotId: Number(row.lot_id), lotNumber: row.lot_number, expiryDate: row.expiry_date, quantity: fromScaled(row.quantity) }]);
    }
  }
  return byItem;
}

type AllocationsOf = { document: AllocatingDocument; ids: number[] };

const allocationsOf = preparedQuery({
  shape: (p: AllocationsOf) => p.ids.length,
  build: (scope, param: ParamRef<AllocationsOf>, count) =>
    scope.db
      .selectFrom('lot_allocations')
      .innerJoin('lots', 'lots.id', 'lot_allocations.lot_id')
      .select(['lot_allocations.item_id', 'lot_allocations.lot_id', 'lot_allocations.quantity', 'lots.lot_number', 'lots.expiry_date'])
      .where('lot_allocations.document', '=', param('document'))
      .where('lot_allocations.item_id', 'in', markedList(param, 'ids', count))
      .orderBy('lot_allocations.item_id')
      .orderBy('lot_allocations.seq'),
});

/** The lot settings of products, by id. */
export async function productPolicies(scope: Scope, productIds: readonly number[]): Promise<Map<number, LotPolicy>> {
  const policies = new Map<number, LotPolicy>();
  const unique = [...new Set(productIds)];
  for (let i = 0; i < unique.length; i += 500) {
    for (const row of await execute(scope, policiesOf.with({ ids: unique.slice(i, i + 500) }))) policies.set(Number(row.id), lotPolicyOf(row));
  }
  return policies;
}

const policiesOf = preparedQuery({
  shape: (p: { ids: number[] }) => p.ids.length,
  build: (scope, param: ParamRef<{ ids: number[] }>, count) =>
    scope.db.selectFrom('products').select(['id', 'production_batch', 'inbound_expired', 'outbound_expired']).where('id', 'in', markedList(param, 'ids', count)),
});

/** A lot's day boundary: its stock.lot_expiring notice, or its turning unsellable. */
export type LotBoundary = 'expiring' | 'unsellable';

/** A lot at a location whose boundary has come. */
export interface LotBoundaryCandidate extends TenantStockKey {
  id: number;
  lotId: number;
  lotNumber: string;
  expiryDate: string | null;
  productionDate: string | null;
  unsellableFrom: string | null;
  sku: string;
}

/** Lots at their locations whose `boundary` day has come and that were not announced there yet, oldest first. */
export async function lotBoundaryCandidates(scope: Scope, boundary: LotBoundary, today: string, limit: number): Promise<LotBoundaryCandidate[]> {
  const day = boundary === 'expiring' ? 'lots.expiring_from' : 'lots.unsellable_from';
  const sent = boundary === 'expiring' ? 'lot_stock.expiring_sent' : 'lot_stock.unsellable_sent';
  const rows = await execute(
    scope,
    scope.db
      .selectFrom('lot_stock')
      .innerJoin('lots', 'lots.id', 'lot_stock.lot_id')
      .innerJoin('products', 'products.id', 'lot_stock.product_id')
      .select(['lot_stock.id', 'lot_stock.tenant_id', 'lot_stock.location_id', 'lot_stock.product_id', 'lot_stock.lot_id', 'lots.lot_number', 'lots.expiry_date', 'lots.production_date', 'lots.unsellable_from', 'products.sku'])
      .where(day, '<=', today)
      .where(sent, '=', 0)
      .orderBy(day)
      .orderBy('lot_stock.id')
      .limit(limit),
  );
  return rows.map((r) => ({
    id: Number(r.id),
    tenantId: r.tenant_id,
    locationId: Number(r.location_id),
    productId: Number(r.product_id),
    lotId: Number(r.lot_id),
    lotNumber: r.lot_number,
    expiryDate: r.expiry_date,
    productionDate: r.production_date,
    unsellableFrom: r.unsellable_from,
    sku: r.sku,
  }));
}

/** The candidates whose flag is still unset, read under their rows' lock. */
export async function unsentLotBoundaries(tx: Tx, boundary: LotBoundary, found: readonly LotBoundaryCandidate[]): Promise<LotBoundaryCandidate[]> {
  const column = boundary === 'expiring' ? 'expiring_sent' : 'unsellable_sent';
  const open = new Set(
    (await execute(tx, tx.db.selectFrom('lot_stock').select('id').where('id', 'in', found.map((c) => c.id)).where(column, '=', 0))).map((r) => Number(r.id)),
  );
  return found.filter((c) => open.has(c.id));
}

/** Marks the boundary of the lots at their locations as announced. */
export async function markLotBoundarySent(tx: Tx, boundary: LotBoundary, done: readonly LotBoundaryCandidate[]): Promise<void> {
  if (done.length === 0) return;
  const ids = done.map((c) => c.id);
  if (boundary === 'expiring') await executeWrite(tx, tx.db.updateTable('lot_stock').set({ expiring_sent: 1 }).where('id', 'in', ids));
  else await executeWrite(tx, tx.db.updateTable('lot_stock').set({ unsellable_sent: 1 }).where('id', 'in', ids));
}


// For the benchmarks' bare routes (bench/bench-statements.ts).
export {
  allocationsOf as lotAllocationsQuery,
  insertAllocationRows as insertLotAllocationsQuery,
  lotLevels as lotLevelsQuery,
  policiesOf as productPoliciesQuery,
  today as databaseTodayQuery,
  writeLotStock as writeLotStockQuery,
};
