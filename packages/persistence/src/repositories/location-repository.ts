// Locations (warehouses) of a tenant.
import type { Selectable } from 'kysely';
import { boolValue } from '../dialect.js';
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
export async function findTenantLocation(scope: Scope, tenantId: string, id: number): Promise<LocationRow | undefined> {
  return scope.db
    .selectFrom('locations')
    .selectAll()
    .where('tenant_id', '=', tenantId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
}
