// Stock levels and the ledger. Levels are read under lock, changed by the domain's rules, and
// written back with one immutable ledger row per bucket change, all in the caller's transaction.
import type { Compilable, Insertable } from 'kysely';
import {
  type Actor,
  type Dec,
  type LotChange,
  type PlacedStockLevel,
  type StockBucket,
  type StockKey,
  type StockLevel,
  type StockOutcome,
  fromScaled,
  stockKey,
  toScaled,
  ZERO,
  withFields,
} from '@pits/domain';
import { type ParamRef, markedRows, preparedQuery } from '../parameterised-query.js';
import type { Scope, Tx } from '../transaction.js';
import type { DB, StockChangeCauseType, StockLedgerTable, StockLevelTable } from '../schema/index.js';
import type { UpsertSet } from '../dialects/sql-dialect.js';
import { execute } from '../execution/execute.js';

/** Why stock moved: the document that caused it. */
export interface StockCause {
  /** A ledger cause, or `lot_expiry` for a lot turning unsellable (no bucket moves: no ledger row). */
  type: StockChangeCauseType;
  id: string;
  documentNumber: string | null;
  actor: string;
}

/** The actor as written in ledger rows. */
export function ledgerActor(actor: Actor): string {
  return `partner:${actor.id}:${actor.name}`;
}

function uniqueSorted(keys: readonly StockKey[]): StockKey[] {
  const byKey = new Map(keys.map((k) => [stockKey(k), { locationId: k.locationId, productId: k.productId }]));
  return [...byKey.values()].sort((a, b) => a.locationId - b.locationId || a.productId - b.productId);
}

export function toStockLevel(row: Pick<StockLevelTable, 'good' | 'damaged' | 'reserved' | 'reserved_for_orders'>): StockLevel {
  return { good: fromScaled(row.good), damaged: fromScaled(row.damaged), reserved: fromScaled(row.reserved), reservedForOrders: fromScaled(row.reserved_for_orders) };
}

type LevelRow = Pick<StockLevelTable, 'location_id' | 'product_id' | 'good' | 'damaged' | 'reserved' | 'reserved_for_orders'>;

const levelsOf = preparedQuery({
  shape: (p: { keys: StockKey[] }) => p.keys.length,
  build: (scope, param: ParamRef<{ keys: StockKey[] }>, count): Compilable<LevelRow> =>
    scope.db
      .selectFrom('stock_levels')
      .select(['location_id', 'product_id', 'good', 'damaged', 'reserved', 'reserved_for_orders'])
      .where((eb) =>
        eb(
          eb.refTuple('location_id', 'product_id'),
          'in',
          Array.from({ length: count }, (_, i) => eb.tuple(param('keys', i, 'locationId'), param('keys', i, 'productId'))),
        ),
      ),
});

function byStockKey(rows: readonly LevelRow[]): Map<string, StockLevel> {
  return new Map(rows.map((r) => [stockKey({ locationId: r.location_id, productId: r.product_id }), toStockLevel(r)]));
}

/** Current levels of the keys, unlocked (reads and previews). Missing rows are absent from the map. */
export async function readStockLevels(scope: Scope, keys: readonly StockKey[]): Promise<Map<string, StockLevel>> {
  const wanted = uniqueSorted(keys);
  if (wanted.length === 0) return new Map();
  return byStockKey(await execute(scope, levelsOf.with({ keys: wanted })));
}

/** The row that creates (or, on conflict, only locks) a key's stock row: empty buckets. */
export function emptyLevelRow(tenantId: string, key: StockKey, at: string): Insertable<StockLevelTable> {
  return { tenant_id: tenantId, location_id: key.locationId, product_id: key.productId, good: 0, damaged: 0, reserved: 0, reserved_for_orders: 0, version: 0, updated_at: at };
}

/** The ids of a stock row's newest ledger rows, per bucket: the ones a write added (absent: unchanged). */
export type NewestLedgerIds = Partial<Record<StockBucket, number>>;

/** What a ledger insert returns of each row: enough to tell each stock row's newest per bucket. */
export type WrittenLedgerRow = Pick<StockLedgerTable, 'location_id' | 'product_id' | 'bucket'> & { id: number };

/**
 * The newest ledger row of each bucket of each stock row among `written` (what `insertLedgerQuery`
 * returned), by `stockKey`: what `levelRow` records, so the stock row names where its ledger ends.
 */
export function newestLedgerIds(written: Iterable<WrittenLedgerRow>, into = new Map<string, NewestLedgerIds>()): Map<string, NewestLedgerIds> {
  for (const row of written) {
    const key = stockKey({ locationId: row.location_id, productId: row.product_id });
    const ids = into.get(key) ?? {};
    const id = Number(row.id);
    if ((ids[row.bucket] ?? 0) < id) ids[row.bucket] = id;
    into.set(key, ids);
  }
  return into;
}

/**
 * A stock row's new levels, each bucket scaled (`toScaled`), and the ids of the ledger rows this
 * write added to it (`newestLedgerIds`); `version` is the database's to count.
 */
export function levelRow(
  tenantId: string,
  level: StockKey & { good: number; damaged: number; reserved: number; reservedForOrders?: number },
  at: string,
  ledger: NewestLedgerIds = {},
): Insertable<StockLevelTable> & WrittenLevelIds {
  return {
    tenant_id: tenantId,
    location_id: level.locationId,
    product_id: level.productId,
    good: level.good,
    damaged: level.damaged,
    reserved: level.reserved,
    reserved_for_orders: level.reservedForOrders ?? 0,
    version: 0,
    updated_at: at,
    good_ledger_id: ledger.good ?? null,
    damaged_ledger_id: ledger.damaged ?? null,
    reserved_ledger_id: ledger.reserved ?? null,
  };
}

type WrittenLevelIds = { good_ledger_id: number | null; damaged_ledger_id: number | null; reserved_ledger_id: number | null };

/** One ledger row: a bucket of a stock row moved by `delta` from `before` to `after` (all scaled), and why. */
export function ledgerRow(
  tenantId: string,
  movement: StockKey & { bucket: Insertable<StockLedgerTable>['bucket']; delta: number; before: number; after: number; lotNumber?: string | null },
  cause: StockCause,
  at: string,
): Omit<Insertable<StockLedgerTable>, 'id'> {
  if (cause.type === 'lot_expiry') throw new Error('a lot turning unsellable moves no bucket: it has no ledger row');
  return {
    tenant_id: tenantId,
    location_id: movement.locationId,
    product_id: movement.productId,
    bucket: movement.bucket,
    delta: movement.delta,
    quantity_before: movement.before,
    quantity_after: movement.after,
    cause_type: cause.type,
    cause_id: cause.id,
    document_number: cause.documentNumber,
    actor: cause.actor,
    occurred_at: at,
    lot_number: movement.lotNumber ?? null,
  };
}

const LEVEL_COLUMNS = ['tenant_id', 'location_id', 'product_id', 'good', 'damaged', 'reserved', 'reserved_for_orders', 'version', 'updated_at'] as const;
const LOCKED_COLUMNS = ['location_id', 'product_id', 'good', 'damaged', 'reserved', 'reserved_for_orders'] as const;

/**
 * One statement that creates the missing rows and locks every row of the keys: an insert whose
 * conflict updates nothing that matters (`updated_at` to itself) still takes the row's lock, and
 * returns the current levels. The rows are sorted, so concurrent transactions lock in one order.
 */
const lockLevels = preparedQuery({
  shape: (p: { rows: Insertable<StockLevelTable>[] }) => p.rows.length,
  build: (scope, param: ParamRef<{ rows: Insertable<StockLevelTable>[] }>, count) =>
    scope.dialect.insertReturning(
      scope.dialect.upsert(scope.db.insertInto('stock_levels').values(markedRows(param, 'rows', count, LEVEL_COLUMNS)), ['location_id', 'product_id'], (eb) => ({
        updated_at: eb.ref('stock_levels.updated_at'),
      })),
      LOCKED_COLUMNS,
    ),
});

/** A stock row's key with the tenant that owns it (a transaction may change several tenants' rows). */
export interface TenantStockKey extends StockKey {
  tenantId: string;
}

/**
 * Locks the stock rows of the keys for the rest of the transaction, creating empty rows where none
 * exist, in a fixed order (location, product) so concurrent transactions cannot deadlock. Call it
 * once per transaction with every row the transaction will change, before changing any: a second
 * call would lock a second batch after the first, out of the order another transaction keeps.
 */
export async function lockStockLevels(tx: Tx, tenantId: string, keys: readonly StockKey[], now: Date): Promise<Map<string, StockLevel>> {
  return lockStockRows(tx, keys.map((k) => ({ tenantId, locationId: k.locationId, productId: k.productId })), now);
}

/** `lockStockLevels` for rows of any tenants (the expiry sweep ends holds of many at once). */
export async function lockStockRows(tx: Tx, keys: readonly TenantStockKey[], now: Date): Promise<Map<string, StockLevel>> {
  const tenants = new Map(keys.map((k) => [stockKey(k), k.tenantId]));
  const wanted = uniqueSorted(keys);
  const at = now.toISOString();
  const locked: LevelRow[] = [];
  // Past 500 rows the lock takes more than one statement, still in the one sorted order.
  for (let i = 0; i < wanted.length; i += 500) {
    const rows = wanted.slice(i, i + 500).map((k) => emptyLevelRow(tenants.get(stockKey(k))!, k, at));
    locked.push(...(await execute(tx, lockLevels.with({ rows }))));
  }
  return byStockKey(locked);
}

const WRITTEN_COLUMNS = [...LEVEL_COLUMNS, 'good_ledger_id', 'damaged_ledger_id', 'reserved_ledger_id'] as const;

/**
 * What a write sets on a stock row locked in this transaction (the conflict path always applies):
 * the new levels, its version one higher, and the newest ledger row of each bucket moved.
 */
const WRITE_SET: UpsertSet<DB, 'stock_levels'> = (eb) => ({
  good: eb.ref('excluded.good'),
  damaged: eb.ref('excluded.damaged'),
  reserved: eb.ref('excluded.reserved'),
  reserved_for_orders: eb.ref('excluded.reserved_for_orders'),
  version: eb(eb.ref('stock_levels.version'), '+', 1),
  updated_at: eb.ref('excluded.updated_at'),
  // A bucket this write left alone keeps the ledger row it had.
  good_ledger_id: eb.fn.coalesce('excluded.good_ledger_id', 'stock_levels.good_ledger_id'),
  damaged_ledger_id: eb.fn.coalesce('excluded.damaged_ledger_id', 'stock_levels.damaged_ledger_id'),
  reserved_ledger_id: eb.fn.coalesce('excluded.reserved_ledger_id', 'stock_levels.reserved_ledger_id'),
});

/**
 * Writes new levels of rows locked in this transaction (`WRITE_SET`) in one statement, the ids of
 * the ledger rows given; returns the versions written.
 */
const writeLevels = preparedQuery({
  shape: (p: { rows: (Insertable<StockLevelTable> & WrittenLevelIds)[] }) => p.rows.length,
  build: (scope, param: ParamRef<{ rows: (Insertable<StockLevelTable> & WrittenLevelIds)[] }>, count) =>
    scope.dialect.insertReturning(
      scope.dialect.upsert(scope.db.insertInto('stock_levels').values(markedRows(param, 'rows', count, WRITTEN_COLUMNS)), ['location_id', 'product_id'], WRITE_SET),
      ['location_id', 'product_id', 'version'],
    ),
});

const LEDGER_COLUMNS = [
  'tenant_id',
  'location_id',
  'product_id',
  'bucket',
  'delta',
  'quantity_before',
  'quantity_after',
  'cause_type',
  'cause_id',
  'document_number',
  'actor',
  'occurred_at',
  'lot_number',
] as const;

const LEDGER_RETURNED = ['id', 'location_id', 'product_id', 'bucket'] as const;

const insertLedgerRows = preparedQuery({
  shape: (p: { rows: Insertable<StockLedgerTable>[] }) => p.rows.length,
  build: (scope, param: ParamRef<{ rows: Insertable<StockLedgerTable>[] }>, count) =>
    scope.dialect.insertReturning(scope.db.insertInto('stock_ledger').values(markedRows(param, 'rows', count, LEDGER_COLUMNS)), LEDGER_RETURNED),
});

/**
 * The ledger rows and the levels that name them in one statement, where the dialect runs an insert
 * in a WITH (`insertsInWith`): the ledger insert is the WITH `written`, and each level's
 * `<bucket>_ledger_id` is the newest id `written` holds for its row and bucket (null where the
 * write left the bucket alone: `WRITE_SET` keeps the one it had). Returns the versions written.
 */
const writeLedgerWithLevels = preparedQuery({
  shape: (p: LedgerWithLevels) => ({ ledger: p.ledger.length, levels: p.levels.length }),
  build: (scope, param: ParamRef<LedgerWithLevels>, { ledger: ledgerCount, levels: levelCount }) => {
    const db = scope.db.with('written', (db) =>
      scope.dialect.insertReturning(db.insertInto('stock_ledger').values(markedRows(param, 'ledger', ledgerCount, LEDGER_COLUMNS)), LEDGER_RETURNED),
    );
    const insert = db.insertInto('stock_levels').values((eb) =>
      markedRows(param, 'levels', levelCount, LEVEL_COLUMNS).map((row, i) => {
        // A subquery of the statement, not of the WITH: built on the expression builder.
        const newest = (bucket: StockBucket) =>
          eb
            .selectFrom('written')
            .select((e) => e.fn.max('id').as('id'))
            .where('location_id', '=', param('levels', i, 'location_id'))
            .where('product_id', '=', param('levels', i, 'product_id'))
            .where('bucket', '=', bucket);
        return withFields(row, { good_ledger_id: newest('good'), damaged_ledger_id: newest('damaged'), reserved_ledger_id: newest('reserved') });
      }),
    );
    return scope.dialect.insertReturning(
      scope.dialect.upsert(insert, ['location_id', 'product_id'], WRITE_SET as UpsertSet<DB & { written: WrittenLedgerRow }, 'stock_levels'>),
      ['location_id', 'product_id', 'version'],
    );
  },
});

/** The parameters of `writeLedgerWithLevels`: the ledger rows and the levels they move (ids left to the statement). */
export interface LedgerWithLevels {
  ledger: Insertable<StockLedgerTable>[];
  levels: Insertable<StockLevelTable>[];
}

/** Ledger rows and stock rows per statement: well under every database's limit of bound values. */
const LEDGER_BATCH = 300;
const LEVEL_BATCH = 500;

/** One change of stock a transaction makes: the domain's outcome on one tenant's rows, and why. */
export interface StockWrite {
  tenantId: string;
  outcome: StockOutcome;
  cause: StockCause;
  /**
   * For lot-tracked rows: the same change per lot (docs/lots.md#stock-per-lot), already applied to
   * the lots. Each movement of such a row is written as one ledger row per lot, chained.
   */
  lots?: readonly LotChange[] | undefined;
}

/**
 * A movement's ledger rows: one, or for a lot-tracked row one per lot that moved in that bucket,
 * chained from the row's `before` to its `after`.
 */
function ledgerRowsOf(tenantId: string, write: StockWrite, at: string): Omit<Insertable<StockLedgerTable>, 'id'>[] {
  const pending = [...(write.lots ?? [])];
  return write.outcome.movements.flatMap((m) => {
    const lotMoves: LotChange[] = [];
    let covered = ZERO;
    while (covered.abs().lessThan(m.delta.abs())) {
      const index = pending.findIndex((l) => l.locationId === m.locationId && l.productId === m.productId && l.bucket === m.bucket);
      if (index < 0) break;
      const [move] = pending.splice(index, 1);
      lotMoves.push(move!);
      covered = covered.plus(move!.delta);
    }
    if (lotMoves.length === 0) {
      return [ledgerRow(tenantId, { locationId: m.locationId, productId: m.productId, bucket: m.bucket, delta: toScaled(m.delta), before: toScaled(m.before), after: toScaled(m.after) }, write.cause, at)];
    }
    if (!covered.equals(m.delta)) throw new Error(`lot changes of ${stockKey(m)} ${m.bucket} sum to ${covered.toFixed()}, not ${m.delta.toFixed()}`);
    let before = m.before;
    return lotMoves.map((move) => {
      const after = before.plus(move.delta);
      const row = ledgerRow(
        tenantId,
        { locationId: m.locationId, productId: m.productId, bucket: m.bucket, delta: toScaled(move.delta), before: toScaled(before), after: toScaled(after), lotNumber: move.lotNumber },
        write.cause,
        at,
      );
      before = after;
      return row;
    });
  });
}

/** A stock row a transaction wrote: its level after the last change of it, that change's cause, and its new version. */
export interface WrittenStockRow {
  tenantId: string;
  level: PlacedStockLevel;
  cause: StockCause;
  version: number;
}

/**
 * Writes every stock change of one transaction at once: each row's last level, with one version
 * step however many changes touched it, and every change's ledger rows with its own cause. Each
 * change's outcome must have been computed from the levels the one before it left (the domain
 * chains them), on rows locked in this transaction (`lockStockLevels`). A level the database
 * refuses (a CHECK) throws and the caller's transaction rolls back whole. Ledger and levels go
 * as one statement where the dialect takes an insert in a WITH (`writeLedgerWithLevels`), as two
 * otherwise (and past one batch of either). Returns each row
 * written, in the order of the changes, for the stock.level_changed events the operation sends
 * (use-cases/stock-writes.ts).
 */
export async function writeStockRows(tx: Tx, changes: readonly StockWrite[], now: Date): Promise<WrittenStockRow[]> {
  const at = now.toISOString();
  const last = new Map<string, { tenantId: string; level: PlacedStockLevel; cause: StockCause }>();
  for (const { tenantId, outcome, cause } of changes) {
    for (const [key, level] of outcome.levels) last.set(key, { tenantId, level, cause });
  }
  const rows = changes.flatMap((change) => ledgerRowsOf(change.tenantId, change, at));
  const levelOf = (key: string, newest?: NewestLedgerIds) => {
    const { tenantId, level } = last.get(key)!;
    const scaled = { good: toScaled(level.good), damaged: toScaled(level.damaged), reserved: toScaled(level.reserved), reservedForOrders: toScaled(level.reservedForOrders) };
    return levelRow(tenantId, { locationId: level.locationId, productId: level.productId, ...scaled }, at, newest);
  };
  const versions = new Map<string, number>();
  const keep = (written: readonly { location_id: number; product_id: number; version: number }[]) => {
    for (const row of written) versions.set(stockKey({ locationId: row.location_id, productId: row.product_id }), Number(row.version));
  };
  // No ledger row (a lot turning unsellable moves no bucket): the levels alone, one statement anyway.
  if (tx.dialect.insertsInWith && rows.length > 0 && rows.length <= LEDGER_BATCH && last.size <= LEVEL_BATCH) {
    keep(await execute(tx, writeLedgerWithLevels.with({ ledger: rows, levels: [...last.keys()].map((key) => levelOf(key)) })));
  } else {
    // The ledger first: each stock row then records the newest ledger row of each bucket it moved.
    const newest = new Map<string, NewestLedgerIds>();
    for (let i = 0; i < rows.length; i += LEDGER_BATCH) {
      newestLedgerIds(await execute(tx, insertLedgerRows.with({ rows: rows.slice(i, i + LEDGER_BATCH) })), newest);
    }
    const levels = [...last.keys()].map((key) => levelOf(key, newest.get(key)));
    for (let i = 0; i < levels.length; i += LEVEL_BATCH) keep(await execute(tx, writeLevels.with({ rows: levels.slice(i, i + LEVEL_BATCH) })));
  }
  return [...last.entries()].map(([key, written]) => withFields(written, { version: versions.get(key) ?? 0 }));
}

/** One bucket of one stock row whose ledger does not sum to its balance. */
export interface LedgerMismatch {
  locationId: number;
  productId: number;
  bucket: 'good' | 'damaged' | 'reserved';
  balance: Dec;
  ledgerSum: Dec;
}

/**
 * The ledger invariant: for every stock row and bucket, the sum of its ledger deltas equals the
 * balance (and a ledger row never exists without its stock row, by foreign key). Returns every
 * mismatch; an empty list means the books balance.
 *
 * @example
 * expect(await findLedgerMismatches(database)).toEqual([]);
 */
export async function findLedgerMismatches(scope: Scope, tenantId?: string): Promise<LedgerMismatch[]> {
  let sums = scope.db
    .selectFrom('stock_ledger')
    .select((eb) => [
      'location_id',
      'product_id',
      eb.fn.sum<number>(eb.case().when('bucket', '=', 'good').then(eb.ref('delta')).else(0).end()).as('good'),
      eb.fn.sum<number>(eb.case().when('bucket', '=', 'damaged').then(eb.ref('delta')).else(0).end()).as('damaged'),
      eb.fn.sum<number>(eb.case().when('bucket', '=', 'reserved').then(eb.ref('delta')).else(0).end()).as('reserved'),
    ])
    .groupBy(['location_id', 'product_id']);
  let levels = scope.db.selectFrom('stock_levels').select(['location_id', 'product_id', 'good', 'damaged', 'reserved']);
  if (tenantId) {
    sums = sums.where('tenant_id', '=', tenantId);
    levels = levels.where('tenant_id', '=', tenantId);
  }
  const [sumRows, levelRows] = await Promise.all([execute(scope, sums), execute(scope, levels)]);
  const ledger = new Map(sumRows.map((r) => [stockKey({ locationId: r.location_id, productId: r.product_id }), r]));
  const mismatches: LedgerMismatch[] = [];
  for (const level of levelRows) {
    const sum = ledger.get(stockKey({ locationId: level.location_id, productId: level.product_id }));
    for (const bucket of ['good', 'damaged', 'reserved'] as const) {
      // A sum of bigints may come back as a numeric (a string): either becomes an exact decimal here.
      const ledgerSum = fromScaled(String(sum?.[bucket] ?? 0));
      const balance = fromScaled(level[bucket]);
      if (!ledgerSum.equals(balance)) {
        mismatches.push({ locationId: level.location_id, productId: level.product_id, bucket, balance, ledgerSum });
      }
    }
  }
  return mismatches;
}

// For the benchmarks' bare routes (bench/bench-statements.ts).
export {
  insertLedgerRows as insertLedgerQuery,
  levelsOf as stockLevelsQuery,
  lockLevels as lockStockQuery,
  writeLevels as writeStockQuery,
  writeLedgerWithLevels as writeLedgerWithStockQuery,
};
