// On whose behalf: `X-Tenant-Id` must name a tenant the calling partner holds an active
// installation for (docs/identity-and-consent.md#acting-for-a-tenant). Unknown, foreign and deauthorized tenants look the same: 403.
// The installation was read by `authenticate` in the same statement as the key.
import { AppError, domainError } from '@pits/domain';
import { tenantIdOf } from './authenticate.js';
import { type GatewayMiddleware, type RouteStep, stepMiddleware } from './gateway-state.js';

function forbidden(): AppError {
  return new AppError(
    domainError('FORBIDDEN', 'the tenant is not authorized for this partner', {
      field: 'X-Tenant-Id',
      issue: 'unknown tenant, or not installed for this partner',
    }),
  );
}

/**
 * Goes after `authenticate(resolve, { tenantScoped: true })`. Missing or blank `X-Tenant-Id` → 400
 * INVALID_REQUEST; not a UUID, unknown, not installed or deauthorized → 403 FORBIDDEN; else
 * `ctx.state.tenantId` is the lower-cased UUID.
 *
 * @example
 * router.post('/api/partner/v1/adjustments', authenticate(resolve, { tenantScoped: true }), rateLimit(opts), requireTenant(), handler);
 */
export function requireTenant(): GatewayMiddleware {
  return stepMiddleware(tenantStep);
}

/** The check of `requireTenant` as a route step (what `mountRoutes` runs). */
export const tenantStep: RouteStep = (ctx) => {
  if (ctx.state.partner === undefined) throw new Error('requireTenant needs authenticate() before it');
  const header = ctx.get('X-Tenant-Id');
  if (header.trim() === '') {
    throw new AppError(
      domainError('INVALID_REQUEST', 'the X-Tenant-Id header is required', {
        field: 'X-Tenant-Id',
        issue: 'the X-Tenant-Id header is required for this endpoint',
      }),
    );
  }
  const tenantId = tenantIdOf(header);
  const installation = ctx.state.installation;
  if (tenantId === null || installation?.tenantId !== tenantId || installation.state !== 'active') throw forbidden();
  ctx.state.tenantId = tenantId;
};
