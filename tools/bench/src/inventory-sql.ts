// The order of the statements each bare route of the inventory benchmark runs
// (bare-inventory-server.ts), generated from the repositories' own queries
// (@pits/persistence/bench: inventoryStatements) — no SQL is written here. The benchmark compares
// it with what the gateway's persistence functions really send (gateway-sql-capture.ts) before it
// measures anything: the texts come from the same definitions, so the check guards which
// statements a route runs and in what order.
import {
  type NewReservation,
  type NewReservationItem,
  emptyLevelRow,
  inventoryStatements,
  ledgerRow,
  levelRow,
  lotStatements,
  newAdjustmentLineRow,
  newAdjustmentRow,
} from '@pits/persistence/bench';

export type BenchDialect = 'sqlite' | 'postgres';

export type InventoryCase = 'create' | 'detail' | 'list' | 'list-status' | 'approve' | 'count' | 'reserve' | 'reserve-lots';

// Placeholder values: a statement's text depends only on the shape of its parameters (list lengths, filters set).
const AT = '2000-01-01T00:00:00.000Z';
const ACTOR = { id: 1, name: 'plan', email: 'plan@example.com' };
const CAUSE = { type: 'adjustment', id: 'ADJ', documentNumber: 'ADJ', actor: 'plan' } as const;
const keys = (lines: number) => Array.from({ length: lines }, (_, i) => ({ locationId: 1, productId: i + 1 }));

/**
 * The statement texts one request of `kind` runs after authentication, in order, as the bare route
 * runs them (transaction begin/commit left out: both sides wrap the same statements in one).
 * `lines` is the number of lines of the adjustment concerned (for a count: its lines, every one of
 * which differs from the stock, as the benchmark's counts do; for reserve: the hold's lines, named
 * by product id, its create then its whole consume, each in a transaction of its own; for
 * reserve-lots: the same on lot-tracked products, each line taking one lot, as the seeded EARLY lot
 * gives every hold of a run).
 */
export function plannedStatements(kind: InventoryCase, dialect: BenchDialect, lines: number): string[] {
  const s = inventoryStatements(dialect);
  const tenantId = 'plan';
  const byNumber = { tenantId, number: 'ADJ' };
  const adjustment = newAdjustmentRow({
    tenantId, partnerId: 1, actor: ACTOR, number: 'ADJ', locationId: 1, type: 'increase', stockSource: 'good', reason: 'plan', totalAmount: '0', itemCount: lines, approval: null, at: AT,
  });
  const itemLines = keys(lines).map((k, i) =>
    newAdjustmentLineRow(i, { productId: k.productId, productName: 'p', sku: 's', type: 'increase', quantity: 1, unitCost: '0', totalCost: '0', notes: '' }),
  );
  const lock = s.lockStock({ rows: keys(lines).map((k) => emptyLevelRow(tenantId, k, AT)) });
  const levelRows = keys(lines).map((k) => levelRow(tenantId, { ...k, good: 0, damaged: 0, reserved: 0 }, AT));
  // The ledger rows, then the levels naming them: one statement where the dialect takes an insert
  // in a WITH, two otherwise (stock-repository.ts `writeStockRows`).
  const stockWrite = (ledgerRows: ReturnType<typeof ledgerRow>[]) =>
    s.writeLedgerWithStock ? [s.writeLedgerWithStock({ ledger: ledgerRows, levels: levelRows })] : [s.insertLedger({ rows: ledgerRows }), s.writeStock({ rows: levelRows })];
  const ledger = stockWrite(keys(lines).map((k) => ledgerRow(tenantId, { ...k, bucket: 'good', delta: 1, before: 0, after: 1 }, CAUSE, AT)));
  const list = (status: 'pending' | undefined) => {
    const params = { tenantId, status, locationId: undefined, type: undefined, limit: 10, offset: 0 };
    return [s.listPage(params)];
  };
  // A pending create and a count's approved one run the same statements: only the values differ.
  // The adjustment and its lines: one statement where the dialect takes an insert in a WITH.
  const created = [
    s.nextSequence({ tenantId, prefix: 'ADJ' }),
    ...(s.insertAdjustmentWithLines
      ? [s.insertAdjustmentWithLines({ ...adjustment, lines: itemLines })]
      : [s.insertAdjustment(adjustment), s.insertItems({ rows: itemLines.map((line) => ({ ...line, adjustment_id: 1 })) })]),
  ];
  const catalogue = [s.locationWithProducts({ tenantId, locationId: 1, ids: keys(lines).map((k) => k.productId) })];
  const hold: NewReservation = {
    tenant_id: tenantId, partner_id: 1, number: 'RSV', reference: 'plan', location_id: 1, status: 'active', expires_at: AT,
    consumed_at: null, released_at: null, release_reason: null, created_by: JSON.stringify(ACTOR), created_at: AT, updated_at: AT,
  };
  const holdLines: NewReservationItem[] = keys(lines).map((k, i) => ({ reservation_id: 1, line_no: i + 1, product_id: k.productId, sku: 's', product_name: 'p', quantity: 1, consumed_quantity: 0 }));
  const reservedLedger = (rows: number) =>
    stockWrite(Array.from({ length: rows }, (_, i) => ledgerRow(tenantId, { locationId: 1, productId: 1 + (i % Math.max(lines, 1)), bucket: 'reserved', delta: 1, before: 0, after: 1 }, { ...CAUSE, type: 'reservation' }, AT)));
  const readHold = [s.reservationByNumber({ tenantId, number: 'RSV' }), s.reservationItems({ ids: [1] })];
  // Lots (reserve-lots): the lots of the lines' rows and today, read before the sold-out check and
  // again once the rows are locked; each line's one allocation, and its lot's units written.
  const l = lotStatements(dialect);
  const lotBook = [l.lotLevels({ keys: keys(lines) }), l.today({})];
  const lineNumbers = holdLines.map((line) => line.line_no);
  const allocations = l.allocations({ document: 'reservation', ids: lineNumbers });
  const writeLots = l.writeLotStock({
    rows: keys(lines).map((k) => ({ tenant_id: tenantId, location_id: k.locationId, product_id: k.productId, lot_id: 1, good: 0, damaged: 0, reserved: 0, expiring_sent: 0, unsellable_sent: 0, updated_at: AT })),
  });
  const holdCreate = (lots: boolean) => [
    // create: the hold of every line (one reserved movement each)
    s.databaseNow({}),
    ...catalogue,
    s.lockActiveReservationOf({ tenantId, reference: 'plan' }),
    // sold out by what is committed? (read, not locked)
    s.stockRead({ keys: keys(lines) }),
    ...(lots ? lotBook : []),
    s.nextSequence({ tenantId, prefix: 'RSV' }),
    s.insertReservation(hold),
    s.insertReservationItems({ rows: holdLines }),
    s.subscribedEndpoints({ tenantId }),
    ...readHold,
    // the stock rows last, for the stock writes only
    lock,
    ...(lots
      ? [
          ...lotBook,
          l.markLines({ reservationId: 1, lineNumbers }),
          l.lineIds({ reservationId: 1, lineNumbers }),
          l.insertAllocations({ rows: lineNumbers.map((n) => ({ tenant_id: tenantId, document: 'reservation' as const, item_id: n, seq: 1, lot_id: 1, quantity: 1 })) }),
          writeLots,
        ]
      : []),
    ...reservedLedger(lines),
  ];
  const holdConsume = (lots: boolean) => [
    // consume, whole: each line leaves reserved and good (two movements each)
    s.lockReservation({ tenantId, number: 'RSV' }),
    s.databaseNow({}),
    s.reservationItems({ ids: [1] }),
    lock,
    // the lots the lines took, their rows' lots, and the products' lot settings
    ...(lots ? [allocations, ...lotBook, l.policies({ ids: keys(lines).map((k) => k.productId) }), writeLots] : []),
    ...reservedLedger(2 * lines),
    s.subscribedEndpoints({ tenantId }),
    ...holdLines.map((line) => s.setConsumedQuantity({ reservationId: 1, lineNo: line.line_no, consumed: 1 })),
    s.updateActiveReservation({ status: 'consumed', consumed_at: AT, updated_at: AT, id: 1 }),
    ...readHold,
    ...(lots ? [allocations] : []),
  ];
  const statements = (() => {
    switch (kind) {
      case 'create':
        return [...catalogue, ...created];
      case 'detail':
        return [s.adjustmentDetail(byNumber)];
      case 'list':
        return list(undefined);
      case 'list-status':
        return list('pending');
      case 'approve':
        return [
          s.lockAdjustmentWithItems(byNumber),
          lock,
          ...ledger,
          s.subscribedEndpoints({ tenantId }),
          s.markApproved({ id: 1, approvedAt: AT, approvedBy: JSON.stringify(ACTOR), updatedAt: AT }),
        ];
      case 'count':
        return [...catalogue, lock, ...created, ...ledger, s.subscribedEndpoints({ tenantId })];
      case 'reserve':
        return [...holdCreate(false), ...holdConsume(false)];
      case 'reserve-lots':
        return [...holdCreate(true), ...holdConsume(true)];
    }
  })();
  return statements.map((statement) => statement.sql);
}

/** The statement text of authentication, which every request runs first. */
export function authenticationStatement(dialect: BenchDialect): string {
  return inventoryStatements(dialect).keyAndInstallation({ keyHash: 'plan', tenantId: 'plan' }).sql;
}
