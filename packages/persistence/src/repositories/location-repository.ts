// Locations (warehouses) of a tenant: rows, their mapping to records, and the queries over them.
import type { Selectable } from 'kysely';
import { AppError, type PageRequest, domainError, pageOffset } from '@pits/domain';
import { boolValue, fromBoolValue } from './boolean-values.js';
import { changedColumns, stampedUpdate } from './row-changes.js';
import { type ParamRef, preparedQuery } from '../parameterised-query.js';
import type { Scope } from '../transaction.js';
import type { LocationTable } from '../schema/index.js';
import { execute, executeTakeFirst, executeTakeFirstOrThrow } from '../execution/execute.js';

export type LocationRow = Selectable<LocationTable>;

/** A location as this package hands it out. */
export interface LocationRecord {
  id: number;
  tenantId: string;
  code: string;
  name: string;
  type: string;
  address: string;
  city: string;
  state: string;
  zip: string;
  subdistrict: string;
  country: string;
  picName: string;
  phone: string;
  /** Decimal strings, exact, as stored. */
  latitude: string;
  longitude: string;
  isDefault: boolean;
  isPickup: boolean;
  isReturn: boolean;
  status: string;
  originCode: string | null;
  /** The grid received goods are put on when a receipt names none. */
  receivingGrid: string;
  createdBy: string;
  updatedBy: string;
  deletedBy: string | null;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

export function toLocationRecord(row: LocationRow): LocationRecord {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    code: row.code,
    name: row.name,
    type: row.type,
    address: row.address,
    city: row.city,
    state: row.state,
    zip: row.zip,
    subdistrict: row.subdistrict,
    country: row.country,
    picName: row.pic_name,
    phone: row.phone,
    latitude: row.latitude,
    longitude: row.longitude,
    isDefault: fromBoolValue(row.is_default),
    isPickup: fromBoolValue(row.is_pickup),
    isReturn: fromBoolValue(row.is_return),
    status: row.status,
    originCode: row.origin_code,
    receivingGrid: row.receiving_grid,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    deletedBy: row.deleted_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    deletedAt: row.deleted_at,
  };
}

export interface NewLocation {
  code: string;
  name: string;
  type?: string;
  address?: string;
  city?: string;
  state?: string;
  zip?: string;
  subdistrict?: string;
  country?: string;
  picName?: string;
  phone?: string;
  latitude?: string;
  longitude?: string;
  isDefault?: boolean;
  isPickup?: boolean;
  isReturn?: boolean;
  status?: string;
  originCode?: string | null;
  receivingGrid?: string;
}

export async function createLocation(scope: Scope, tenantId: string, input: NewLocation, actor: string, now: Date): Promise<LocationRecord> {
  const at = now.toISOString();
  const row = await executeTakeFirstOrThrow(scope, scope.dialect
    .insertReturningAll(
      scope.db
        .insertInto('locations')
        .values({
          tenant_id: tenantId,
          code: input.code,
          name: input.name,
          type: input.type ?? 'warehouse',
          address: input.address ?? '',
          city: input.city ?? '',
          state: input.state ?? '',
          zip: input.zip ?? '',
          subdistrict: input.subdistrict ?? '',
          country: input.country ?? 'Indonesia',
          pic_name: input.picName ?? '',
          phone: input.phone ?? '',
          latitude: input.latitude ?? '0',
          longitude: input.longitude ?? '0',
          is_default: boolValue(input.isDefault ?? false),
          is_pickup: boolValue(input.isPickup ?? false),
          is_return: boolValue(input.isReturn ?? false),
          status: input.status ?? 'active',
          origin_code: input.originCode ?? null,
          receiving_grid: input.receivingGrid ?? 'RCV-01',
          created_by: actor,
          updated_by: actor,
          created_at: at,
          updated_at: at,
        }),
    ));
  return toLocationRecord(row);
}

/** A live location of the tenant, or undefined (another tenant's location is undefined too). */
const tenantLocation = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; id: number }>) =>
  scope.db.selectFrom('locations').selectAll().where('tenant_id', '=', param('tenantId')).where('id', '=', param('id')).where('deleted_at', 'is', null),
});

export async function findTenantLocation(scope: Scope, tenantId: string, id: number): Promise<LocationRecord | undefined> {
  const row = await executeTakeFirst(scope, tenantLocation.with({ tenantId, id }));
  return row && toLocationRecord(row);
}

/**
 * The grid where a location puts received goods that name none, deleted or not (a shipment keeps
 * its location); throws when the location does not exist.
 */
export async function receivingGridOf(scope: Scope, locationId: number): Promise<string> {
  const row = await executeTakeFirstOrThrow(scope, scope.db.selectFrom('locations').select(['receiving_grid']).where('id', '=', locationId));
  return row.receiving_grid;
}

/** Fields internal teams may change on a location; absent fields stay as they are. */
export type LocationChanges = Partial<NewLocation>;

const LOCATION_COLUMNS: Record<keyof NewLocation, keyof LocationRow> = {
  code: 'code', name: 'name', type: 'type', address: 'address', city: 'city', state: 'state', zip: 'zip',
  subdistrict: 'subdistrict', country: 'country', picName: 'pic_name', phone: 'phone', latitude: 'latitude',
  longitude: 'longitude', isDefault: 'is_default', isPickup: 'is_pickup', isReturn: 'is_return', status: 'status',
  originCode: 'origin_code', receivingGrid: 'receiving_grid',
};

export async function updateLocation(scope: Scope, tenantId: string, id: number, changes: LocationChanges, actor: string, now: Date): Promise<LocationRecord> {
  const set = changedColumns(changes, LOCATION_COLUMNS);
  const row = await executeTakeFirst(scope, stampedUpdate(scope, 'locations', { tenantId, id, set, actor, now, live: true }));
  if (!row) throw new AppError(domainError('NOT_FOUND', `location ${id} does not exist for tenant ${tenantId}`, { field: 'id' }));
  return toLocationRecord(row);
}

/** A page of the tenant's live locations by id ascending, and the total. */
const liveLocations = (scope: Scope, tenantId: string) => scope.db.selectFrom('locations').where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);
const locationPage = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string; limit: number; offset: number }>) =>
  liveLocations(scope, param('tenantId')).selectAll().orderBy('id').limit(param('limit')).offset(param('offset')),
});
const locationCount = preparedQuery({
  build: (scope, param: ParamRef<{ tenantId: string }>) => liveLocations(scope, param('tenantId')).select((eb) => eb.fn.countAll<number>().as('n')),
});

export async function listLocations(scope: Scope, tenantId: string, page: PageRequest): Promise<{ rows: LocationRecord[]; total: number }> {
  const [rows, count] = await Promise.all([
    execute(scope, locationPage.with({ tenantId, limit: page.perPage, offset: pageOffset(page) })),
    executeTakeFirst(scope, locationCount.with({ tenantId })),
  ]);
  return { rows: rows.map(toLocationRecord), total: Number(count?.n ?? 0) };
}

