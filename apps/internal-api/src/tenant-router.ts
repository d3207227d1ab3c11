// Tenants: the platform's merchant accounts, created by internal teams.
import { z } from 'zod';
import { safeText } from '@pits/contract';
import { AppError, domainError, pageOffset } from '@pits/domain';
import { type Scope, createTenant, findTenant, getTenant, isUniqueViolation, listTenants } from '@pits/persistence';
import { definedOnly, pageInput, paginationOf, tenantId } from './procedure-inputs.js';
import { protectedProcedure, router } from './trpc.js';

/** Refuses an unknown tenant with NOT_FOUND on `field` (the input that named it). */
export async function requireTenant(scope: Scope, id: string, field = 'tenantId'): Promise<void> {
  if (!(await findTenant(scope, id))) throw new AppError(domainError('NOT_FOUND', `tenant ${id} does not exist`, { field }));
}

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const tenantInputs = {
  create: z.strictObject({ name: safeText.trim().min(1).max(200), id: tenantId.optional(), tenantType: safeText.trim().min(1).max(50).optional() }),
  list: pageInput,
  byId: z.strictObject({ id: tenantId }),
};

export const tenantRouter = router({
  /** A new tenant. `id` may be given (a UUID the platform already uses); a taken id: BAD_REQUEST on `id`. */
  create: protectedProcedure
    .input(tenantInputs.create)
    .mutation(async ({ ctx, input }) => {
      try {
        return await createTenant(ctx.database, { name: input.name, ...definedOnly({ id: input.id, tenantType: input.tenantType }) }, ctx.now());
      } catch (error) {
        if (isUniqueViolation(error)) throw new AppError(domainError('VALIDATION_ERROR', `tenant ${input.id ?? ''} exists already`, { field: 'id', issue: 'is taken' }));
        throw error;
      }
    }),

  /** A page of tenants, oldest first. */
  list: protectedProcedure.input(tenantInputs.list).query(async ({ ctx, input }) => {
    const { rows, total } = await listTenants(ctx.database, { limit: input.perPage, offset: pageOffset(input) });
    return { tenants: rows, pagination: paginationOf(total, input, rows.length) };
  }),

  /** One tenant; unknown id: NOT_FOUND on `id`. */
  byId: protectedProcedure
    .input(tenantInputs.byId)
    .query(({ ctx, input }) => getTenant(ctx.database, input.id)),
});
