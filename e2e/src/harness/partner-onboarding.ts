// Onboards partners the way internal teams and partners would: partner, API key, tenants,
// locations and logistic preferences through the internal API (tRPC over HTTP), the merchant's
// grant through the internal API too, then the installation through the gateway's own authorize
// endpoint.
import { randomBytes } from 'node:crypto';
import type { InternalClient } from '@pits/internal-api/client';
import { expect } from 'vitest';
import type { GatewayClient } from './gateway-client.js';

export interface LogisticCredentials {
  username: string;
  password: string;
  apiKey: string;
  apiSecret: string;
}

export interface OnboardedTenant {
  id: string;
  /** Location ids, ascending (creation order). */
  locationIds: number[];
  /** The raw credentials given to the internal API, one set per logistic preference, in creation order. */
  credentials: LogisticCredentials[];
}

export interface OnboardedPartner {
  id: number;
  name: string;
  email: string;
  appId: string;
  appKey: string;
  /** The raw API key secret (`pk_test_…`). */
  key: string;
  keyId: number;
  /** Tenants installed through the gateway, in the order they were authorized. */
  tenants: OnboardedTenant[];
}

export interface OnboardingPlan {
  label: string;
  tier?: 'small' | 'medium' | 'large';
  /** Tenants to create and authorize; default 1. */
  tenants?: number;
  /** Locations per tenant; default 1. */
  locations?: number;
  /** Logistic preferences per tenant; default 1. */
  logistics?: number;
}

const token = (bytes = 9) => randomBytes(bytes).toString('base64url');

/** Credentials unique to this run, long enough that the unmasked tail is never the whole secret. */
export function freshCredentials(): LogisticCredentials {
  return { username: `courier-user-${token()}`, password: `pw-${token(12)}`, apiKey: `ak_${token(15)}`, apiSecret: `as_${token(18)}` };
}

/** Creates a tenant (with locations and logistics) through the internal API, without installing it. */
export async function createTenant(internal: InternalClient, label: string, options: { locations?: number; logistics?: number } = {}): Promise<OnboardedTenant> {
  const tenant = await internal.tenants.create.mutate({ name: `${label} Store ${token(3)}` });
  const locationIds: number[] = [];
  for (let i = 1; i <= (options.locations ?? 1); i += 1) {
    const location = await internal.locations.create.mutate({
      tenantId: tenant.id,
      code: `WH-${i}`,
      name: `${label} Warehouse ${i}`,
      type: 'warehouse',
      address: `Jl. Merdeka ${i}`,
      city: 'Jakarta',
      latitude: '-6.2088',
      longitude: '106.8456',
    });
    locationIds.push(location.id);
  }
  const credentials: LogisticCredentials[] = [];
  for (let i = 1; i <= (options.logistics ?? 1); i += 1) {
    const secrets = freshCredentials();
    await internal.logisticPreferences.create.mutate({
      tenantId: tenant.id,
      logisticProviderId: 100 + i,
      logisticProviderName: `Courier ${i}`,
      availableServiceTypes: { Cargo: true, Reguler: i % 2 === 1, Crossborder: false },
      isDefault: i === 1,
      isActive: true,
      ...secrets,
      accountId: `acct-${i}`,
      accountName: null,
    });
    credentials.push(secrets);
  }
  return { id: tenant.id, locationIds, credentials };
}

/** The merchant grants the partner access to the tenant (docs/identity-and-consent.md#consent-and-installations), as the merchant dashboard's backend does through the internal API. */
export async function grantTenant(internal: InternalClient, tenantId: string, partnerId: number): Promise<void> {
  await internal.installations.grant.mutate({ tenantId, partnerId });
}

/** Authorizes `tenantId` for the partner holding `key` through the gateway (the tenant must have granted it access); expects 200. */
export async function authorizeThroughGateway(gateway: GatewayClient, key: string, tenantId: string, body: { days_connected?: number; installation_type?: string } = {}) {
  const res = await gateway.post('/api/partner/v1/tenants/authorize', { tenant_id: tenantId, days_connected: 3, installation_type: 'custom', ...body }, { key });
  expect(res.status, res.text).toBe(200);
  return res;
}

/**
 * @example
 * const a = await onboardPartner(stack.internal, gw, { label: 'Alpha', tenants: 2 });
 * await gw.get('/api/partner/v1/tenants/locations', { key: a.key, tenant: a.tenants[0]!.id });
 */
export async function onboardPartner(internal: InternalClient, gateway: GatewayClient, plan: OnboardingPlan): Promise<OnboardedPartner> {
  const suffix = token(4).toLowerCase().replace(/[^a-z0-9]/g, 'x');
  const partner = await internal.partners.create.mutate({ name: `${plan.label} Partner`, email: `dev-${suffix}@${plan.label.toLowerCase()}.example`, tier: plan.tier ?? 'small' });
  const { key, secret } = await internal.apiKeys.create.mutate({ partnerId: partner.id, environment: 'test', label: 'e2e' });
  const tenants: OnboardedTenant[] = [];
  for (let i = 0; i < (plan.tenants ?? 1); i += 1) {
    const tenant = await createTenant(internal, plan.label, { ...(plan.locations !== undefined ? { locations: plan.locations } : {}), ...(plan.logistics !== undefined ? { logistics: plan.logistics } : {}) });
    await grantTenant(internal, tenant.id, partner.id);
    await authorizeThroughGateway(gateway, secret, tenant.id);
    tenants.push(tenant);
  }
  return { id: partner.id, name: partner.name, email: partner.email, appId: partner.appId, appKey: partner.appKey, key: secret, keyId: key.id, tenants };
}
