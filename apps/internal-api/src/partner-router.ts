// Partners: the API client companies, created and re-tiered by internal teams.
import { z } from 'zod';
import { safeText } from '@pits/contract';
import { AppError, domainError } from '@pits/domain';
import { type Scope, createPartner, findPartner, getPartner, listPartners, setPartnerTier } from '@pits/persistence';
import { idInput } from './procedure-inputs.js';
import { protectedProcedure, router } from './trpc.js';

/** Refuses an unknown partner with NOT_FOUND on `partnerId` (the input that named it). */
export async function requirePartner(scope: Scope, partnerId: number): Promise<void> {
  if (!(await findPartner(scope, partnerId))) {
    throw new AppError(domainError('NOT_FOUND', `partner ${partnerId} does not exist`, { field: 'partnerId' }));
  }
}

/** `small`, `medium` or `large`: decides the partner's rate limit. */
export const partnerTier = z.enum(['small', 'medium', 'large']);

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`); `null`: it takes none. */
export const partnerInputs = {
  create: z.strictObject({ name: safeText.trim().min(1).max(200), email: z.email().max(320), tier: partnerTier }),
  list: null,
  byId: z.strictObject({ id: idInput }),
  setTier: z.strictObject({ id: idInput, tier: partnerTier }),
};

export const partnerRouter = router({
  /** A new partner; its public `appId`/`appKey` are generated. */
  create: protectedProcedure
    .input(partnerInputs.create)
    .mutation(({ ctx, input }) => createPartner(ctx.database, input, ctx.now())),

  /** Every partner, by id. */
  list: protectedProcedure.query(({ ctx }) => listPartners(ctx.database)),

  /** One partner; unknown id: NOT_FOUND on `id`. */
  byId: protectedProcedure
    .input(partnerInputs.byId)
    .query(({ ctx, input }) => getPartner(ctx.database, input.id)),

  /** Changes the partner's tier; unknown id: NOT_FOUND on `id`. */
  setTier: protectedProcedure
    .input(partnerInputs.setTier)
    .mutation(({ ctx, input }) => setPartnerTier(ctx.database, input.id, input.tier, ctx.now())),
});
