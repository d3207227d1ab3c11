// The whole internal API: one sub-router per resource. `AppRouter` is the type clients are built on;
// `procedureInputs` holds the zod schema of every procedure's input, by the same paths.
import type { inferRouterInputs } from '@trpc/server';
import type { z } from 'zod';
import { apiKeyInputs, apiKeyRouter } from './api-key-router.js';
import { inboundInputs, inboundRouter } from './inbound-router.js';
import { installationInputs, installationRouter } from './installation-router.js';
import { locationInputs, locationRouter } from './location-router.js';
import { logisticPreferenceInputs, logisticPreferenceRouter } from './logistic-preference-router.js';
import { lotInputs, lotRouter } from './lot-router.js';
import { partnerInputs, partnerRouter } from './partner-router.js';
import { productInputs, productRouter } from './product-router.js';
import { reservationInputs, reservationRouter } from './reservation-router.js';
import { stockInputs, stockRouter } from './stock-router.js';
import { tenantInputs, tenantRouter } from './tenant-router.js';
import { transferInputs, transferRouter } from './transfer-router.js';
import { createCallerFactory, router } from './trpc.js';
import { webhookInputs, webhookRouter } from './webhook-router.js';

export const appRouter = router({
  partners: partnerRouter,
  apiKeys: apiKeyRouter,
  tenants: tenantRouter,
  installations: installationRouter,
  locations: locationRouter,
  logisticPreferences: logisticPreferenceRouter,
  products: productRouter,
  stock: stockRouter,
  lots: lotRouter,
  transfers: transferRouter,
  reservations: reservationRouter,
  inbound: inboundRouter,
  webhooks: webhookRouter,
});

export type AppRouter = typeof appRouter;

type Inputs = inferRouterInputs<AppRouter>;

/**
 * One entry per procedure of every sub-router, none missing: the schema it parses its input with,
 * accepting what the procedure accepts, or `null` when it takes no input (tRPC types that input as
 * `void`: nothing is left once `void` is taken out).
 */
export type ProcedureInputs = {
  [R in keyof Inputs]: { [P in keyof Inputs[R]]: [Exclude<Inputs[R][P], void>] extends [never] ? null : z.ZodType<unknown, Inputs[R][P]> };
};

/**
 * The schema of every procedure's input, by sub-router and procedure, as each router file declares
 * and uses it. Tests walk it to check every field of every input (procedure-inputs.test.ts); the
 * compiler refuses a procedure missing here, and a test refuses an entry the router does not serve.
 *
 * @example procedureInputs.partners.create.safeParse({ name: 'Acme' }).success // false: email and tier are required
 */
export const procedureInputs = {
  partners: partnerInputs,
  apiKeys: apiKeyInputs,
  tenants: tenantInputs,
  installations: installationInputs,
  locations: locationInputs,
  logisticPreferences: logisticPreferenceInputs,
  products: productInputs,
  stock: stockInputs,
  lots: lotInputs,
  transfers: transferInputs,
  reservations: reservationInputs,
  inbound: inboundInputs,
  webhooks: webhookInputs,
} satisfies ProcedureInputs;

/**
 * Calls procedures in-process, without HTTP (tests, scripts).
 *
 * @example
 * const caller = createInternalCaller({ database, cipher, now: () => new Date(), logger, authorized: true });
 * await caller.partners.list();
 */
export const createInternalCaller = createCallerFactory(appRouter);
