import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  authorizeTenantBody,
  authorizeTenantResponse,
  availableLogisticsResponse,
  deauthorizeTenantBody,
  deauthorizeTenantResponse,
  installation,
  logisticPreference,
  tenantListQuery,
  tenantListResponse,
  tenantLocationsResponse,
} from './tenant-schemas.js';
import { parseWith } from './validation-issues.js';

function refusal(schema: z.ZodType, input: unknown) {
  const result = parseWith(schema, input);
  if (result.ok) throw new Error('expected a refusal');
  return result.error;
}

const tenant = '0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b';

describe('authorizeTenantBody', () => {
  const body = { tenant_id: tenant, days_connected: 30, installation_type: 'marketplace' };

  it('accepts the spec body', () => {
    expect(parseWith(authorizeTenantBody, body)).toEqual({ ok: true, value: body });
    expect(parseWith(authorizeTenantBody, { ...body, days_connected: 0, installation_type: 'custom' }).ok).toBe(true);
  });

  it.each([
    [{ tenant_id: 'tenant-1' }, 'tenant_id', 'must be a UUID'],
    [{ tenant_id: undefined }, 'tenant_id', 'is required'],
    [{ days_connected: -1 }, 'days_connected', 'must be at least 0'],
    [{ days_connected: 1.5 }, 'days_connected', 'must be an integer'],
    [{ days_connected: '30' }, 'days_connected', 'must be an integer'],
    [{ installation_type: 'private' }, 'installation_type', 'must be one of: custom, marketplace'],
    [{ tenant_id: `${tenant}\u0000` }, 'tenant_id', 'must be a UUID'],
  ])('refuses %j', (change, field, issue) => {
    expect(refusal(authorizeTenantBody, { ...body, ...change }).details).toEqual({ field, issue });
  });
});

describe('deauthorizeTenantBody', () => {
  it('needs tenant_id; uninstall_reason is optional up to 500 characters', () => {
    expect(parseWith(deauthorizeTenantBody, { tenant_id: tenant })).toEqual({ ok: true, value: { tenant_id: tenant } });
    expect(parseWith(deauthorizeTenantBody, { tenant_id: tenant, uninstall_reason: 'Closing shop' }).ok).toBe(true);
    expect(refusal(deauthorizeTenantBody, { uninstall_reason: 'x' }).details).toEqual({ field: 'tenant_id', issue: 'is required' });
    expect(refusal(deauthorizeTenantBody, { tenant_id: tenant, uninstall_reason: 'r'.repeat(501) }).details).toEqual({
      field: 'uninstall_reason',
      issue: 'must be at most 500 characters',
    });
  });

  it('refuses NUL and unpaired surrogates in uninstall_reason', () => {
    expect(refusal(deauthorizeTenantBody, { tenant_id: tenant, uninstall_reason: 'bye\u0000' }).details).toEqual({
      field: 'uninstall_reason',
      issue: 'must not contain the NUL character',
    });
    expect(refusal(deauthorizeTenantBody, { tenant_id: tenant, uninstall_reason: '\udfff bye' }).details).toEqual({
      field: 'uninstall_reason',
      issue: 'must not contain unpaired surrogates (invalid Unicode)',
    });
  });
});

describe('tenantListQuery', () => {
  it('defaults to page 1 of 10, at most 100 per page', () => {
    expect(parseWith(tenantListQuery, {})).toEqual({ ok: true, value: { page: 1, per_page: 10 } });
    expect(parseWith(tenantListQuery, { page: '3', per_page: '100' })).toEqual({ ok: true, value: { page: 3, per_page: 100 } });
    expect(refusal(tenantListQuery, { per_page: '101' }).details).toEqual({ field: 'per_page', issue: 'must be at most 100' });
  });
});

// ---------------------------------------------------------------------------------------------
// Responses

const ts = '2026-01-31T08:15:30.123Z';
const active = {
  id: '11',
  partner_id: '7',
  tenant_id: tenant,
  tenant_type: 'live',
  app_id: 'app_acme',
  app_key: 'ak_9f8e7d',
  installation_type: 'marketplace',
  installed_at: ts,
  days_connected: 30,
  uninstall_at: null,
  uninstall_reason: null,
  created_at: ts,
  updated_at: ts,
};
const more = { current_page: 1, per_page: 10, total: 1, last_page: 1, from: 1, to: 1, has_more_pages: false };
const envelopeB = (data: unknown) => ({ status: 200, message: 'Ok', data, errors: null, request_id: '3f2c1e9a-7b4d-4c3e-9a1b-2d3e4f5a6b7c' });

describe('installation', () => {
  it('accepts an active and an ended installation', () => {
    expect(installation.safeParse(active).success).toBe(true);
    expect(installation.safeParse({ ...active, uninstall_at: ts, uninstall_reason: 'Closing shop' }).success).toBe(true);
    expect(installation.safeParse({ ...active, installation_type: 'other' }).success).toBe(false);
  });

  it('is data.installation of authorize and deauthorize, in envelope B', () => {
    expect(authorizeTenantResponse.safeParse(envelopeB({ installation: active })).success).toBe(true);
    expect(deauthorizeTenantResponse.safeParse(envelopeB({ installation: { ...active, uninstall_at: ts } })).success).toBe(true);
    expect(authorizeTenantResponse.safeParse({ ...envelopeB({ installation: active }), status: 'ok' }).success).toBe(false);
  });

  it('is listed with the has_more_pages pagination', () => {
    expect(tenantListResponse.safeParse(envelopeB({ installations: [active], pagination: more })).success).toBe(true);
    const { has_more_pages: _h, ...range } = more;
    expect(tenantListResponse.safeParse(envelopeB({ installations: [active], pagination: range })).success).toBe(false);
  });
});

describe('tenant locations and logistics', () => {
  const location = {
    location_id: 7,
    name: 'Jakarta Warehouse',
    code: 'WH-JKT',
    type: 'warehouse',
    address: 'Jl. Sudirman 1',
    city: 'Jakarta Selatan',
    state: 'DKI Jakarta',
    zip: '12190',
    subdistrict: 'Senayan',
    country: 'Indonesia',
    pic_name: 'Budi',
    phone: '+62 21 555 0101',
    latitude: '-6.2146',
    longitude: '106.8451',
    is_default: true,
    is_pickup: false,
    status: 'active',
    origin_code: null,
    created_by: 'system',
    created_at: ts,
  };
  const logistic = {
    logistic_preference_id: 1,
    logistic_provider_id: 4,
    logistic_provider_name: 'JNE',
    available_service_types: { Cargo: true, Reguler: true, Crossborder: false },
    is_default: true,
    is_active: true,
    username: '****mple',
    password: '********4321',
    api_key: '',
    api_secret: 'abc',
    account_id: null,
    account_name: 'Acme JNE',
    created_by: 'system',
    updated_by: 'system',
    created_at: ts,
    updated_at: ts,
  };

  it('lists locations in the tenant form', () => {
    expect(tenantLocationsResponse.safeParse(envelopeB({ locations: [location], pagination: more })).success).toBe(true);
    const embedded = { ...location, is_return: false };
    expect(tenantLocationsResponse.safeParse(envelopeB({ locations: [embedded], pagination: more })).success).toBe(false);
  });

  it('lists logistics with masked credentials', () => {
    expect(availableLogisticsResponse.safeParse(envelopeB({ logistics: [logistic], pagination: more })).success).toBe(true);
    expect(logisticPreference.safeParse({ ...logistic, password: 'hunter2-secret' }).success).toBe(false);
    expect(logisticPreference.safeParse({ ...logistic, api_key: '1234*****' }).success).toBe(false);
  });

  it('maps service types to booleans', () => {
    expect(logisticPreference.safeParse({ ...logistic, available_service_types: { Cargo: 'yes' } }).success).toBe(false);
    expect(logisticPreference.safeParse({ ...logistic, available_service_types: {} }).success).toBe(true);
  });
});
