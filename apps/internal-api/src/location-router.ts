// Locations (warehouses) of a tenant: created, changed and listed by internal teams.
import { z } from 'zod';
import { AppError, domainError } from '@pits/domain';
import { type LocationRow, createLocation, isUniqueViolation, listLocations, updateLocation } from '@pits/persistence';
import { INTERNAL_ACTOR, definedOnly, idInput, pageFields, paginationOf, tenantId } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

/** A location as the internal API shows it. */
export interface LocationView {
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
  /** Decimal strings, exact. */
  latitude: string;
  longitude: string;
  isDefault: boolean;
  isPickup: boolean;
  isReturn: boolean;
  status: string;
  originCode: string | null;
  receivingGrid: string;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
}

export function toLocationView(row: LocationRow): LocationView {
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
    isDefault: row.is_default === 1,
    isPickup: row.is_pickup === 1,
    isReturn: row.is_return === 1,
    status: row.status,
    originCode: row.origin_code,
    receivingGrid: row.receiving_grid,
    createdBy: row.created_by,
    updatedBy: row.updated_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

const coordinate = z.string().regex(/^-?\d{1,3}(\.\d{1,10})?$/, 'must be a decimal string such as "-6.2088"');
const shortText = (max: number) => z.string().trim().max(max);

const locationFields = z.strictObject({
  code: z.string().trim().min(1).max(50),
  name: z.string().trim().min(1).max(200),
  type: z.string().trim().min(1).max(50),
  address: shortText(500),
  city: shortText(100),
  state: shortText(100),
  zip: shortText(20),
  subdistrict: shortText(100),
  country: shortText(100),
  picName: shortText(200),
  phone: shortText(50),
  latitude: coordinate,
  longitude: coordinate,
  isDefault: z.boolean(),
  isPickup: z.boolean(),
  isReturn: z.boolean(),
  status: z.enum(['active', 'inactive']),
  originCode: z.string().trim().max(50).nullable(),
  receivingGrid: z.string().trim().min(1).max(50),
});

/** A second location with the same code for the tenant: BAD_REQUEST on the code field. */
function codeTaken(error: unknown, field: string, code: string | undefined): unknown {
  if (!isUniqueViolation(error)) return error;
  return new AppError(domainError('VALIDATION_ERROR', `location code ${code ?? ''} is taken for this tenant`, { field, issue: 'is taken for this tenant' }));
}

export const locationRouter = router({
  /** A new location of the tenant: `code` and `name` required, the rest defaulted. Unknown tenant: NOT_FOUND on `tenantId`. */
  create: protectedProcedure
    .input(locationFields.partial().required({ code: true, name: true }).extend({ tenantId }))
    .mutation(async ({ ctx, input }) => {
      const { tenantId: id, code, name, ...rest } = input;
      await requireTenant(ctx.database, id);
      try {
        return toLocationView(await createLocation(ctx.database, id, { code, name, ...definedOnly(rest) }, INTERNAL_ACTOR, ctx.now()));
      } catch (error) {
        throw codeTaken(error, 'code', code);
      }
    }),

  /** Changes the given fields of a location; absent fields stay. Unknown tenant or location: NOT_FOUND. */
  update: protectedProcedure
    .input(z.strictObject({ tenantId, id: idInput, changes: locationFields.partial() }))
    .mutation(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      try {
        return toLocationView(await updateLocation(ctx.database, input.tenantId, input.id, definedOnly(input.changes), INTERNAL_ACTOR, ctx.now()));
      } catch (error) {
        throw codeTaken(error, 'changes.code', input.changes.code);
      }
    }),

  /** A page of the tenant's locations by id. Unknown tenant: NOT_FOUND on `tenantId`. */
  list: protectedProcedure
    .input(z.strictObject({ tenantId, ...pageFields }))
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const { rows, total } = await listLocations(ctx.database, input.tenantId, input);
      return { locations: rows.map(toLocationView), pagination: paginationOf(total, input, rows.length) };
    }),
});
