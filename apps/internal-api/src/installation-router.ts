// Merchant consent (docs/identity-and-consent.md#consent-and-installations): the merchant dashboard's backend grants a partner access to a
// tenant and withdraws it. A partner can authorize a tenant only while a grant stands; a
// withdrawal ends the partner's installation at once.
import { z } from 'zod';
import { textField } from '@pits/contract';
import { pageOffset } from '@pits/domain';
import { grantAccess, listGrants, withdrawAccess } from '@pits/persistence';
import { idInput, pageFields, paginationOf, tenantId } from './procedure-inputs.js';
import { protectedProcedure, router } from './trpc.js';

const pair = { tenantId, partnerId: idInput };

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const installationInputs = {
  grant: z.strictObject(pair),
  withdraw: z.strictObject({ ...pair, reason: textField({ trim: true, min: 1, max: 500 }).optional() }),
  list: z.strictObject({ tenantId: tenantId.optional(), partnerId: idInput.optional(), ...pageFields }).prefault({}),
};

export const installationRouter = router({
  /** The tenant lets the partner connect. Idempotent; after a withdrawal it makes the grant stand again. Unknown tenant or partner: NOT_FOUND. */
  grant: protectedProcedure
    .input(installationInputs.grant)
    .mutation(({ ctx, input }) => grantAccess(ctx.database, input, ctx.now())),

  /** The tenant withdraws the partner's access: the grant stops standing and the installation ends now. No grant: NOT_FOUND. */
  withdraw: protectedProcedure
    .input(installationInputs.withdraw)
    .mutation(({ ctx, input }) => withdrawAccess(ctx.database, input, ctx.now())),

  /** Grants, with where each installation stands, filtered by tenant and/or partner; paged. */
  list: protectedProcedure
    .input(installationInputs.list)
    .query(async ({ ctx, input }) => {
      const { rows, total } = await listGrants(ctx.database, { tenantId: input.tenantId, partnerId: input.partnerId }, { limit: input.perPage, offset: pageOffset(input) });
      return { grants: rows, pagination: paginationOf(total, input, rows.length) };
    }),
});
