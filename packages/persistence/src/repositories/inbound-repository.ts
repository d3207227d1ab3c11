// Inbound shipments and their detail lines, with the location and products the contract embeds:
// rows, their mapping to records, and the queries over them.
import type { Insertable, Selectable, Updateable } from 'kysely';
import { type Dec, type InboundStatus, type PageRequest, dec, fromScaled, pageOffset } from '@pits/domain';
import type { InboundDetailTable, InboundShipmentTable } from '../schema/index.js';
import type { Scope, Tx } from '../transaction.js';
import { keptInboundTotal } from './list-count-repository.js';
import { type LocationRecord, toLocationRecord } from './location-repository.js';
import { type ProductRecord, toProductRecord } from './product-repository.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow, executeWrite } from '../execution/execute.js';

export type InboundRow = Selectable<InboundShipmentTable>;
export type InboundDetailRow = Selectable<InboundDetailTable>;

/** One expected line of a shipment, with its product. */
export interface InboundDetailRecord {
  /** The item id a receipt names. */
  id: number;
  inboundId: number;
  productId: number;
  product: ProductRecord;
  expectedQuantity: Dec;
  receivedGood: Dec;
  receivedDamaged: Dec;
  unit: string;
  unitPrice: Dec;
  notes: string;
  gridId: string | null;
  receivedAt: string | null;
  receivedBy: string | null;
  createdBy: string;
  updatedBy: string;
  deletedBy: string | null;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A shipment with everything both contract shapes show: its location and its lines with their products. */
export interface InboundRecord {
  id: number;
  tenantId: string;
  code: string;
  inboundDate: string;
  sourceType: string;
  sourceId: number;
  sourceCode: string;
  locationId: number;
  location: LocationRecord;
  status: InboundStatus;
  receivedAt: string | null;
  cancelledAt: string | null;
  notes: string;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
  details: InboundDetailRecord[];
}

export function toInboundDetailRecord(row: InboundDetailRow, product: ProductRecord): InboundDetailRecord {
  return {
    id: row.id,
    inboundId: row.inbound_id,
    productId: row.product_id,
    product,
    expectedQuantity: fromScaled(row.expected_quantity),
    receivedGood: fromScaled(row.received_good),
    receivedDamaged: fromScaled(row.received_damaged),
    unit: row.unit,
    unitPrice: dec(row.unit_price),
    notes: row.notes,
    gridId: row.grid_id,
    receivedAt: row.received_at,
    receivedBy: row.received_by,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    deletedBy: row.deleted_by,
    deletedAt: row.deleted_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function toInboundRecord(row: InboundRow, location: LocationRecord, details: InboundDetailRecord[]): InboundRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    code: row.code,
    inboundDate: row.inbound_date,
    sourceType: row.source_type,
    sourceId: row.source_id,
    sourceCode: row.source_code,
    locationId: row.location_id,
    location,
    status: row.status,
    receivedAt: row.received_at,
    cancelledAt: row.cancelled_at,
    notes: row.notes,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    details,
  };
}

async function withParts(scope: Scope, shipments: InboundRow[]): Promise<InboundRecord[]> {
  if (shipments.length === 0) return [];
  const ids = shipments.map((s) => s.id);
  const locationIds = [...new Set(shipments.map((s) => s.location_id))];
  const [locations, details] = await Promise.all([
    execute(scope, scope.db.selectFrom('locations').selectAll().where('id', 'in', locationIds)),
    execute(scope, scope.db.selectFrom('inbound_details').selectAll().where('inbound_id', 'in', ids).orderBy('inbound_id').orderBy('id')),
  ]);
  const productIds = [...new Set(details.map((d) => d.product_id))];
  const products = productIds.length ? await execute(scope, scope.db.selectFrom('products').selectAll().where('id', 'in', productIds)) : [];
  const locationById = new Map(locations.map((l) => [l.id, toLocationRecord(l)]));
  const productById = new Map(products.map((p) => [p.id, toProductRecord(p)]));
  return shipments.map((shipment) =>
    toInboundRecord(
      shipment,
      locationById.get(shipment.location_id)!,
      details.filter((d) => d.inbound_id === shipment.id).map((row) => toInboundDetailRecord(row, productById.get(row.product_id)!)),
    ),
  );
}

/** A shipment of the tenant by id; another tenant's is undefined. */
export async function findInbound(scope: Scope, tenantId: string, id: number): Promise<InboundRecord | undefined> {
  const row = await executeTakeFirst(scope, scope.db.selectFrom('inbound_shipments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id));
  return row ? (await withParts(scope, [row]))[0] : undefined;
}

/** Locks the shipment row until the transaction ends. */
export async function lockInbound(tx: Tx, tenantId: string, id: number): Promise<InboundRow | undefined> {
  return executeTakeFirst(tx, tx.dialect.lockRows(tx.db.selectFrom('inbound_shipments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id)));
}

/** Inserts a new shipment (the list totals count it: migration 014's triggers); returns its id. */
export async function insertInbound(tx: Tx, row: Insertable<InboundShipmentTable> & Pick<InboundRow, 'status'>): Promise<number> {
  const { id } = await executeTakeFirstOrThrow(tx, tx.dialect.insertReturning(tx.db.insertInto('inbound_shipments').values(row), ['id']));
  return id;
}

/**
 * Writes `set` on a shipment (locked by `lockInbound`), which moves it in the list totals from its
 * status in `row` to `set.status` (migration 014's triggers). Only a row still in `row.status` is changed.
 */
export async function updateInboundStatus(tx: Tx, row: InboundRow, set: Updateable<InboundShipmentTable> & { status: InboundStatus }): Promise<void> {
  const result = await executeWrite(tx, tx.db.updateTable('inbound_shipments').set(set).where('id', '=', row.id).where('status', '=', row.status));
  if (result.affectedRows !== 1) throw new Error(`inbound shipment ${row.id} was not ${row.status} when its change was written`);
}

/** The expected lines of a new shipment. */
export async function insertInboundDetails(tx: Tx, rows: readonly Insertable<InboundDetailTable>[]): Promise<void> {
  if (rows.length > 0) await executeWrite(tx, tx.db.insertInto('inbound_details').values([...rows]));
}

/** The shipment's lines that are not deleted, in line order: what a receipt decides on. */
export async function listOpenInboundDetails(tx: Tx, inboundId: number): Promise<InboundDetailRow[]> {
  return execute(tx, tx.db.selectFrom('inbound_details').selectAll().where('inbound_id', '=', inboundId).where('deleted_at', 'is', null).orderBy('id'));
}

/** What a receipt writes on one line: its new cumulative quantities, grid and who received it. */
export type InboundDetailReceipt = Pick<Updateable<InboundDetailTable>, 'grid_id' | 'received_at' | 'received_by' | 'updated_by' | 'updated_at'> & {
  received_good: number;
  received_damaged: number;
};

export async function recordInboundDetailReceipt(tx: Tx, detailId: number, receipt: InboundDetailReceipt): Promise<void> {
  await executeWrite(tx, tx.db.updateTable('inbound_details').set(receipt).where('id', '=', detailId));
}

export interface InboundFilters {
  status?: InboundStatus | undefined;
  locationId?: number | undefined;
}

/**
 * A page of the tenant's shipments, newest first, with locations, lines and products, and the
 * total from the kept counts.
 */
export async function listInbounds(scope: Scope, tenantId: string, filters: InboundFilters, page: PageRequest): Promise<{ rows: InboundRecord[]; total: number }> {
  let base = scope.db.selectFrom('inbound_shipments').where('inbound_shipments.tenant_id', '=', tenantId);
  if (filters.status) base = base.where('inbound_shipments.status', '=', filters.status);
  if (filters.locationId !== undefined) base = base.where('inbound_shipments.location_id', '=', filters.locationId);
  // The page's ids on the index alone, then only its rows read (see listAdjustments).
  const ids = base
    .select('inbound_shipments.id')
    .orderBy('inbound_shipments.created_at', 'desc')
    .orderBy('inbound_shipments.id', 'desc')
    .limit(page.perPage)
    .offset(pageOffset(page));
  const [rows, total] = await Promise.all([
    execute(scope, scope.db
      .selectFrom(ids.as('page'))
      .innerJoin('inbound_shipments', 'inbound_shipments.id', 'page.id')
      .selectAll('inbound_shipments')
      .orderBy('inbound_shipments.created_at', 'desc')
      .orderBy('inbound_shipments.id', 'desc')),
    keptInboundTotal(scope, { tenantId, status: filters.status || undefined, locationId: filters.locationId }),
  ]);
  return { rows: await withParts(scope, rows), total };
}
