// Every route of the partner API, in the order they are mounted and documented. This list is the
// catalogue of the contract's request and response schemas: what it holds is what is served.
import { adjustmentRoutes } from './adjustment-routes.js';
import { areaRoutes } from './area-routes.js';
import { inboundRoutes } from './inbound-routes.js';
import { productRoutes } from './product-routes.js';
import { reservationRoutes } from './reservation-routes.js';
import type { Route } from './route-spec.js';
import { stockRoutes } from './stock-routes.js';
import { tenantRoutes } from './tenant-routes.js';
import { transferRoutes } from './transfer-routes.js';
import { type WebhookRouteDeps, webhookRoutes } from './webhook-routes.js';

/**
 * The routes, built with what the tenant and webhook routes need (the credential cipher, where
 * webhooks may point and how their hosts resolve).
 *
 * @example
 * const routes = partnerRoutes({ cipher, urlPolicy: { allowPrivate: false }, resolveHost: systemHostResolver() });
 * mountRoutes(router, routes, services);
 */
export function partnerRoutes(deps: WebhookRouteDeps): Route[] {
  return [
    ...tenantRoutes({ cipher: deps.cipher }),
    ...adjustmentRoutes(),
    ...transferRoutes(),
    ...productRoutes(),
    ...stockRoutes(),
    ...reservationRoutes(),
    ...inboundRoutes(),
    ...webhookRoutes(deps),
    ...areaRoutes(),
  ];
}
