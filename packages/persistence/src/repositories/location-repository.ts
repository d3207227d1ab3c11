// Locations (warehouses) of a tenant.
import type { Selectable, Updateable } from 'kysely';
import { AppError, type PageRequest, domainError, pageOffset } from '@pits/domain';
import { boolValue } from '../dialect.js';
import { preparedQuery } from '../prepared-query.js';
import type { Scope } from '../transaction.js';
import type { LocationTable } from '../schema/index.js';

export type LocationRow = Selectable<LocationTable>;

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

export async function createLocation(scope: Scope, tenantId: string, input: NewLocation, actor: string, now: Date): Promise<LocationRow> {
  const at = now.toISOString();
  return scope.db
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
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** A live location of the tenant, or undefined (another tenant's location is undefined too). */
const tenantLocation = preparedQuery((scope, p: { tenantId: string; id: number }) =>
  scope.db.selectFrom('locations').selectAll().where('tenant_id', '=', p.tenantId).where('id', '=', p.id).where('deleted_at', 'is', null),
);

export async function findTenantLocation(scope: Scope, tenantId: string, id: number): Promise<LocationRow | undefined> {
  return tenantLocation.takeFirst(scope, { tenantId, id });
}

/** Fields internal teams may change on a location; absent fields stay as they are. */
export type LocationChanges = Partial<NewLocation>;

export async function updateLocation(scope: Scope, tenantId: string, id: number, changes: LocationChanges, actor: string, now: Date): Promise<LocationRow> {
  const set: Record<string, string | number | null> = {};
  const columns: Record<keyof NewLocation, keyof LocationRow> = {
    code: 'code', name: 'name', type: 'type', address: 'address', city: 'city', state: 'state', zip: 'zip',
    subdistrict: 'subdistrict', country: 'country', picName: 'pic_name', phone: 'phone', latitude: 'latitude',
    longitude: 'longitude', isDefault: 'is_default', isPickup: 'is_pickup', isReturn: 'is_return', status: 'status',
    originCode: 'origin_code', receivingGrid: 'receiving_grid',
  };
  for (const [key, value] of Object.entries(changes) as [keyof NewLocation, unknown][]) {
    if (value === undefined) continue;
    set[columns[key]] = typeof value === 'boolean' ? boolValue(value) : (value as string | number | null);
  }
  const row = await scope.db
    .updateTable('locations')
    .set({ ...(set as Updateable<LocationTable>), updated_by: actor, updated_at: now.toISOString() })
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new AppError(domainError('NOT_FOUND', `location ${id} does not exist for tenant ${tenantId}`, { field: 'id' }));
  return row;
}

/** A page of the tenant's live locations by id ascending, and the total. */
const liveLocations = (scope: Scope, tenantId: string) => scope.db.selectFrom('locations').where('tenant_id', '=', tenantId).where('deleted_at', 'is', null);
const locationPage = preparedQuery((scope, p: { tenantId: string; limit: number; offset: number }) =>
  liveLocations(scope, p.tenantId).selectAll().orderBy('id').limit(p.limit).offset(p.offset),
);
const locationCount = preparedQuery((scope, p: { tenantId: string }) => liveLocations(scope, p.tenantId).select((eb) => eb.fn.countAll<number>().as('n')));

export async function listLocations(scope: Scope, tenantId: string, page: PageRequest): Promise<{ rows: LocationRow[]; total: number }> {
  const [rows, count] = await Promise.all([
    locationPage.execute(scope, { tenantId, limit: page.perPage, offset: pageOffset(page) }),
    locationCount.takeFirst(scope, { tenantId }),
  ]);
  return { rows, total: Number(count?.n ?? 0) };
}
