// Locations (warehouses) of a tenant: created, changed and listed by internal teams.
import { z } from 'zod';
import { safeText } from '@pits/contract';
import { AppError, domainError } from '@pits/domain';
import { type LocationRecord, createLocation, isUniqueViolation, listLocations, updateLocation } from '@pits/persistence';
import { INTERNAL_ACTOR, definedOnly, idInput, pageFields, paginationOf, tenantId } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

/**
 * A location as the internal API shows it; coordinates are exact decimal strings. Its return type
 * is the procedures' output type.
 *
 * @example toLocationView(location).isDefault // true
 */
export function toLocationView(location: LocationRecord) {
  return {
    id: location.id,
    tenantId: location.tenantId,
    code: location.code,
    name: location.name,
    type: location.type,
    address: location.address,
    city: location.city,
    state: location.state,
    zip: location.zip,
    subdistrict: location.subdistrict,
    country: location.country,
    picName: location.picName,
    phone: location.phone,
    latitude: location.latitude,
    longitude: location.longitude,
    isDefault: location.isDefault,
    isPickup: location.isPickup,
    isReturn: location.isReturn,
    status: location.status,
    originCode: location.originCode,
    receivingGrid: location.receivingGrid,
    createdBy: location.createdBy,
    updatedBy: location.updatedBy,
    createdAt: location.createdAt,
    updatedAt: location.updatedAt,
  };
}

const coordinate = z.string().regex(/^-?\d{1,3}(\.\d{1,10})?$/, 'must be a decimal string such as "-6.2088"');
const shortText = (max: number) => safeText.trim().max(max);

const locationFields = z.strictObject({
  code: safeText.trim().min(1).max(50),
  name: safeText.trim().min(1).max(200),
  type: safeText.trim().min(1).max(50),
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
  originCode: safeText.trim().max(50).nullable(),
  receivingGrid: safeText.trim().min(1).max(50),
});

/** A second location with the same code for the tenant: BAD_REQUEST on the code field. */
function codeTaken(error: unknown, field: string, code: string | undefined): unknown {
  if (!isUniqueViolation(error)) return error;
  return new AppError(domainError('VALIDATION_ERROR', `location code ${code ?? ''} is taken for this tenant`, { field, issue: 'is taken for this tenant' }));
}

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const locationInputs = {
  create: locationFields.partial().required({ code: true, name: true }).extend({ tenantId }),
  update: z.strictObject({ tenantId, id: idInput, changes: locationFields.partial() }),
  list: z.strictObject({ tenantId, ...pageFields }),
};

export const locationRouter = router({
  /** A new location of the tenant: `code` and `name` required, the rest defaulted. Unknown tenant: NOT_FOUND on `tenantId`. */
  create: protectedProcedure
    .input(locationInputs.create)
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
    .input(locationInputs.update)
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
    .input(locationInputs.list)
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const { rows, total } = await listLocations(ctx.database, input.tenantId, input);
      return { locations: rows.map(toLocationView), pagination: paginationOf(total, input, rows.length) };
    }),
});
