// On whose behalf: `X-Tenant-Id` must name a tenant the calling partner holds an active
// installation for (decisions §1). Unknown, foreign and deauthorized tenants look the same: 403.
import { AppError, domainError } from '@pits/domain';
import type { GatewayMiddleware } from './gateway-state.js';

/** Whether `partnerId` may act for `tenantId` now. */
export type CheckInstallation = (partnerId: number, tenantId: string) => Promise<'active' | 'inactive' | 'unknown'>;

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function forbidden(): AppError {
  return new AppError(
    domainError('FORBIDDEN', 'the tenant is not authorized for this partner', {
      field: 'X-Tenant-Id',
      issue: 'unknown tenant, or not installed for this partner',
    }),
  );
}

/**
 * Goes after `authenticate`. Missing or blank `X-Tenant-Id` → 400 INVALID_REQUEST; not a UUID,
 * unknown, not installed or deauthorized → 403 FORBIDDEN; else `ctx.state.tenantId` is the
 * lower-cased UUID.
 *
 * @example
 * router.post('/api/partner/v1/adjustments', authenticate(lookup), rateLimit(opts), requireTenant(check), handler);
 */
export function requireTenant(checkInstallation: CheckInstallation): GatewayMiddleware {
  return async (ctx, next) => {
    const partner = ctx.state.partner;
    if (partner === undefined) throw new Error('requireTenant needs authenticate() before it');
    const tenantId = ctx.get('X-Tenant-Id').trim();
    if (tenantId === '') {
      throw new AppError(
        domainError('INVALID_REQUEST', 'the X-Tenant-Id header is required', {
          field: 'X-Tenant-Id',
          issue: 'the X-Tenant-Id header is required for this endpoint',
        }),
      );
    }
    if (!UUID_PATTERN.test(tenantId)) throw forbidden();
    const normalized = tenantId.toLowerCase();
    const state = await checkInstallation(partner.partnerId, normalized);
    if (state !== 'active') throw forbidden();
    ctx.state.tenantId = normalized;
    await next();
  };
}
