// Logistic preferences of a tenant: carriers and their account credentials. Credentials go in
// encrypted with the configured key and only ever come out masked (all but the last 4 are `*`).
import { z } from 'zod';
import { safeText } from '@pits/contract';
import { createLogisticPreference, listLogisticPreferences, updateLogisticPreference } from '@pits/persistence';
import { INTERNAL_ACTOR, definedOnly, idInput, pageFields, paginationOf, tenantId } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

const credential = safeText.max(1000);

/**
 * Service type name to availability. zod leaves a `__proto__` key out of a record (assigning it
 * would set a prototype), so the stored object would silently lack it: refuse it instead.
 */
const serviceTypes = z.preprocess((value, ctx) => {
  if (typeof value === 'object' && value !== null && Object.hasOwn(value, '__proto__')) {
    ctx.addIssue({ code: 'custom', path: ['__proto__'], message: 'is a reserved name', input: value });
  }
  return value;
}, z.record(safeText.min(1).max(100), z.boolean()));

const preferenceFields = z.strictObject({
  logisticProviderId: idInput,
  logisticProviderName: safeText.trim().min(1).max(200),
  availableServiceTypes: serviceTypes,
  isDefault: z.boolean(),
  isActive: z.boolean(),
  username: credential,
  password: credential,
  apiKey: credential,
  apiSecret: credential,
  accountId: safeText.max(200).nullable(),
  accountName: safeText.max(200).nullable(),
});

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const logisticPreferenceInputs = {
  create: preferenceFields
    .partial()
    .required({ logisticProviderId: true, logisticProviderName: true, username: true, password: true, apiKey: true, apiSecret: true })
    .extend({ tenantId, availableServiceTypes: preferenceFields.shape.availableServiceTypes.default({}) }),
  update: z.strictObject({ tenantId, id: idInput, changes: preferenceFields.partial() }),
  list: z.strictObject({ tenantId, ...pageFields }),
};

export const logisticPreferenceRouter = router({
  /** A new preference; the four credentials are required (may be empty) and returned masked. Unknown tenant: NOT_FOUND on `tenantId`. */
  create: protectedProcedure
    .input(logisticPreferenceInputs.create)
    .mutation(async ({ ctx, input }) => {
      const { tenantId: id, logisticProviderId, logisticProviderName, availableServiceTypes, username, password, apiKey, apiSecret, ...rest } = input;
      await requireTenant(ctx.database, id);
      return createLogisticPreference(
        ctx.database,
        ctx.cipher,
        id,
        { logisticProviderId, logisticProviderName, availableServiceTypes, username, password, apiKey, apiSecret, ...definedOnly(rest) },
        INTERNAL_ACTOR,
        ctx.now(),
      );
    }),

  /** Changes the given fields; a given credential is re-encrypted. Unknown tenant or preference: NOT_FOUND. */
  update: protectedProcedure
    .input(logisticPreferenceInputs.update)
    .mutation(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      return updateLogisticPreference(ctx.database, ctx.cipher, input.tenantId, input.id, definedOnly(input.changes), INTERNAL_ACTOR, ctx.now());
    }),

  /** A page of the tenant's preferences by id, credentials masked. Unknown tenant: NOT_FOUND on `tenantId`. */
  list: protectedProcedure
    .input(logisticPreferenceInputs.list)
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const { rows, total } = await listLogisticPreferences(ctx.database, ctx.cipher, input.tenantId, input);
      return { logisticPreferences: rows, pagination: paginationOf(total, input, rows.length) };
    }),
});
