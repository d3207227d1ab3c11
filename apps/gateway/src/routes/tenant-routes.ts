// The v1 tenant endpoints: authorize, deauthorize, connected tenants, tenant locations and
// available logistics (envelope B).
import {
  EXAMPLE_INVITED_TENANT_ID,
  EXAMPLE_TENANT_ID,
  authorizeTenantBody,
  authorizeTenantResponse,
  availableLogisticsResponse,
  deauthorizeTenantBody,
  deauthorizeTenantResponse,
  installationExample,
  jakartaLocationExample,
  logisticsExample,
  morePageExample,
  surabayaLocationExample,
  tenantListQuery,
  tenantListResponse,
  tenantLocationsResponse,
} from '@pits/contract';
import { morePagination, pageFacts } from '@pits/domain';
import {
  type CredentialCipher,
  authorizeTenant,
  deauthorizeTenant,
  listConnectedInstallations,
  listLocations,
  listLogisticPreferences,
} from '@pits/persistence';
import { type Route, defineRoute } from './route-spec.js';
import { presentInstallation, presentLogisticPreference, presentTenantLocation } from './tenant-presenters.js';

const page = (q: { page: number; per_page: number }) => ({ page: q.page, perPage: q.per_page });

export function tenantRoutes(deps: { cipher: CredentialCipher }): Route[] {
  const { cipher } = deps;
  return [
    defineRoute({
      name: 'tenants.authorize',
      method: 'POST',
      path: '/api/partner/v1/tenants/authorize',
      summary: 'Authorize a tenant',
      description:
        'Connects a tenant to the partner, or reconnects one that was deauthorized. Idempotent. The merchant must have granted this partner access on the platform first; without a standing grant (never given, or withdrawn) the answer is 403 FORBIDDEN and nothing is created.',
      tag: 'Tenants',
      tenantScoped: false,
      body: authorizeTenantBody,
      envelope: 'B',
      status: 200,
      response: authorizeTenantResponse,
      errors: ['VALIDATION_ERROR', 'FORBIDDEN'],
      example: { tenant_id: EXAMPLE_INVITED_TENANT_ID, days_connected: 0, installation_type: 'custom' },
      responseExample: { installation: { ...installationExample, id: 'b84ad79b-2876-4766-8b88-0ad3cc1a7614', tenant_id: EXAMPLE_INVITED_TENANT_ID, days_connected: 0, installed_at: '2026-11-22T09:31:05.017Z', created_at: '2026-11-22T09:31:05.017Z', updated_at: '2026-11-22T09:31:05.017Z' } },
      handler: async ({ db, partner, body, now }) => {
        const row = await authorizeTenant(
          db,
          { partnerId: partner.partnerId, tenantId: body.tenant_id, daysConnected: body.days_connected, installationType: body.installation_type },
          now,
        );
        return { installation: presentInstallation(row) };
      },
    }),
    defineRoute({
      name: 'tenants.deauthorize',
      method: 'POST',
      path: '/api/partner/v1/tenants/deauthorize',
      summary: 'Deauthorize a tenant',
      description: 'Ends the installation; every tenant-scoped call for the tenant is 403 from then on. The merchant’s grant still stands, so the tenant can be authorized again later.',
      tag: 'Tenants',
      tenantScoped: false,
      body: deauthorizeTenantBody,
      envelope: 'B',
      status: 200,
      response: deauthorizeTenantResponse,
      errors: ['VALIDATION_ERROR', 'NOT_FOUND'],
      example: { tenant_id: EXAMPLE_TENANT_ID, uninstall_reason: 'Merchant moved to another fulfilment app' },
      responseExample: { installation: { ...installationExample, uninstall_at: '2026-11-22T11:42:09.538Z', uninstall_reason: 'Merchant moved to another fulfilment app', updated_at: '2026-11-22T11:42:09.538Z' } },
      handler: async ({ db, partner, body, now }) => {
        const row = await deauthorizeTenant(db, { partnerId: partner.partnerId, tenantId: body.tenant_id, reason: body.uninstall_reason ?? null }, now);
        return { installation: presentInstallation(row) };
      },
    }),
    defineRoute({
      name: 'tenants.list',
      method: 'GET',
      path: '/api/partner/v1/tenants',
      summary: 'List connected tenants',
      description: 'The tenants this partner holds an active installation for, newest first, with `page` and `per_page`.',
      tag: 'Tenants',
      tenantScoped: false,
      query: tenantListQuery,
      envelope: 'B',
      status: 200,
      response: tenantListResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 10 },
      responseExample: { installations: [installationExample], pagination: morePageExample(1) },
      handler: async ({ db, partner, query }) => {
        const { rows, total } = await listConnectedInstallations(db, partner.partnerId, page(query));
        return { installations: rows.map(presentInstallation), pagination: morePagination(pageFacts(total, page(query), rows.length)) };
      },
    }),
    defineRoute({
      name: 'tenants.locations',
      method: 'GET',
      path: '/api/partner/v1/tenants/locations',
      summary: "List the tenant's locations",
      description: 'The locations of the `X-Tenant-Id` tenant, by id ascending, with `page` and `per_page`.',
      tag: 'Tenants',
      tenantScoped: true,
      query: tenantListQuery,
      envelope: 'B',
      status: 200,
      response: tenantLocationsResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 10 },
      responseExample: { locations: [jakartaLocationExample, surabayaLocationExample], pagination: morePageExample(2) },
      handler: async ({ db, tenantId, query }) => {
        const { rows, total } = await listLocations(db, tenantId, page(query));
        return { locations: rows.map(presentTenantLocation), pagination: morePagination(pageFacts(total, page(query), rows.length)) };
      },
    }),
    defineRoute({
      name: 'tenants.available_logistics',
      method: 'GET',
      path: '/api/partner/v1/tenants/available-logistics',
      summary: "List the tenant's available logistics",
      description: 'Provider account credentials are always masked: all but the last 4 characters are `*`.',
      tag: 'Tenants',
      tenantScoped: true,
      query: tenantListQuery,
      envelope: 'B',
      status: 200,
      response: availableLogisticsResponse,
      errors: ['VALIDATION_ERROR'],
      queryExample: { page: 1, per_page: 10 },
      responseExample: { logistics: logisticsExample, pagination: morePageExample(2) },
      handler: async ({ db, tenantId, query }) => {
        const { rows, total } = await listLogisticPreferences(db, cipher, tenantId, page(query));
        return { logistics: rows.map(presentLogisticPreference), pagination: morePagination(pageFacts(total, page(query), rows.length)) };
      },
    }),
  ];
}
