// The bare routes of the inventory benchmark: a plain Koa app, started as its own process on the
// benchmark's database, whose four adjustment routes, stock count route and order hold create and
// consume routes run the gateway's own statements straight on the driver: each statement (text and parameters) is compiled from the
// repository's prepared query by @pits/persistence/bench (inventoryStatements; a hold's lot
// statements from lotStatements, held to the lot repository by its tests), and its rows are
// built with the same row builders as the gateway's; no Kysely executor, no zod, no middleware.
// The drivers: better-sqlite3 prepared statements, or named (prepared) queries on a pg pool of the
// same size. The order of the statements is checked against the gateway before each run
// (gateway-sql-capture.ts). Like the gateway, every request resolves its API key (SHA-256) and the
// tenant's installation with one query, never from a cache. Left out on purpose: rate limiting,
// the request id header, access log, idempotency lookup (a no-op without the header), zod
// validation (only what the SQL needs is checked), exact-decimal presentation (JSON numbers
// are built with Number()), the expiry of a hold found past its time (the bench's holds last
// 900 s: an expired one is INVALID_STATE here), pinned lots, and the short-dated units of the
// events (none are subscribed). Lots are allocated first expired first out on scaled integers
// with the domain's date rules. It answers with the same JSON shapes.
import { createHash, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type BetterSqlite3 from 'better-sqlite3';
import Koa, { type Context } from 'koa';
import pg from 'pg';
import { parseDatabaseUrl } from '@pits/persistence';
import {
  type BenchStatement,
  type InventoryStatements,
  type LotStatements,
  type LotStockRow,
  type NewAdjustmentFields,
  type NewReservation,
  type NewReservationItem,
  type WrittenLedgerRow,
  emptyLevelRow,
  inventoryStatements,
  ledgerActor,
  ledgerRow,
  levelRow,
  compareFefo,
  isSellable,
  lotStatements,
  newAdjustmentLineRow,
  type NewAdjustmentLine,
  newAdjustmentRow,
  newestLedgerIds,
  openSqlite,
  postgresTypeParsers,
  stockKey,
  todayOf,
} from '@pits/persistence/bench';
import type { BenchDialect } from './inventory-sql.js';

type Row = Record<string, unknown>;

/** The few driver calls the routes make; SQLite's are synchronous underneath. */
interface Queries {
  one(statement: BenchStatement): Promise<Row | undefined>;
  all(statement: BenchStatement): Promise<Row[]>;
  run(statement: BenchStatement): Promise<void>;
}

interface Driver extends Queries {
  dialect: BenchDialect;
  transaction<T>(work: (tx: Queries) => Promise<T>): Promise<T>;
}

function sqliteDriver(location: string): Driver {
  const db = openSqlite(location);
  const statements = new Map<string, BetterSqlite3.Statement>();
  const prepared = (text: string) => {
    let statement = statements.get(text);
    if (!statement) {
      statement = db.prepare(text);
      statements.set(text, statement);
    }
    return statement;
  };
  const queries: Queries = {
    one: async ({ sql, parameters }) => prepared(sql).get(...parameters) as Row | undefined,
    all: async ({ sql, parameters }) => prepared(sql).all(...parameters) as Row[],
    run: async ({ sql, parameters }) => {
      prepared(sql).run(...parameters);
    },
  };
  let open = false;
  return {
    dialect: 'sqlite',
    ...queries,
    // Every call above completes synchronously, so the awaits between the statements of a
    // transaction only queue microtasks: no other request's handler (started by I/O) can run
    // statements inside it. `open` makes sure of that.
    async transaction(work) {
      if (open) throw new Error('nested or interleaved SQLite transaction');
      open = true;
      prepared('begin immediate').run();
      try {
        const result = await work(queries);
        prepared('commit').run();
        return result;
      } catch (error) {
        prepared('rollback').run();
        throw error;
      } finally {
        open = false;
      }
    },
  };
}

function postgresDriver(url: string): Driver {
  const pool = new pg.Pool({ connectionString: url, max: 10, types: postgresTypeParsers() });
  const names = new Map<string, string>();
  const query = ({ sql, parameters }: BenchStatement): pg.QueryConfig<unknown[]> => {
    let name = names.get(sql);
    if (!name) {
      name = `bare_${names.size + 1}`;
      names.set(sql, name);
    }
    return { name, text: sql, values: parameters as unknown[] };
  };
  const on = (target: pg.Pool | pg.PoolClient): Queries => ({
    one: async (statement) => (await target.query<Row>(query(statement))).rows[0],
    all: async (statement) => (await target.query<Row>(query(statement))).rows,
    run: async (statement) => {
      await target.query(query(statement));
    },
  });
  return {
    dialect: 'postgres',
    ...on(pool),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work(on(client));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
  };
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
  ) {
    super(code);
  }
}

const config = parseDatabaseUrl(process.env.DATABASE_URL);
const driver = config.dialect === 'sqlite' ? sqliteDriver(config.location) : postgresDriver(config.url);
const sql: InventoryStatements = inventoryStatements(driver.dialect);
const lots: LotStatements = lotStatements(driver.dialect);

interface Partner {
  partnerId: number;
  name: string;
  email: string;
}

type AdjustmentType = NewAdjustmentFields['type'];
type ListStatus = Parameters<InventoryStatements['listPage']>[0]['status'];
const actorOf = (partner: Partner) => ({ id: partner.partnerId, name: partner.name, email: partner.email });

/** The key's partner and its installation for the tenant, in one query on every request. */
async function authenticate(ctx: Context): Promise<{ partner: Partner; tenantId: string }> {
  const key = ctx.get('authorization').trim().replace(/^bearer\s+/i, '');
  if (key === '') throw new HttpError(401, 'UNAUTHORIZED');
  const tenantId = ctx.get('x-tenant-id').trim().toLowerCase();
  if (tenantId === '') throw new HttpError(400, 'INVALID_REQUEST');
  const digest = createHash('sha256').update(key).digest('hex');
  const row = await driver.one(sql.keyAndInstallation({ keyHash: digest, tenantId }));
  if (!row) throw new HttpError(401, 'UNAUTHORIZED');
  if (row.installation_id === null || row.uninstall_at !== null) throw new HttpError(403, 'FORBIDDEN');
  return { partner: { partnerId: Number(row.partner_id), name: String(row.name), email: String(row.email) }, tenantId };
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve(text === '' ? {} : (JSON.parse(text) as Record<string, unknown>));
      } catch {
        reject(new HttpError(400, 'INVALID_REQUEST'));
      }
    });
    req.on('error', reject);
  });
}

/** A decimal input (number or string) as a bigint scaled by 10^4. */
function scaled4(value: unknown): bigint {
  const [whole = '0', fraction = ''] = String(value).split('.');
  return BigInt(`${whole}${fraction.padEnd(4, '0').slice(0, 4)}`);
}

function plain(value: bigint, places: number): string {
  const digits = value.toString().padStart(places + 1, '0');
  const fraction = digits.slice(digits.length - places).replace(/0+$/, '');
  return `${digits.slice(0, digits.length - places)}${fraction ? `.${fraction}` : ''}`;
}

const parseJson = (value: unknown) => (value === null ? null : (JSON.parse(String(value)) as unknown));
const quantity = (value: unknown) => Number(value) / 10_000;

function head(row: Row, location: { id: unknown; code: unknown; name: unknown; address: unknown }) {
  return {
    id: row.number,
    adjustment_number: row.number,
    location,
    type: row.type,
    stock_source: row.stock_source,
    reason: row.reason,
    status: row.status,
    total_amount: Number(row.total_amount),
    item_count: row.item_count,
    created_by: parseJson(row.created_by),
    created_at: row.created_at,
    updated_at: row.updated_at,
    approved_at: row.approved_at,
    approved_by: parseJson(row.approved_by),
    rejected_at: row.rejected_at,
    rejected_by: parseJson(row.rejected_by),
    rejection_reason: row.rejection_reason,
  };
}

/**
 * A line as the API shows it, from an adjustment_items row, or with `prefix` from a joined row whose
 * line columns carry it (the detail read's `item_`, which also joins the line's lot). The
 * adjustment cases' inserted lines name no lot.
 */
function item(row: Row, prefix = '') {
  const at = (column: string) => row[`${prefix}${column}`];
  return {
    id: at('id'),
    product_id: String(at('product_id')),
    product_name: at('product_name'),
    sku: at('sku'),
    type: at('type'),
    quantity: quantity(at('quantity')),
    unit_cost: Number(at('unit_cost')),
    total_cost: Number(at('total_cost')),
    notes: at('notes'),
    lot_number: at('lot_number') ?? null,
    expiry_date: at('expiry_date') ?? null,
  };
}

const envelope = (data: unknown) => ({ status: 'ok', data, errors: null, request_id: randomUUID() });
const joinedLocation = (row: Row) => ({ id: row.location_id, code: row.location_code, name: row.location_name, address: row.location_address });

/** The tenant's location and the products of the lines, by id; 422 when any is not the tenant's. */
async function locationAndProducts(tx: Queries, tenantId: string, locationId: number, productIds: number[]): Promise<{ location: Row; byId: Map<number, Row> }> {
  const rows = await tx.all(sql.locationWithProducts({ tenantId, locationId, ids: [...new Set(productIds)] }));
  const location = rows[0];
  if (!location) throw new HttpError(422, 'VALIDATION_ERROR');
  // Each product's columns come prefixed `product_`: its row is them without the prefix.
  const products = rows.filter((r) => r.product_id !== null).map((r): Row => Object.fromEntries(Object.entries(r).flatMap(([k, v]) => (k.startsWith('product_') ? [[k.slice(8), v]] : []))));
  const byId = new Map(products.map((p) => [Number(p.id), p]));
  if (productIds.some((id) => !byId.has(id))) throw new HttpError(422, 'VALIDATION_ERROR');
  return { location, byId };
}

/**
 * A new adjustment and its lines: one statement where the gateway sends one
 * (`insertAdjustmentWithLines`: one row per line, line columns prefixed `item_`), otherwise the
 * adjustment, then its lines (adjustment-repository.ts `insertAdjustmentWithItems`). Returns the
 * adjustment's row and the lines' rows in line order, with the prefix of their columns.
 */
async function insertAdjustmentWithLines(tx: Queries, adjustment: ReturnType<typeof newAdjustmentRow>, lines: NewAdjustmentLine[]): Promise<{ row: Row; items: Row[]; prefix: string }> {
  if (sql.insertAdjustmentWithLines && lines.length > 0) {
    const rows = await tx.all(sql.insertAdjustmentWithLines({ ...adjustment, lines }));
    rows.sort((a, b) => Number(a.item_line_no) - Number(b.item_line_no));
    return { row: rows[0]!, items: rows, prefix: 'item_' };
  }
  const row = (await tx.one(sql.insertAdjustment(adjustment)))!;
  const items = await tx.all(sql.insertItems({ rows: lines.map((line) => ({ ...line, adjustment_id: Number(row.id) })) }));
  items.sort((a, b) => Number(a.line_no) - Number(b.line_no));
  return { row, items, prefix: '' };
}

/** A new adjustment's line `index`, named as its product's catalogue row names it. */
function lineRow(index: number, product: Row, line: { productId: number; type: AdjustmentType; quantity: number; unitCost: string; totalCost: bigint; notes: string }): NewAdjustmentLine {
  const { productId, type, quantity, unitCost, totalCost, notes } = line;
  return newAdjustmentLineRow(index, { productId, productName: String(product.name), sku: String(product.sku), type, quantity, unitCost, totalCost: plain(totalCost, 8), notes });
}

async function createAdjustment(ctx: Context, partner: Partner, tenantId: string): Promise<void> {
  const body = await readJson(ctx.req);
  const lines = Array.isArray(body.items) ? (body.items as Record<string, unknown>[]) : [];
  const locationId = Number(body.location_id);
  if (lines.length === 0 || !Number.isSafeInteger(locationId)) throw new HttpError(422, 'VALIDATION_ERROR');
  const parsed = lines.map((l) => {
    const q = scaled4(l.quantity);
    const cost = scaled4(l.unit_cost);
    return { productId: Number(l.product_id), quantity: q, unitCost: plain(cost, 4), totalCost: q * cost, notes: typeof l.notes === 'string' ? l.notes : '' };
  });
  const total = parsed.reduce((sum, l) => sum + l.totalCost, 0n);
  const at = new Date().toISOString();
  const type = String(body.type) as AdjustmentType;
  const n = parsed.length;
  const created = await driver.transaction(async (tx) => {
    const { location, byId } = await locationAndProducts(tx, tenantId, locationId, parsed.map((l) => l.productId));
    const sequence = await tx.one(sql.nextSequence({ tenantId, prefix: 'ADJ' }));
    const number = `ADJ-${at.slice(0, 10).replaceAll('-', '')}-${String(sequence!.last_value).padStart(6, '0')}`;
    const fields = { tenantId, partnerId: partner.partnerId, actor: actorOf(partner), number, locationId, type, reason: String(body.reason) };
    const { row, items, prefix } = await insertAdjustmentWithLines(
      tx,
      newAdjustmentRow({ ...fields, stockSource: String(body.stock_source) as NewAdjustmentFields['stockSource'], totalAmount: plain(total, 8), itemCount: n, approval: null, at }),
      parsed.map((l, i) => lineRow(i, byId.get(l.productId)!, { productId: l.productId, type, quantity: Number(l.quantity), unitCost: l.unitCost, totalCost: l.totalCost, notes: l.notes })),
    );
    return { row, location, items, prefix };
  });
  ctx.status = 201;
  ctx.body = envelope({
    adjustment: { ...head(created.row, { id: created.location.id, code: created.location.code, name: created.location.name, address: created.location.address }), items: created.items.map((i) => item(i, created.prefix)) },
  });
}

async function adjustmentDetail(ctx: Context, tenantId: string, number: string): Promise<void> {
  const rows = await driver.all(sql.adjustmentDetail({ tenantId, number }));
  const row = rows[0];
  if (!row) throw new HttpError(404, 'NOT_FOUND');
  const bucket = `stock_${String(row.stock_source)}`;
  const items = rows.filter((r) => r.item_id !== null);
  ctx.body = envelope({
    adjustment: {
      ...head(row, joinedLocation(row)),
      items: items.map((r) => ({ ...item(r, 'item_'), current_stock: r[bucket] === null ? 0 : quantity(r[bucket]) })),
    },
  });
}

async function listAdjustments(ctx: Context, tenantId: string): Promise<void> {
  const page = Number(ctx.query.page ?? 1);
  const perPage = Number(ctx.query.per_page ?? 10);
  if (!Number.isSafeInteger(page) || page < 1 || !Number.isSafeInteger(perPage) || perPage < 1 || perPage > 100) throw new HttpError(422, 'VALIDATION_ERROR');
  const status = typeof ctx.query.status === 'string' && ctx.query.status !== '' ? (ctx.query.status as ListStatus) : undefined;
  const params = { tenantId, status, locationId: undefined, type: undefined, limit: perPage, offset: (page - 1) * perPage };
  // The kept total rides on the page's rows; an empty page reads it alone.
  const rows = await driver.all(sql.listPage(params));
  const total = Number((rows[0] === undefined ? (await driver.one(sql.listTotal(params)))?.total : rows[0].list_total) ?? 0);
  ctx.body = envelope({
    adjustments: rows.map((r) => ({
      id: r.number,
      adjustment_number: r.number,
      location: { id: r.location_id, code: r.location_code, name: r.location_name },
      type: r.type,
      reason: r.reason,
      status: r.status,
      total_amount: Number(r.total_amount),
      item_count: r.item_count,
      created_at: r.created_at,
      updated_at: r.updated_at,
    })),
    pagination: { current_page: page, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) },
  });
}

/**
 * A write's ledger rows, then its stock rows naming the newest of them per bucket: one statement
 * where the gateway sends one (`writeLedgerWithStock`), otherwise the ledger insert returning the
 * ids, then the levels (stock-repository.ts `writeStockRows`).
 */
async function writeLedgerAndStock(
  tx: Queries,
  tenantId: string,
  at: string,
  ledger: ReturnType<typeof ledgerRow>[],
  levels: { locationId: number; productId: number; good: number; damaged: number; reserved: number; reservedForOrders?: number }[],
): Promise<void> {
  if (sql.writeLedgerWithStock && ledger.length > 0) {
    await tx.all(sql.writeLedgerWithStock({ ledger, levels: levels.map((l) => levelRow(tenantId, l, at)) }));
    return;
  }
  const newest = newestLedgerIds((await tx.all(sql.insertLedger({ rows: ledger }))) as WrittenLedgerRow[]);
  await tx.all(sql.writeStock({ rows: levels.map((l) => levelRow(tenantId, l, at, newest.get(stockKey(l)))) }));
}

async function approveAdjustment(ctx: Context, partner: Partner, tenantId: string, number: string): Promise<void> {
  const at = new Date().toISOString();
  const actor = actorOf(partner);
  const cause = { type: 'adjustment', id: number, documentNumber: number, actor: ledgerActor(actor) } as const;
  await driver.transaction(async (tx) => {
    const rows = await tx.all(sql.lockAdjustmentWithItems({ tenantId, number }));
    const row = rows[0];
    if (!row) throw new HttpError(404, 'NOT_FOUND');
    if (row.status !== 'pending') throw new HttpError(422, 'INVALID_STATE');
    const items = rows.filter((r) => r.item_id !== null).map((r) => ({ product_id: r.item_product_id, quantity: r.item_quantity }));
    const locationId = Number(row.location_id);
    const type = row.type as AdjustmentType;
    const bucket = row.stock_source === 'damaged' ? 'damaged' : 'good';
    const sign = type === 'increase' ? 1 : -1;
    const lines = items.map((i) => ({ productId: Number(i.product_id), delta: sign * Number(i.quantity) })).sort((a, b) => a.productId - b.productId);
    const locked = await tx.all(sql.lockStock({ rows: lines.map((l) => emptyLevelRow(tenantId, { locationId, productId: l.productId }, at)) }));
    const levels = new Map(locked.map((l) => [Number(l.product_id), { good: Number(l.good), damaged: Number(l.damaged), reserved: Number(l.reserved) }]));
    const ledger = lines.map((line) => {
      const level = levels.get(line.productId)!;
      const before = level[bucket];
      const after = before + line.delta;
      if (after < (bucket === 'good' ? level.reserved : 0)) throw new HttpError(422, 'INSUFFICIENT_STOCK');
      level[bucket] = after;
      return ledgerRow(tenantId, { locationId, productId: line.productId, bucket, delta: line.delta, before, after }, cause, at);
    });
    await writeLedgerAndStock(tx, tenantId, at, ledger, lines.map((line) => ({ locationId, productId: line.productId, ...levels.get(line.productId)! })));
    // The gateway's event fan-out reads the subscribed endpoints (once per transaction, first for
    // the stock.level_changed events of the write above); the benchmark registers none, so, as in
    // the gateway, nothing more is written.
    await tx.all(sql.subscribedEndpoints({ tenantId }));
    await tx.run(sql.markApproved({ id: Number(row.id), approvedAt: at, approvedBy: JSON.stringify(actor), updatedAt: at }));
  });
  ctx.body = envelope(null);
}

/** A physical count, compare-and-set, written as one approved adjustment (the gateway's recordStockCount). */
async function stockCount(ctx: Context, partner: Partner, tenantId: string): Promise<void> {
  const body = await readJson(ctx.req);
  const lines = Array.isArray(body.items) ? (body.items as Record<string, unknown>[]) : [];
  const locationId = Number(body.location_id);
  const bucket = body.stock_source === 'damaged' ? 'damaged' : 'good';
  if (lines.length === 0 || !Number.isSafeInteger(locationId)) throw new HttpError(422, 'VALIDATION_ERROR');
  const parsed = lines.map((l) => ({ productId: Number(l.product_id), counted: Number(scaled4(l.counted)), expected: l.expected === null ? null : Number(scaled4(l.expected)) }));
  const at = new Date().toISOString();
  const actor = actorOf(partner);
  const created = await driver.transaction(async (tx) => {
    const { location, byId } = await locationAndProducts(tx, tenantId, locationId, parsed.map((l) => l.productId));
    const sorted = [...parsed].sort((a, b) => a.productId - b.productId);
    const locked = await tx.all(sql.lockStock({ rows: sorted.map((l) => emptyLevelRow(tenantId, { locationId, productId: l.productId }, at)) }));
    const levels = new Map(locked.map((l) => [Number(l.product_id), { good: Number(l.good), damaged: Number(l.damaged), reserved: Number(l.reserved) }]));
    if (parsed.some((l) => l.expected !== null && l.expected !== levels.get(l.productId)![bucket])) throw new HttpError(409, 'STALE_QUANTITY');
    const changed = parsed.flatMap((l) => {
      const level = levels.get(l.productId)!;
      const delta = l.counted - level[bucket];
      return delta === 0 ? [] : [{ ...l, delta, before: level[bucket], level }];
    });
    if (changed.length === 0) throw new HttpError(422, 'VALIDATION_ERROR');
    const priced = changed.map((c) => {
      const cost = scaled4(byId.get(c.productId)!.cost_price);
      return { ...c, unitCost: plain(cost, 4), totalCost: BigInt(Math.abs(c.delta)) * cost };
    });
    const net = changed.reduce((sum, c) => sum + c.delta, 0);
    const total = priced.reduce((sum, c) => sum + c.totalCost, 0n);
    const type: AdjustmentType = net < 0 ? 'decrease' : 'increase';
    const sequence = await tx.one(sql.nextSequence({ tenantId, prefix: 'ADJ' }));
    const number = `ADJ-${at.slice(0, 10).replaceAll('-', '')}-${String(sequence!.last_value).padStart(6, '0')}`;
    const { row, items, prefix } = await insertAdjustmentWithLines(
      tx,
      newAdjustmentRow({
        tenantId, partnerId: partner.partnerId, actor, number, locationId, type, stockSource: bucket, reason: 'stock count',
        totalAmount: plain(total, 8), itemCount: changed.length, approval: { at, by: actor }, at,
      }),
      priced.map((c, i) =>
        lineRow(i, byId.get(c.productId)!, { productId: c.productId, type: c.delta < 0 ? 'decrease' : 'increase', quantity: Math.abs(c.delta), unitCost: c.unitCost, totalCost: c.totalCost, notes: '' }),
      ),
    );
    const cause = { type: 'adjustment', id: number, documentNumber: number, actor: ledgerActor(actor) } as const;
    const ledger = changed.map((c) => {
      if (c.counted < (bucket === 'good' ? c.level.reserved : 0)) throw new HttpError(422, 'INSUFFICIENT_STOCK');
      c.level[bucket] = c.counted;
      return ledgerRow(tenantId, { locationId, productId: c.productId, bucket, delta: c.delta, before: c.before, after: c.counted }, cause, at);
    });
    const written = [...changed].sort((a, b) => a.productId - b.productId);
    await writeLedgerAndStock(tx, tenantId, at, ledger, written.map((c) => ({ locationId, productId: c.productId, ...c.level })));
    await tx.all(sql.subscribedEndpoints({ tenantId }));
    return { row, location, items, prefix, levels };
  });
  ctx.status = 201;
  ctx.body = envelope({
    adjustment: {
      ...head(created.row, { id: created.location.id, code: created.location.code, name: created.location.name, address: created.location.address }),
      items: created.items.map((i) => ({ ...item(i, created.prefix), current_stock: quantity(created.levels.get(Number(i[`${created.prefix}product_id`]))![bucket]) })),
    },
  });
}

/** A line's allocations as the gateway presents them (presentAllocations in route-helpers.ts), by line row id. */
type PresentedAllocations = Map<number, { lot_number: unknown; expiry_date: unknown; quantity: number }[]>;

/** A hold as the gateway presents it (presentReservation in reservation-routes.ts). */
function presentHold(row: Row, items: Row[], allocations: PresentedAllocations) {
  return {
    id: row.number,
    reservation_number: row.number,
    reference: row.reference,
    location_id: row.location_id,
    status: row.status,
    expires_at: row.expires_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    consumed_at: row.consumed_at,
    released_at: row.released_at,
    release_reason: row.release_reason,
    created_by: parseJson(row.created_by),
    items: items.map((i) => ({
      product_id: String(i.product_id),
      sku: i.sku,
      product_name: i.product_name,
      quantity: quantity(i.quantity),
      consumed_quantity: quantity(i.consumed_quantity),
      allocations: allocations.get(Number(i.id)) ?? [],
    })),
  };
}

interface HeldLevel {
  good: number;
  damaged: number;
  reserved: number;
  reservedForOrders: number;
}

/** The locked stock rows of a hold's products, by product id (scaled quantities). */
async function lockHoldStock(tx: Queries, tenantId: string, locationId: number, productIds: number[], at: string): Promise<Map<number, HeldLevel>> {
  const sorted = [...productIds].sort((a, b) => a - b);
  const locked = await tx.all(sql.lockStock({ rows: sorted.map((productId) => emptyLevelRow(tenantId, { locationId, productId }, at)) }));
  return new Map(
    locked.map((l) => [Number(l.product_id), { good: Number(l.good), damaged: Number(l.damaged), reserved: Number(l.reserved), reservedForOrders: Number(l.reserved_for_orders) }]),
  );
}

/** The allocation rows of lines (lots.allocations) as presented, by line row id. */
function presentedAllocations(rows: Row[]): PresentedAllocations {
  const byLine: PresentedAllocations = new Map();
  for (const a of rows) byLine.set(Number(a.item_id), [...(byLine.get(Number(a.item_id)) ?? []), { lot_number: a.lot_number, expiry_date: a.expiry_date, quantity: quantity(a.quantity) }]);
  return byLine;
}

/** A hold with its lines, as the gateway reads it back at the end of each call; the lots of lines that took any. */
async function readHold(tx: Queries, tenantId: string, number: string): Promise<{ row: Row; items: Row[]; allocations: PresentedAllocations }> {
  const row = (await tx.one(sql.reservationByNumber({ tenantId, number })))!;
  const items = await tx.all(sql.reservationItems({ ids: [Number(row.id)] }));
  const withLots = items.filter((i) => Number(i.has_lots) === 1).map((i) => Number(i.id));
  return { row, items, allocations: withLots.length === 0 ? new Map() : presentedAllocations(await tx.all(lots.allocations({ document: 'reservation', ids: withLots }))) };
}

/** A lot's units at a stock row (scaled), as the bare routes allocate from and write them. */
interface LotLevel {
  lotId: number;
  locationId: number;
  productId: number;
  lotNumber: string;
  expiryDate: string | null;
  good: number;
  damaged: number;
  reserved: number;
}

/** The lots of stock rows by product, and today (the gateway's openLotBook). */
interface LotBook {
  byProduct: Map<number, LotLevel[]>;
  byId: Map<number, LotLevel>;
  today: string;
}

async function openLotBook(tx: Queries, locationId: number, productIds: number[]): Promise<LotBook> {
  const rows = await tx.all(lots.lotLevels({ keys: productIds.map((productId) => ({ locationId, productId })) }));
  const clock = (await tx.one(lots.today({})))!;
  const book: LotBook = { byProduct: new Map(), byId: new Map(), today: todayOf({ now: clock.now, shift: clock.shift }) };
  for (const r of rows) {
    const level: LotLevel = {
      lotId: Number(r.lot_id), locationId: Number(r.location_id), productId: Number(r.product_id), lotNumber: String(r.lot_number),
      expiryDate: r.expiry_date === null ? null : String(r.expiry_date), good: Number(r.good), damaged: Number(r.damaged), reserved: Number(r.reserved),
    };
    book.byProduct.set(level.productId, [...(book.byProduct.get(level.productId) ?? []), level]);
    book.byId.set(level.lotId, level);
  }
  return book;
}

/** First expired first out over the lots sellable today; undefined when they cannot cover `wanted` (scaled). */
function allocate(book: LotBook, productId: number, wanted: number, outboundExpired: number): { lot: LotLevel; quantity: number }[] | undefined {
  const candidates = (book.byProduct.get(productId) ?? []).filter((lot) => isSellable(lot, book.today, outboundExpired)).sort(compareFefo);
  const taken: { lot: LotLevel; quantity: number }[] = [];
  let needed = wanted;
  for (const lot of candidates) {
    if (needed <= 0) break;
    const free = lot.good - lot.reserved;
    if (free <= 0) continue;
    const take = Math.min(free, needed);
    taken.push({ lot, quantity: take });
    needed -= take;
  }
  return needed > 0 ? undefined : taken;
}

/** A lot's new units as writeLotLevels writes them. */
const lotStockRow = (tenantId: string, lot: LotLevel, at: string): LotStockRow => ({
  tenant_id: tenantId, location_id: lot.locationId, product_id: lot.productId, lot_id: lot.lotId, good: lot.good, damaged: lot.damaged, reserved: lot.reserved,
  expiring_sent: 0, unsellable_sent: 0, updated_at: at,
});

/**
 * Holds every line against available good stock, or nothing (the gateway's createReservation); a
 * line of a lot-tracked product also against its sellable lots, first expired first out.
 */
async function createHold(ctx: Context, partner: Partner, tenantId: string): Promise<void> {
  const body = await readJson(ctx.req);
  const lines = Array.isArray(body.items) ? (body.items as Record<string, unknown>[]) : [];
  const locationId = Number(body.location_id);
  const reference = typeof body.reference === 'string' ? body.reference : '';
  const expiresIn = body.expires_in === undefined ? 900 : Number(body.expires_in);
  if (lines.length === 0 || !Number.isSafeInteger(locationId) || reference === '') throw new HttpError(422, 'VALIDATION_ERROR');
  const parsed = lines.map((l) => ({ productId: Number(l.product_id), quantity: Number(scaled4(l.quantity)) }));
  const actor = actorOf(partner);
  const held = await driver.transaction(async (tx) => {
    const at = new Date((await tx.one(sql.databaseNow({})))!.now as string).toISOString();
    const { location, byId } = await locationAndProducts(tx, tenantId, locationId, parsed.map((l) => l.productId));
    if (await tx.one(sql.lockActiveReservationOf({ tenantId, reference }))) throw new HttpError(422, 'VALIDATION_ERROR');
    const outbound = (productId: number) => Number(byId.get(productId)!.outbound_expired);
    const tracked = parsed.flatMap((l, index) => (Number(byId.get(l.productId)!.production_batch) === 1 ? [{ ...l, index }] : []));
    // Sold out by what is committed: refused before anything is written or locked.
    const committed = await tx.all(sql.stockRead({ keys: parsed.map((l) => ({ locationId, productId: l.productId })) }));
    for (const l of parsed) {
      const level = committed.find((r) => Number(r.product_id) === l.productId);
      if (!level || l.quantity > Number(level.good) - Number(level.reserved)) throw new HttpError(422, 'INSUFFICIENT_STOCK');
    }
    if (tracked.length > 0) {
      const committedLots = await openLotBook(tx, locationId, tracked.map((l) => l.productId));
      if (tracked.some((l) => !allocate(committedLots, l.productId, l.quantity, outbound(l.productId)))) throw new HttpError(422, 'INSUFFICIENT_STOCK');
    }
    // The gateway commits the number on a connection of its own (PostgreSQL); here it stays in the
    // transaction: the same statement, and the bare pool has no connection to spare for it.
    const sequence = await tx.one(sql.nextSequence({ tenantId, prefix: 'RSV' }));
    const number = `RSV-${at.slice(0, 10).replaceAll('-', '')}-${String(sequence!.last_value).padStart(6, '0')}`;
    const hold: NewReservation = {
      tenant_id: tenantId, partner_id: partner.partnerId, number, reference, location_id: Number(location.id), status: 'active',
      expires_at: new Date(Date.parse(at) + expiresIn * 1000).toISOString(), consumed_at: null, released_at: null, release_reason: null,
      created_by: JSON.stringify(actor), created_at: at, updated_at: at,
    };
    const { id } = (await tx.one(sql.insertReservation(hold)))!;
    const items: NewReservationItem[] = parsed.map((l, i) => {
      const product = byId.get(l.productId)!;
      return { reservation_id: Number(id), line_no: i + 1, product_id: l.productId, sku: String(product.sku), product_name: String(product.name), quantity: l.quantity, consumed_quantity: 0 };
    });
    await tx.run(sql.insertReservationItems({ rows: items }));
    // Events: none subscribed, as on the gateway's run.
    await tx.all(sql.subscribedEndpoints({ tenantId }));
    const created = await readHold(tx, tenantId, number);
    // The stock rows last, for the stock writes only (the gateway's createReservation), then their lots.
    const levels = await lockHoldStock(tx, tenantId, locationId, parsed.map((l) => l.productId), at);
    const book = tracked.length === 0 ? undefined : await openLotBook(tx, locationId, tracked.map((l) => l.productId));
    for (const l of parsed) {
      const level = levels.get(l.productId)!;
      if (l.quantity > level.good - level.reserved) throw new HttpError(422, 'INSUFFICIENT_STOCK');
    }
    const taken = new Map<number, { lot: LotLevel; quantity: number }[]>();
    for (const l of book ? tracked : []) {
      const parts = allocate(book!, l.productId, l.quantity, outbound(l.productId));
      if (!parts) throw new HttpError(422, 'INSUFFICIENT_STOCK');
      taken.set(l.index, parts);
    }
    const lineLots: PresentedAllocations = new Map();
    if (taken.size > 0) {
      const lineNumbers = [...taken.keys()].map((index) => index + 1);
      await tx.run(lots.markLines({ reservationId: Number(id), lineNumbers }));
      const lineIds = new Map((await tx.all(lots.lineIds({ reservationId: Number(id), lineNumbers }))).map((r) => [Number(r.line_no), Number(r.id)]));
      await tx.run(
        lots.insertAllocations({
          rows: [...taken].flatMap(([index, parts]) =>
            parts.map((p, seq) => ({ tenant_id: tenantId, document: 'reservation' as const, item_id: lineIds.get(index + 1)!, seq: seq + 1, lot_id: p.lot.lotId, quantity: p.quantity })),
          ),
        }),
      );
      const touched = new Map<number, LotLevel>();
      for (const p of [...taken.values()].flat()) {
        p.lot.reserved += p.quantity;
        touched.set(p.lot.lotId, p.lot);
      }
      await tx.run(lots.writeLotStock({ rows: [...touched.values()].map((lot) => lotStockRow(tenantId, lot, at)) }));
      for (const [index, parts] of taken) lineLots.set(lineIds.get(index + 1)!, parts.map((p) => ({ lot_number: p.lot.lotNumber, expiry_date: p.lot.expiryDate, quantity: quantity(p.quantity) })));
    }
    const ledgerRows = parsed.flatMap((l, index) => {
      const level = levels.get(l.productId)!;
      let before = level.reserved;
      level.reserved += l.quantity;
      level.reservedForOrders += l.quantity;
      // A lot-tracked line's movement is one ledger row per lot it took, chained.
      const parts = taken.get(index)?.map((p) => ({ delta: p.quantity, lotNumber: p.lot.lotNumber as string | null })) ?? [{ delta: l.quantity, lotNumber: null }];
      return parts.map((part) => {
        const movement = { locationId, productId: l.productId, bucket: 'reserved' as const, delta: part.delta, before, after: before + part.delta, lotNumber: part.lotNumber };
        before = movement.after;
        return movement;
      });
    });
    const cause = { type: 'reservation', id: number, documentNumber: number, actor: ledgerActor(actor) } as const;
    await writeLedgerAndStock(tx, tenantId, at, ledgerRows.map((m) => ledgerRow(tenantId, m, cause, at)), parsed.map((l) => ({ locationId, productId: l.productId, ...levels.get(l.productId)! })));
    return { ...created, allocations: lineLots };
  });
  ctx.status = 201;
  ctx.body = envelope({ reservation: presentHold(held.row, held.items, held.allocations) });
}

/** Consumes every line of an active hold whole (the gateway's consumeReservation without items), and the lots its lines took. */
async function consumeHold(ctx: Context, partner: Partner, tenantId: string, number: string): Promise<void> {
  await readJson(ctx.req);
  const actor = actorOf(partner);
  const consumed = await driver.transaction(async (tx) => {
    const row = await tx.one(sql.lockReservation({ tenantId, number }));
    if (!row) throw new HttpError(404, 'NOT_FOUND');
    const at = new Date((await tx.one(sql.databaseNow({})))!.now as string).toISOString();
    if (row.status !== 'active' || Date.parse(String(row.expires_at)) <= Date.parse(at)) throw new HttpError(422, 'INVALID_STATE');
    const lines = await tx.all(sql.reservationItems({ ids: [Number(row.id)] }));
    const locationId = Number(row.location_id);
    const levels = await lockHoldStock(tx, tenantId, locationId, lines.map((l) => Number(l.product_id)), at);
    // The lots the lines took (only lines flagged as having any are asked for), and their rows' lots.
    const withLots = lines.filter((l) => Number(l.has_lots) === 1).map((l) => Number(l.id));
    const allocated = withLots.length === 0 ? [] : await tx.all(lots.allocations({ document: 'reservation', ids: withLots }));
    const takenBy = new Map<number, Row[]>();
    for (const a of allocated) takenBy.set(Number(a.item_id), [...(takenBy.get(Number(a.item_id)) ?? []), a]);
    const lotLines = lines.filter((l) => takenBy.has(Number(l.id)));
    const book = lotLines.length === 0 ? undefined : await openLotBook(tx, locationId, lotLines.map((l) => Number(l.product_id)));
    const movements = lines.flatMap((l) => {
      const productId = Number(l.product_id);
      const take = Number(l.quantity);
      const level = levels.get(productId)!;
      const reservedBefore = level.reserved;
      level.reserved -= take;
      level.reservedForOrders -= take;
      const goodBefore = level.good;
      level.good -= take;
      if (level.good < level.reserved) throw new HttpError(422, 'INSUFFICIENT_STOCK');
      const parts = takenBy.get(Number(l.id))?.map((a) => ({ delta: Number(a.quantity), lotNumber: String(a.lot_number) as string | null })) ?? [{ delta: take, lotNumber: null }];
      // Each bucket's movement is one ledger row per lot, chained (consumed whole: every allocation leaves both).
      const chained = (bucket: 'reserved' | 'good', before: number) =>
        parts.map((part) => {
          const movement = { productId, bucket, delta: -part.delta, before, after: before - part.delta, lotNumber: part.lotNumber };
          before = movement.after;
          return movement;
        });
      return [...chained('reserved', reservedBefore), ...chained('good', goodBefore)];
    });
    if (book) {
      // The products' lot settings (the gateway reads them for the events' short-dated units).
      await tx.all(lots.policies({ ids: [...new Set(lotLines.map((l) => Number(l.product_id)))] }));
      const touched = new Map<number, LotLevel>();
      for (const a of allocated) {
        const lot = book.byId.get(Number(a.lot_id))!;
        lot.reserved -= Number(a.quantity);
        lot.good -= Number(a.quantity);
        if (lot.reserved < 0 || lot.good < lot.reserved) throw new HttpError(422, 'INSUFFICIENT_STOCK');
        touched.set(lot.lotId, lot);
      }
      await tx.run(lots.writeLotStock({ rows: [...touched.values()].map((lot) => lotStockRow(tenantId, lot, at)) }));
    }
    const cause = { type: 'reservation', id: number, documentNumber: number, actor: ledgerActor(actor) } as const;
    await writeLedgerAndStock(tx, tenantId, at, movements.map((m) => ledgerRow(tenantId, { locationId, ...m }, cause, at)), lines.map((l) => ({ locationId, productId: Number(l.product_id), ...levels.get(Number(l.product_id))! })));
    await tx.all(sql.subscribedEndpoints({ tenantId }));
    for (const l of lines) await tx.run(sql.setConsumedQuantity({ reservationId: Number(row.id), lineNo: Number(l.line_no), consumed: Number(l.quantity) }));
    await tx.run(sql.updateActiveReservation({ status: 'consumed', consumed_at: at, updated_at: at, id: Number(row.id) }));
    return readHold(tx, tenantId, number);
  });
  ctx.body = envelope({ reservation: presentHold(consumed.row, consumed.items, consumed.allocations) });
}

const DETAIL = /^\/api\/engine\/v1\/adjustments\/([^/]+)$/;
const APPROVE = /^\/api\/partner\/v1\/adjustments\/([^/]+)\/approve$/;
const CONSUME = /^\/api\/partner\/v1\/reservations\/([^/]+)\/consume$/;

const app = new Koa();
app.use(async (ctx) => {
  try {
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    const { partner, tenantId } = await authenticate(ctx);
    let match: RegExpExecArray | null;
    if (ctx.method === 'POST' && ctx.path === '/api/partner/v1/adjustments') await createAdjustment(ctx, partner, tenantId);
    else if (ctx.method === 'POST' && ctx.path === '/api/partner/v1/stock/counts') await stockCount(ctx, partner, tenantId);
    else if (ctx.method === 'GET' && ctx.path === '/api/engine/v1/adjustments') await listAdjustments(ctx, tenantId);
    else if (ctx.method === 'GET' && (match = DETAIL.exec(ctx.path))) await adjustmentDetail(ctx, tenantId, decodeURIComponent(match[1]!));
    else if ((ctx.method === 'PATCH' || ctx.method === 'POST') && (match = APPROVE.exec(ctx.path))) await approveAdjustment(ctx, partner, tenantId, decodeURIComponent(match[1]!));
    else if (ctx.method === 'POST' && ctx.path === '/api/partner/v1/reservations') await createHold(ctx, partner, tenantId);
    else if (ctx.method === 'POST' && (match = CONSUME.exec(ctx.path))) await consumeHold(ctx, partner, tenantId, decodeURIComponent(match[1]!));
    else throw new HttpError(404, 'NOT_FOUND');
  } catch (error) {
    const known = error instanceof HttpError ? error : undefined;
    if (!known) console.error(error);
    ctx.status = known?.status ?? 500;
    ctx.body = { status: 'error', error: { code: known?.code ?? 'INTERNAL_ERROR', message: known?.code ?? 'unexpected' }, request_id: randomUUID() };
  }
});
app.listen(Number(process.env.PORT), '127.0.0.1');
// Exit normally on SIGTERM, so that a --cpu-prof profile gets written.
process.on('SIGTERM', () => process.exit(0));
