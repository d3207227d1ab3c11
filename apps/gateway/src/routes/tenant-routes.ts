// The v1 tenant endpoints: authorize, deauthorize, connected tenants, tenant locations and
// available logistics (envelope B), and the presenters of those resources.
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
import type * as contract from '@pits/contract';
import { morePagination, pageFacts } from '@pits/domain';
import {
  type CredentialCipher,
  type InstallationRecord,
  type LocationRecord,
  type LogisticPreferenceView,
  authorizeTenant,
  deauthorizeTenant,
  listConnectedInstallations,
  listLocations,
  listLogisticPreferences,
} from '@pits/persistence';
import { pageOf } from './route-helpers.js';
import { type Route, defineRoute } from './route-spec.js';
import type { z } from 'zod';

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
        const { rows, total } = await listConnectedInstallations(db, partner.partnerId, pageOf(query));
        return { installations: rows.map(presentInstallation), pagination: morePagination(pageFacts(total, pageOf(query), rows.length)) };
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
        const { rows, total } = await listLocations(db, tenantId, pageOf(query));
        return { locations: rows.map(presentTenantLocation), pagination: morePagination(pageFacts(total, pageOf(query), rows.length)) };
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
        const { rows, total } = await listLogisticPreferences(db, cipher, tenantId, pageOf(query));
        return { logistics: rows.map(presentLogisticPreference), pagination: morePagination(pageFacts(total, pageOf(query), rows.length)) };
      },
    }),
  ];
}

// ---------------------------------------------------------------------------------------------
// Presenters. A tenant location is also what the inbound list embeds (inbound-routes.ts).

/** `data.installations[]` / `data.installation`. */
function presentInstallation(installation: InstallationRecord): z.input<typeof contract.installation> {
  return {
    id: installation.id,
    partner_id: String(installation.partnerId),
    tenant_id: installation.tenantId,
    tenant_type: installation.tenantType,
    app_id: installation.appId,
    app_key: installation.appKey,
    installation_type: installation.installationType,
    installed_at: installation.installedAt,
    days_connected: installation.daysConnected,
    uninstall_at: installation.uninstallAt,
    uninstall_reason: installation.uninstallReason,
    created_at: installation.createdAt,
    updated_at: installation.updatedAt,
  };
}

/** `data.locations[]` of tenant locations. */
export function presentTenantLocation(location: LocationRecord): z.input<typeof contract.tenantLocation> {
  return {
    location_id: location.id,
    name: location.name,
    code: location.code,
    type: location.type,
    address: location.address,
    city: location.city,
    state: location.state,
    zip: location.zip,
    subdistrict: location.subdistrict,
    country: location.country,
    pic_name: location.picName,
    phone: location.phone,
    latitude: location.latitude,
    longitude: location.longitude,
    is_default: location.isDefault,
    is_pickup: location.isPickup,
    status: location.status,
    origin_code: location.originCode,
    created_by: location.createdBy,
    created_at: location.createdAt,
  };
}

/** `data.logistics[]`: credentials already masked by persistence. */
function presentLogisticPreference(view: LogisticPreferenceView): z.input<typeof contract.logisticPreference> {
  return {
    logistic_preference_id: view.id,
    logistic_provider_id: view.logisticProviderId,
    logistic_provider_name: view.logisticProviderName,
    available_service_types: view.availableServiceTypes,
    is_default: view.isDefault,
    is_active: view.isActive,
    username: view.username,
    password: view.password,
    api_key: view.apiKey,
    api_secret: view.apiSecret,
    account_id: view.accountId,
    account_name: view.accountName,
    created_by: view.createdBy,
    updated_by: view.updatedBy,
    created_at: view.createdAt,
    updated_at: view.updatedAt,
  };
}
