// A partner's API keys: the secret is returned by create and rotate only, never stored in clear
// and never listed (a list shows the prefix and the last 4 characters).
import { z } from 'zod';
import { safeText } from '@pits/contract';
import { createApiKey, listApiKeys, revokeApiKey, rotateApiKey } from '@pits/persistence';
import { requirePartner } from './partner-router.js';
import { idInput } from './procedure-inputs.js';
import { protectedProcedure, router } from './trpc.js';

const keyRef = z.strictObject({ partnerId: idInput, keyId: idInput });

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const apiKeyInputs = {
  create: z.strictObject({ partnerId: idInput, environment: z.enum(['live', 'test']), label: safeText.trim().max(100).optional() }),
  list: z.strictObject({ partnerId: idInput }),
  rotate: keyRef,
  revoke: keyRef,
};

export const apiKeyRouter = router({
  /** A new key: `pk_live_…` or `pk_test_…`. `secret` is shown here once and can never be read again. */
  create: protectedProcedure
    .input(apiKeyInputs.create)
    .mutation(async ({ ctx, input }) => {
      await requirePartner(ctx.database, input.partnerId);
      const { environment, label } = input;
      return createApiKey(ctx.database, input.partnerId, label === undefined ? { environment } : { environment, label }, ctx.now());
    }),

  /** The partner's keys, revoked ones included: prefix, last 4 characters, label and dates only. */
  list: protectedProcedure
    .input(apiKeyInputs.list)
    .query(async ({ ctx, input }) => {
      await requirePartner(ctx.database, input.partnerId);
      return listApiKeys(ctx.database, input.partnerId);
    }),

  /** A new key of the same environment and label, and the old one revoked, together. Rotating a revoked key: CONFLICT. */
  rotate: protectedProcedure.input(apiKeyInputs.rotate).mutation(async ({ ctx, input }) => {
    await requirePartner(ctx.database, input.partnerId);
    return rotateApiKey(ctx.database, input.partnerId, input.keyId, ctx.now());
  }),

  /** Revokes the key at once; revoking twice keeps the first time. */
  revoke: protectedProcedure.input(apiKeyInputs.revoke).mutation(async ({ ctx, input }) => {
    await requirePartner(ctx.database, input.partnerId);
    return revokeApiKey(ctx.database, input.partnerId, input.keyId, ctx.now());
  }),
});
