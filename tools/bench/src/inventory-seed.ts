// Seeds the inventory benchmark's database: five partners, each with an API key and a tenant of
// its own (two locations, twenty products, opening stock, and twenty lot-tracked products in three
// lots each at the first location, one of them short-dated), written through @pits/persistence;
// then the bulk (20,000 adjustments and 4,000 transfers per tenant, with their lines, ledger rows
// and final stock levels) written straight through the drivers: one better-sqlite3 prepared
// statement in one transaction, or PostgreSQL COPY. Rows are objects keyed by column, built with
// the repositories' own row builders where they have one (@pits/persistence/bench), so the bulk
// writer takes its column list from the rows and no column list is kept here. Everything it
// writes satisfies the schema's CHECKs, and the ledger still sums to every stock level.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import {
  type Database,
  authorizeTenant,
  grantAccess,
  createApiKey,
  createLocation,
  createPartner,
  createProduct,
  createTenant,
  databaseToday,
  recordOpeningStock,
} from '@pits/persistence';
import { addDays, ledgerRow, newAdjustmentItemRow, newAdjustmentRow, openSqlite } from '@pits/persistence/bench';
import type { BenchDialect } from './inventory-sql.js';

export interface SeedProduct {
  id: number;
  name: string;
  sku: string;
  /** Two-place decimal string. */
  costPrice: string;
}

export interface SeedTenant {
  tenantId: string;
  partnerId: number;
  partnerName: string;
  partnerEmail: string;
  apiKey: string;
  locationIds: [number, number];
  products: SeedProduct[];
  /** Lot-tracked products (LOT_SEED), stocked in lots at the first location only (the reserve-lots case). */
  lotProducts: SeedProduct[];
  /** Every seeded adjustment number of the tenant (for the detail case). */
  adjustmentNumbers: string[];
}

export interface SeedCounts {
  adjustments: number;
  adjustmentItems: number;
  transfers: number;
  transferItems: number;
  ledgerRows: number;
  pendingIncrease: number;
}

/** A place to write rows fast: the raw driver of the benchmark database. */
export interface BulkWriter {
  readonly dialect: BenchDialect;
  /** Writes `rows` (objects keyed by column, every row with the same columns) into `table`. */
  insert(table: string, rows: readonly SeedRow[]): Promise<void>;
  /** A statement with `?` placeholders (rewritten to `$n` for pg); returns the rows. */
  query<T>(text: string, params?: readonly Cell[]): Promise<T[]>;
  /** Brings planner statistics (and on PostgreSQL the visibility map) up to date after a bulk load, as autovacuum would have by now. */
  analyze(): Promise<void>;
  close(): Promise<void>;
}

type Cell = string | number | null;
/** A row to write, keyed by column name. */
export type SeedRow = Readonly<Record<string, Cell>>;

/** The columns of a batch of rows: the first row's keys; a later row lacking one is refused. */
function columnsOf(table: string, rows: readonly SeedRow[]): { columns: string[]; values: (row: SeedRow) => Cell[] } {
  const columns = Object.keys(rows[0] ?? {});
  const values = (row: SeedRow) =>
    columns.map((column) => {
      const value = row[column];
      if (value === undefined) throw new Error(`${table}: a row lacks column ${column} (${JSON.stringify(row)})`);
      return value;
    });
  return { columns, values };
}

const columnList = (columns: readonly string[]) => columns.map((c) => `"${c}"`).join(', ');

const SCALE = 10_000n; // quantities are stored times 10^4 (@pits/domain QUANTITY_SCALE)

function toPg(text: string): string {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
}

function sqliteWriter(location: string): BulkWriter {
  const db: BetterSqlite3.Database = openSqlite(location);
  return {
    dialect: 'sqlite',
    async insert(table, rows) {
      if (rows.length === 0) return;
      const { columns, values } = columnsOf(table, rows);
      const statement = db.prepare(`insert into "${table}" (${columnList(columns)}) values (${columns.map(() => '?').join(', ')})`);
      db.transaction(() => {
        for (const row of rows) statement.run(...values(row));
      })();
    },
    async query<T>(text: string, params: readonly Cell[] = []) {
      const statement = db.prepare(text);
      if (statement.reader) return statement.all(...params) as T[];
      statement.run(...params);
      return [];
    },
    async analyze() {
      db.exec('analyze');
    },
    async close() {
      db.close();
    },
  };
}

function csvCell(value: Cell): string {
  if (value === null) return '';
  if (typeof value === 'number') return String(value);
  return `"${value.replace(/"/g, '""')}"`;
}

async function postgresWriter(url: string): Promise<BulkWriter> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return {
    dialect: 'postgres',
    async insert(table, rows) {
      if (rows.length === 0) return;
      const { columns, values } = columnsOf(table, rows);
      const stream = client.query(copyFrom(`copy "${table}" (${columnList(columns)}) from stdin with (format csv)`));
      function* lines() {
        let chunk = '';
        for (const row of rows) {
          chunk += `${values(row).map(csvCell).join(',')}\n`;
          if (chunk.length > 1 << 16) {
            yield chunk;
            chunk = '';
          }
        }
        if (chunk) yield chunk;
      }
      await pipeline(Readable.from(lines()), stream);
    },
    async query<T>(text: string, params: readonly Cell[] = []) {
      const result = await client.query(toPg(text), [...params]);
      return result.rows as T[];
    },
    async analyze() {
      await client.query('vacuum analyze');
    },
    async close() {
      await client.end();
    },
  };
}

/** Opens the raw writer for the database the benchmark uses. */
export function openBulkWriter(target: { dialect: 'sqlite'; location: string } | { dialect: 'postgres'; url: string }): Promise<BulkWriter> {
  return target.dialect === 'sqlite' ? Promise.resolve(sqliteWriter(target.location)) : postgresWriter(target.url);
}

/** A small deterministic PRNG (mulberry32), so every run seeds the same data. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `12.5` as the scaled integer 125000. */
function scaledQuantity(units: number): bigint {
  return BigInt(Math.round(units * 10_000));
}

/** quantity (scaled 10^4) x price ("1234.50") as an exact plain decimal string. */
function lineTotal(quantity: bigint, price: string): bigint {
  const [whole, fraction = ''] = price.split('.');
  const cents = BigInt(`${whole}${fraction.padEnd(2, '0').slice(0, 2)}`);
  return quantity * cents; // scaled by 10^6
}

/** A bigint scaled by 10^places as a plain decimal string without trailing zeros. */
export function plainDecimal(value: bigint, places: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

const day = (iso: string) => iso.slice(0, 10);
const compactDay = (iso: string) => iso.slice(0, 10).replaceAll('-', '');
export const documentNumber = (prefix: 'ADJ' | 'TRF', atIso: string, sequence: number) =>
  `${prefix}-${compactDay(atIso)}-${String(sequence).padStart(6, '0')}`;

interface Level {
  good: bigint;
  damaged: bigint;
  reserved: bigint;
}

function actorOf(tenant: Pick<SeedTenant, 'partnerId' | 'partnerName' | 'partnerEmail'>) {
  return { id: tenant.partnerId, name: tenant.partnerName, email: tenant.partnerEmail };
}

function actorJson(tenant: Pick<SeedTenant, 'partnerId' | 'partnerName' | 'partnerEmail'>): string {
  return JSON.stringify(actorOf(tenant));
}

/** The row of a pending increase adjustment created at `at`, with its id (the builder's row has none). */
function pendingAdjustment(id: number, tenant: SeedTenant, number: string, locationId: number, reason: string, total: bigint, itemCount: number, at: string): SeedRow {
  return {
    ...newAdjustmentRow({ tenantId: tenant.tenantId, partnerId: tenant.partnerId, actor: actorOf(tenant), number, locationId, type: 'increase', stockSource: 'good', reason, totalAmount: plainDecimal(total, 6), itemCount, approval: null, at }),
    id,
  };
}

/** The row of line `index` of adjustment `adjustmentId`, with its id. */
function adjustmentLine(id: number, adjustmentId: number, index: number, product: SeedProduct, type: 'increase' | 'decrease', quantity: bigint, lineCost: bigint): SeedRow {
  return {
    id,
    ...newAdjustmentItemRow(adjustmentId, index, { productId: product.id, productName: product.name, sku: product.sku, type, quantity: Number(quantity), unitCost: product.costPrice, totalCost: plainDecimal(lineCost, 6), notes: '' }),
  };
}

function pickLines(random: () => number, products: readonly SeedProduct[]): SeedProduct[] {
  const count = 1 + Math.floor(random() * 3);
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(Math.floor(random() * products.length));
  return [...chosen].map((i) => products[i]!);
}

/**
 * The lot-tracked products of each tenant (docs/lots.md): held from 30 days before expiry, each
 * with three lots at the first location. SHORT has 10 days left, so it is short-dated and first
 * expired first out passes it over; EARLY is taken next, then LATE. EARLY and LATE hold as many
 * units as a product without lots (5,000), so both reserve cases allow as many holds.
 */
export const LOT_SEED = {
  products: 20,
  outboundExpired: 30,
  lots: [
    { lotNumber: 'SHORT', daysLeft: 10, good: '100' },
    { lotNumber: 'EARLY', daysLeft: 90, good: '2500' },
    { lotNumber: 'LATE', daysLeft: 180, good: '2500' },
  ],
} as const;

const OPENING_GOOD = 5000n * SCALE;
const OPENING_DAMAGED = 100n * SCALE;

/**
 * Seeds `tenants` tenants with `adjustmentsPerTenant` adjustments and `transfersPerTenant` transfers
 * each, over the 180 days before `now`.
 */
export async function seedInventory(
  database: Database,
  writer: BulkWriter,
  options: { tenants: number; adjustmentsPerTenant: number; transfersPerTenant: number; now: Date },
): Promise<{ tenants: SeedTenant[]; counts: SeedCounts }> {
  const { now } = options;
  const start = new Date(now.getTime() - 180 * 86_400_000);
  const tenants: SeedTenant[] = [];
  for (let k = 1; k <= options.tenants; k += 1) {
    const partner = await createPartner(database, { name: `Bench Partner ${k}`, email: `bench${k}@partner.example`, tier: 'small' }, start);
    const { secret } = await createApiKey(database, partner.id, { environment: 'test', label: 'bench' }, start);
    const tenant = await createTenant(database, { name: `Bench Tenant ${k}` }, start);
    await grantAccess(database, { tenantId: tenant.id, partnerId: partner.id }, start);
    await authorizeTenant(database, { partnerId: partner.id, tenantId: tenant.id, daysConnected: 30, installationType: 'custom' }, start);
    const locationIds: number[] = [];
    for (const code of ['A', 'B']) {
      const location = await createLocation(database, tenant.id, { code: `WH-${k}-${code}`, name: `Bench Warehouse ${k}${code}`, address: `Jl. Bench ${k} No. ${code}`, city: 'Jakarta' }, 'bench', start);
      locationIds.push(location.id);
    }
    const products: SeedProduct[] = [];
    for (let i = 1; i <= 20; i += 1) {
      const costPrice = (1000 + i * 250.5).toFixed(2);
      const product = await createProduct(database, tenant.id, { sku: `BENCH-${k}-${String(i).padStart(3, '0')}`, name: `Bench Product ${k}-${i}`, costPrice, publishedPrice: (Number(costPrice) * 1.4).toFixed(2) }, 'bench', start);
      products.push({ id: product.id, name: product.name, sku: product.sku, costPrice: product.costPrice });
      for (const locationId of locationIds) {
        await recordOpeningStock(database, { tenantId: tenant.id, locationId, productId: product.id, good: '5000', damaged: '100', actor: 'bench', reference: 'bench-opening' }, start);
      }
    }
    const today = await databaseToday(database);
    const lotProducts: SeedProduct[] = [];
    for (let i = 1; i <= LOT_SEED.products; i += 1) {
      const costPrice = (2000 + i * 125.25).toFixed(2);
      const product = await createProduct(
        database,
        tenant.id,
        { sku: `BENCH-${k}-LOT-${String(i).padStart(3, '0')}`, name: `Bench Lot Product ${k}-${i}`, costPrice, publishedPrice: (Number(costPrice) * 1.4).toFixed(2), productionBatch: true, outboundExpired: LOT_SEED.outboundExpired },
        'bench',
        start,
      );
      lotProducts.push({ id: product.id, name: product.name, sku: product.sku, costPrice: product.costPrice });
      for (const lot of LOT_SEED.lots) {
        await recordOpeningStock(
          database,
          { tenantId: tenant.id, locationId: locationIds[0]!, productId: product.id, good: lot.good, actor: 'bench', reference: 'bench-opening', lotNumber: lot.lotNumber, expiryDate: addDays(today, lot.daysLeft) },
          start,
        );
      }
    }
    tenants.push({ tenantId: tenant.id, partnerId: partner.id, partnerName: partner.name, partnerEmail: partner.email, apiKey: secret, locationIds: locationIds as [number, number], products, lotProducts, adjustmentNumbers: [] });
  }

  const random = prng(20_260_101);
  const adjustments: SeedRow[] = [];
  const adjustmentItems: SeedRow[] = [];
  const transfers: SeedRow[] = [];
  const transferItems: SeedRow[] = [];
  const ledger: SeedRow[] = [];
  const counts: SeedCounts = { adjustments: 0, adjustmentItems: 0, transfers: 0, transferItems: 0, ledgerRows: 0, pendingIncrease: 0 };
  let adjustmentId = 0;
  let adjustmentItemId = 0;
  let transferId = 0;
  let transferItemId = 0;
  const levels = new Map<string, Level>();
  const levelOf = (locationId: number, productId: number): Level => {
    const key = `${locationId}:${productId}`;
    let level = levels.get(key);
    if (!level) {
      level = { good: OPENING_GOOD, damaged: OPENING_DAMAGED, reserved: 0n };
      levels.set(key, level);
    }
    return level;
  };

  for (const tenant of tenants) {
    const actor = actorOf(tenant);
    const createdBy = actorJson(tenant);
    const ledgerActor = `partner:${tenant.partnerId}:${tenant.partnerName}`;
    const move = (locationId: number, productId: number, bucket: keyof Level, delta: bigint, cause: 'adjustment' | 'transfer', number: string, at: string) => {
      const level = levelOf(locationId, productId);
      const before = level[bucket];
      level[bucket] = before + delta;
      const movement = { locationId, productId, bucket, delta: Number(delta), before: Number(before), after: Number(before + delta) };
      // The bulk's products have no lots: the builder's optional lot_number is null on every row.
      ledger.push({ ...ledgerRow(tenant.tenantId, movement, { type: cause, id: number, documentNumber: number, actor: ledgerActor }, at), lot_number: null });
    };
    const events = options.adjustmentsPerTenant + options.transfersPerTenant;
    const spacing = (now.getTime() - 3_600_000 - start.getTime() - 86_400_000) / events;
    let adjustmentSeq = 0;
    let transferSeq = 0;
    for (let e = 0; e < events; e += 1) {
      const createdAt = new Date(start.getTime() + 86_400_000 + e * spacing).toISOString();
      const decidedAt = new Date(start.getTime() + 86_400_000 + e * spacing + 1_800_000).toISOString();
      const wantTransfer = transferSeq < options.transfersPerTenant && (adjustmentSeq >= options.adjustmentsPerTenant || random() < options.transfersPerTenant / events);
      if (!wantTransfer) {
        adjustmentSeq += 1;
        adjustmentId += 1;
        const number = documentNumber('ADJ', createdAt, adjustmentSeq);
        tenant.adjustmentNumbers.push(number);
        const locationId = tenant.locationIds[random() < 0.5 ? 0 : 1];
        const lines = pickLines(random, tenant.products).map((product) => ({ product, quantity: scaledQuantity(random() < 0.2 ? 1 + Math.floor(random() * 400) / 100 : 1 + Math.floor(random() * 20)) }));
        const roll = random();
        const status = roll < 0.75 ? 'approved' : roll < 0.85 ? 'rejected' : 'pending';
        const source = random() < 0.85 ? 'good' : 'damaged';
        let type: 'increase' | 'decrease' = random() < 0.7 ? 'increase' : 'decrease';
        if (status === 'approved' && type === 'decrease') {
          const floor = (l: Level) => (source === 'good' ? l.reserved : 0n);
          if (lines.some((l) => levelOf(locationId, l.product.id)[source] - l.quantity < floor(levelOf(locationId, l.product.id)))) type = 'increase';
        }
        if (status === 'pending' && type === 'increase') counts.pendingIncrease += 1;
        let total = 0n;
        lines.forEach((line, index) => {
          const lineCost = lineTotal(line.quantity, line.product.costPrice);
          total += lineCost;
          adjustmentItemId += 1;
          adjustmentItems.push(adjustmentLine(adjustmentItemId, adjustmentId, index, line.product, type, line.quantity, lineCost));
          if (status === 'approved') move(locationId, line.product.id, source, type === 'increase' ? line.quantity : -line.quantity, 'adjustment', number, decidedAt);
        });
        adjustments.push({
          ...newAdjustmentRow({
            tenantId: tenant.tenantId, partnerId: tenant.partnerId, actor, number, locationId, type, stockSource: source, reason: 'Cycle count correction',
            totalAmount: plainDecimal(total, 6), itemCount: lines.length, approval: status === 'approved' ? { at: decidedAt, by: actor } : null, at: createdAt,
          }),
          // The builder writes a new document (pending, or approved at once); a decided one moved on since.
          ...(status === 'rejected' ? { status, rejected_at: decidedAt, rejected_by: createdBy, rejection_reason: 'Counted twice' } : {}),
          updated_at: status === 'pending' ? createdAt : decidedAt,
          id: adjustmentId,
        });
        continue;
      }
      transferSeq += 1;
      transferId += 1;
      const number = documentNumber('TRF', createdAt, transferSeq);
      const flip = random() < 0.5;
      const from = tenant.locationIds[flip ? 0 : 1];
      const to = tenant.locationIds[flip ? 1 : 0];
      const lines = pickLines(random, tenant.products).map((product) => ({ product, quantity: scaledQuantity(1 + Math.floor(random() * 5)) }));
      const roll = random();
      let status: 'pending' | 'approved' | 'rejected' | 'in_transit' | 'completed' = roll < 0.35 ? 'pending' : roll < 0.5 ? 'rejected' : roll < 0.6 ? 'approved' : roll < 0.7 ? 'in_transit' : 'completed';
      const moves = status === 'approved' || status === 'in_transit' || status === 'completed';
      if (moves && lines.some((l) => levelOf(from, l.product.id).good - levelOf(from, l.product.id).reserved < l.quantity)) status = 'pending';
      const shippedAt = new Date(Date.parse(decidedAt) + 3_600_000).toISOString();
      const receivedAt = new Date(Date.parse(decidedAt) + 86_400_000).toISOString();
      let totalQuantity = 0n;
      let totalValue = 0n;
      lines.forEach((line, index) => {
        const value = lineTotal(line.quantity, line.product.costPrice);
        totalQuantity += line.quantity;
        totalValue += value;
        transferItemId += 1;
        transferItems.push({
          id: transferItemId, transfer_id: transferId, line_no: index + 1, product_id: line.product.id, product_name: line.product.name, sku: line.product.sku,
          quantity: Number(line.quantity), unit_price: line.product.costPrice, total_value: plainDecimal(value, 6), notes: '',
        });
      });
      // The ledger rows of each step a transfer went through: reserve, ship, receive.
      if (status === 'approved' || status === 'in_transit' || status === 'completed') {
        for (const line of lines) move(from, line.product.id, 'reserved', line.quantity, 'transfer', number, decidedAt);
      }
      if (status === 'in_transit' || status === 'completed') {
        for (const line of lines) {
          move(from, line.product.id, 'reserved', -line.quantity, 'transfer', number, shippedAt);
          move(from, line.product.id, 'good', -line.quantity, 'transfer', number, shippedAt);
        }
      }
      if (status === 'completed') {
        for (const line of lines) move(to, line.product.id, 'good', line.quantity, 'transfer', number, receivedAt);
      }
      const decided = status !== 'pending' && status !== 'rejected';
      const shipped = status === 'in_transit' || status === 'completed';
      const received = status === 'completed';
      transfers.push({
        id: transferId, tenant_id: tenant.tenantId, partner_id: tenant.partnerId, number, from_location_id: from, to_location_id: to,
        transfer_date: day(createdAt), expected_arrival_date: day(receivedAt), actual_arrival_date: received ? day(receivedAt) : null,
        reference_number: `PO-${transferSeq}`, status, notes: '', total_items: lines.length, total_quantity: Number(totalQuantity), total_value: plainDecimal(totalValue, 6),
        created_by: createdBy, approved_at: decided ? decidedAt : null, approved_by: decided ? createdBy : null,
        rejected_at: status === 'rejected' ? decidedAt : null, rejected_by: status === 'rejected' ? createdBy : null, rejection_reason: status === 'rejected' ? 'Not needed' : null,
        shipped_at: shipped ? shippedAt : null, shipped_by: shipped ? createdBy : null, received_at: received ? receivedAt : null, received_by: received ? createdBy : null,
        created_at: createdAt, updated_at: received ? receivedAt : shipped ? shippedAt : decided || status === 'rejected' ? decidedAt : createdAt,
      });
    }
  }

  await writer.insert('adjustments', adjustments);
  await writer.insert('adjustment_items', adjustmentItems);
  await writer.insert('transfers', transfers);
  await writer.insert('transfer_items', transferItems);
  await writer.insert('stock_ledger', ledger);
  for (const [key, level] of levels) {
    const [locationId, productId] = key.split(':').map(Number) as [number, number];
    await writer.query('update stock_levels set good = ?, damaged = ?, reserved = ? where location_id = ? and product_id = ?', [Number(level.good), Number(level.damaged), Number(level.reserved), locationId, productId]);
  }
  for (const tenant of tenants) {
    for (const [prefix, last] of [['ADJ', options.adjustmentsPerTenant], ['TRF', options.transfersPerTenant]] as const) {
      await writer.query('insert into document_sequences (tenant_id, prefix, last_value) values (?, ?, ?) on conflict (tenant_id, prefix) do update set last_value = excluded.last_value', [tenant.tenantId, prefix, last]);
    }
  }
  await resetIdentities(writer);
  // The list totals were counted as the rows went in, by the database's triggers (migration 014).
  // As autovacuum would have done by now on a database this size: planner statistics and the
  // visibility map (index-only scans for the list's pages).
  if (writer.dialect === 'postgres') await writer.analyze();
  counts.adjustments = adjustments.length;
  counts.adjustmentItems = adjustmentItems.length;
  counts.transfers = transfers.length;
  counts.transferItems = transferItems.length;
  counts.ledgerRows = ledger.length;
  return { tenants, counts };
}

/** PostgreSQL identity columns do not follow explicit ids: move them past the rows written. */
async function resetIdentities(writer: BulkWriter): Promise<void> {
  if (writer.dialect !== 'postgres') return;
  for (const table of ['adjustments', 'adjustment_items', 'transfers', 'transfer_items', 'stock_ledger']) {
    await writer.query(`select setval(pg_get_serial_sequence('${table}', 'id'), greatest((select max(id) from ${table}), 1))`);
  }
}

/** A pending increase adjustment written for the approve case. */
export interface PoolEntry {
  tenant: number;
  number: string;
  lines: number;
}

/**
 * Writes `count` new pending increase adjustments (1 to 3 lines, spread over the tenants), moving
 * each tenant's ADJ sequence past them so the gateway's creates do not collide. Returns them in
 * an interleaved order, so consecutive approvals hit different tenants.
 */
export async function writePendingPool(writer: BulkWriter, tenants: readonly SeedTenant[], count: number, now: Date, seed: number): Promise<PoolEntry[]> {
  const random = prng(seed);
  const [ids] = await writer.query<{ a: number | null; i: number | null }>('select (select max(id) from adjustments) as a, (select max(id) from adjustment_items) as i');
  let adjustmentId = Number(ids?.a ?? 0);
  let itemId = Number(ids?.i ?? 0);
  const adjustments: SeedRow[] = [];
  const items: SeedRow[] = [];
  const pool: PoolEntry[] = [];
  const at = now.toISOString();
  const perTenant = Math.ceil(count / tenants.length);
  for (const [index, tenant] of tenants.entries()) {
    const [sequence] = await writer.query<{ last_value: number }>("select last_value from document_sequences where tenant_id = ? and prefix = 'ADJ'", [tenant.tenantId]);
    let last = Number(sequence?.last_value ?? 0);
    for (let n = 0; n < perTenant; n += 1) {
      last += 1;
      adjustmentId += 1;
      const number = documentNumber('ADJ', at, last);
      const lines = pickLines(random, tenant.products);
      let total = 0n;
      lines.forEach((product, line) => {
        const quantity = scaledQuantity(1 + Math.floor(random() * 10));
        const cost = lineTotal(quantity, product.costPrice);
        total += cost;
        itemId += 1;
        items.push(adjustmentLine(itemId, adjustmentId, line, product, 'increase', quantity, cost));
      });
      adjustments.push(pendingAdjustment(adjustmentId, tenant, number, tenant.locationIds[n % 2]!, 'Bench approve pool', total, lines.length, at));
      pool.push({ tenant: index, number, lines: lines.length });
    }
    await writer.query("update document_sequences set last_value = ? where tenant_id = ? and prefix = 'ADJ'", [last, tenant.tenantId]);
  }
  await writer.insert('adjustments', adjustments);
  await writer.insert('adjustment_items', items);
  await resetIdentities(writer);
  // Interleave tenants: entry i of tenant t goes to position i * tenants + t.
  const interleaved: PoolEntry[] = [];
  for (let i = 0; i < perTenant; i += 1) {
    for (let t = 0; t < tenants.length; t += 1) {
      const entry = pool[t * perTenant + i];
      if (entry) interleaved.push(entry);
    }
  }
  return interleaved;
}
