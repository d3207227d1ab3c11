// The whole internal API: one sub-router per resource. `AppRouter` is the type clients are built on.
import { apiKeyRouter } from './api-key-router.js';
import { inboundRouter } from './inbound-router.js';
import { installationRouter } from './installation-router.js';
import { locationRouter } from './location-router.js';
import { logisticPreferenceRouter } from './logistic-preference-router.js';
import { partnerRouter } from './partner-router.js';
import { productRouter } from './product-router.js';
import { stockRouter } from './stock-router.js';
import { tenantRouter } from './tenant-router.js';
import { transferRouter } from './transfer-router.js';
import { createCallerFactory, router } from './trpc.js';
import { webhookRouter } from './webhook-router.js';

export const appRouter = router({
  partners: partnerRouter,
  apiKeys: apiKeyRouter,
  tenants: tenantRouter,
  installations: installationRouter,
  locations: locationRouter,
  logisticPreferences: logisticPreferenceRouter,
  products: productRouter,
  stock: stockRouter,
  transfers: transferRouter,
  inbound: inboundRouter,
  webhooks: webhookRouter,
});

export type AppRouter = typeof appRouter;

/**
 * Calls procedures in-process, without HTTP (tests, scripts).
 *
 * @example
 * const caller = createInternalCaller({ database, cipher, now: () => new Date(), logger, authorized: true });
 * await caller.partners.list();
 */
export const createInternalCaller = createCallerFactory(appRouter);
