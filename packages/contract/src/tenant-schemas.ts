// The tenants routes of the v1 contract: authorize, deauthorize, the installations list, and the
// tenant's locations and available logistics (all envelope B), with the reference's examples.
import { z } from 'zod';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS, digitText, storedText, textField } from './text-schemas.js';
import { timestamp } from './date-schemas.js';
import { MAX_PER_PAGE, morePaginationSchema, pageQuery, perPageQuery } from './pagination-schemas.js';
import { envelopeB } from './envelope-schemas.js';
import { EXAMPLE_TENANT_ID, type Example } from './examples.js';
import { tenantLocation } from './inbound-schemas.js';

/** A tenant id: a UUID (any version; tenants are created by internal teams). */
export const tenantIdInput = z.guid({ error: requiredOr('must be a UUID') }).meta({ description: 'A tenant id, UUID.' });

/** `custom` or `marketplace`. */
export const installationType = z.enum(['custom', 'marketplace']);

// ---------------------------------------------------------------------------------------------
// Requests

/** Body of `POST /api/partner/v1/tenants/authorize`. */
export const authorizeTenantBody = z
  .object({
    tenant_id: tenantIdInput,
    days_connected: z.int().min(0),
    installation_type: installationType,
  })
  .meta({ id: 'AuthorizeTenantBody', description: 'Connect (or reconnect) a tenant to the partner.' });
export type AuthorizeTenantBody = z.output<typeof authorizeTenantBody>;

/** Body of `POST /api/partner/v1/tenants/deauthorize`: `tenant_id` required, `uninstall_reason` optional. */
export const deauthorizeTenantBody = z
  .object({
    tenant_id: tenantIdInput,
    uninstall_reason: textField({ max: TEXT_LIMITS.reason }).optional(),
  })
  .meta({ id: 'DeauthorizeTenantBody', description: 'Disconnect a tenant from the partner.' });
export type DeauthorizeTenantBody = z.output<typeof deauthorizeTenantBody>;

/** Query of the tenants list, tenant locations and available logistics: page, per_page (default 10, max 100). */
export const tenantListQuery = z
  .object({ page: pageQuery, per_page: perPageQuery(10) })
  .meta({ id: 'TenantPageQuery', description: 'Paging of the tenant endpoints.' });
export type TenantListQuery = z.output<typeof tenantListQuery>;

// ---------------------------------------------------------------------------------------------
// Responses

/** An installation: the partner's connection to a tenant. */
export const installation = z
  .strictObject({
    id: storedText(36),
    partner_id: digitText,
    tenant_id: z.guid(),
    tenant_type: storedText(TEXT_LIMITS.label),
    app_id: storedText(TEXT_LIMITS.label),
    app_key: storedText(TEXT_LIMITS.label),
    installation_type: installationType,
    installed_at: timestamp,
    days_connected: z.int().min(0),
    uninstall_at: timestamp.nullable(),
    uninstall_reason: storedText(TEXT_LIMITS.reason).nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Installation', description: 'A tenant connected to the partner; uninstall_at is set once deauthorized.' });

/** A credential shown masked: all but the last 4 characters are `*`. */
export const maskedSecret = z
  .string()
  .max(TEXT_LIMITS.credential)
  .regex(/^(?:\*+[\s\S]{4}|[\s\S]{0,4})$/)
  .meta({ description: 'A credential with all but its last 4 characters replaced by *.' });

/** A logistics service the tenant can use. */
export const logisticPreference = z
  .strictObject({
    logistic_preference_id: z.int(),
    logistic_provider_id: z.int(),
    logistic_provider_name: storedText(TEXT_LIMITS.name),
    available_service_types: z.record(storedText(100), z.boolean()),
    is_default: z.boolean(),
    is_active: z.boolean(),
    username: maskedSecret,
    password: maskedSecret,
    api_key: maskedSecret,
    api_secret: maskedSecret,
    account_id: storedText(TEXT_LIMITS.description).nullable(),
    account_name: storedText(TEXT_LIMITS.description).nullable(),
    created_by: storedText(TEXT_LIMITS.actor),
    updated_by: storedText(TEXT_LIMITS.actor),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'LogisticPreference', description: 'A logistics provider account of the tenant; credentials masked.' });

/** 200 of authorize: envelope B, `data.installation`. */
export const authorizeTenantResponse = envelopeB(z.strictObject({ installation })).meta({
  id: 'AuthorizeTenantResponse',
  description: 'The active installation.',
});

/** 200 of deauthorize: envelope B, `data.installation` with `uninstall_at` set. */
export const deauthorizeTenantResponse = envelopeB(z.strictObject({ installation })).meta({
  id: 'DeauthorizeTenantResponse',
  description: 'The ended installation.',
});

/** 200 of the tenants list: envelope B, `data.installations` and the more-pagination object. */
export const tenantListResponse = envelopeB(
  z.strictObject({ installations: z.array(installation).max(MAX_PER_PAGE), pagination: morePaginationSchema }),
).meta({ id: 'TenantListResponse', description: "The partner's connected tenants, newest first." });

/** 200 of tenant locations: envelope B, `data.locations` and the more-pagination object. */
export const tenantLocationsResponse = envelopeB(
  z.strictObject({ locations: z.array(tenantLocation).max(MAX_PER_PAGE), pagination: morePaginationSchema }),
).meta({ id: 'TenantLocationsResponse', description: "The tenant's locations, by id." });

/** 200 of available logistics: envelope B, `data.logistics` and the more-pagination object. */
export const availableLogisticsResponse = envelopeB(
  z.strictObject({ logistics: z.array(logisticPreference).max(MAX_PER_PAGE), pagination: morePaginationSchema }),
).meta({ id: 'AvailableLogisticsResponse', description: "The tenant's logistics services, by id." });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

export const installationExample: Example<typeof installation> = {
  id: '476c5f5d-bc67-408b-946b-56267ebb86b7',
  partner_id: '1',
  tenant_id: EXAMPLE_TENANT_ID,
  tenant_type: 'live',
  app_id: 'bcfc73d3-972f-4c8e-80a2-83873d95635e',
  app_key: 'app_91ca9abd8c8dacf38fec718cafa4ff7e',
  installation_type: 'custom',
  installed_at: '2026-11-08T02:15:40.913Z',
  days_connected: 14,
  uninstall_at: null,
  uninstall_reason: null,
  created_at: '2026-11-08T02:15:40.913Z',
  updated_at: '2026-11-08T02:15:40.913Z',
};

export const logisticsExample: Example<typeof logisticPreference>[] = [
  {
    logistic_preference_id: 1,
    logistic_provider_id: 1,
    logistic_provider_name: 'JNE',
    available_service_types: { Reguler: true, Cargo: true, Crossborder: false },
    is_default: true,
    is_active: true,
    username: '**********tara',
    password: '*************-123',
    api_key: '*****************0042',
    api_secret: '****************7781',
    account_id: 'JNE-88120',
    account_name: 'Toko Nusantara',
    created_by: 'ops.jakarta',
    updated_by: 'ops.jakarta',
    created_at: '2026-03-02T01:05:00.000Z',
    updated_at: '2026-03-02T01:05:00.000Z',
  },
  {
    logistic_preference_id: 2,
    logistic_provider_id: 2,
    logistic_provider_name: 'SiCepat',
    available_service_types: { Reguler: true, Cargo: false, Crossborder: false },
    is_default: false,
    is_active: true,
    username: '********a-sc',
    password: '*************pass',
    api_key: '*****************5521',
    api_secret: '********************1180',
    account_id: null,
    account_name: null,
    created_by: 'ops.jakarta',
    updated_by: 'ops.jakarta',
    created_at: '2026-04-11T07:45:00.000Z',
    updated_at: '2026-04-11T07:45:00.000Z',
  },
];
