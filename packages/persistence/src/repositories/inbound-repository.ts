// Inbound shipments and their detail lines, with the location and products the contract embeds.
import type { Selectable } from 'kysely';
import { type InboundStatus, type PageRequest, pageOffset } from '@pits/domain';
import type { InboundDetailTable, InboundShipmentTable } from '../schema/index.js';
import type { Scope, Tx } from '../transaction.js';
import type { LocationRow } from './location-repository.js';
import type { ProductRow } from './product-repository.js';

export type InboundRow = Selectable<InboundShipmentTable>;
export type InboundDetailRow = Selectable<InboundDetailTable>;

/** A shipment with everything both contract shapes show. */
export interface InboundAggregate {
  shipment: InboundRow;
  location: LocationRow;
  details: { row: InboundDetailRow; product: ProductRow }[];
}

async function aggregate(scope: Scope, shipments: InboundRow[]): Promise<InboundAggregate[]> {
  if (shipments.length === 0) return [];
  const ids = shipments.map((s) => s.id);
  const locationIds = [...new Set(shipments.map((s) => s.location_id))];
  const [locations, details] = await Promise.all([
    scope.db.selectFrom('locations').selectAll().where('id', 'in', locationIds).execute(),
    scope.db.selectFrom('inbound_details').selectAll().where('inbound_id', 'in', ids).orderBy('inbound_id').orderBy('id').execute(),
  ]);
  const productIds = [...new Set(details.map((d) => d.product_id))];
  const products = productIds.length ? await scope.db.selectFrom('products').selectAll().where('id', 'in', productIds).execute() : [];
  const locationById = new Map(locations.map((l) => [l.id, l]));
  const productById = new Map(products.map((p) => [p.id, p]));
  return shipments.map((shipment) => ({
    shipment,
    location: locationById.get(shipment.location_id)!,
    details: details.filter((d) => d.inbound_id === shipment.id).map((row) => ({ row, product: productById.get(row.product_id)! })),
  }));
}

/** A shipment of the tenant by id; another tenant's is undefined. */
export async function findInbound(scope: Scope, tenantId: string, id: number): Promise<InboundAggregate | undefined> {
  const row = await scope.db.selectFrom('inbound_shipments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id).executeTakeFirst();
  return row ? (await aggregate(scope, [row]))[0] : undefined;
}

export async function lockInbound(tx: Tx, tenantId: string, id: number): Promise<InboundRow | undefined> {
  let query = tx.db.selectFrom('inbound_shipments').selectAll().where('tenant_id', '=', tenantId).where('id', '=', id);
  if (tx.dialect === 'postgres') query = query.forUpdate();
  return query.executeTakeFirst();
}

export interface InboundFilters {
  status?: InboundStatus | undefined;
  locationId?: number | undefined;
}

/** A page of the tenant's shipments, newest first, with locations, lines and products. */
export async function listInbounds(scope: Scope, tenantId: string, filters: InboundFilters, page: PageRequest): Promise<{ rows: InboundAggregate[]; total: number }> {
  let base = scope.db.selectFrom('inbound_shipments').where('tenant_id', '=', tenantId);
  if (filters.status) base = base.where('status', '=', filters.status);
  if (filters.locationId !== undefined) base = base.where('location_id', '=', filters.locationId);
  const [rows, count] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.perPage).offset(pageOffset(page)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { rows: await aggregate(scope, rows), total: Number(count.n) };
}
