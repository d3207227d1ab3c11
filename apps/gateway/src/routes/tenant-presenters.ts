// Tenant resources in the v1 contract's shapes.
import type { InstallationRecord, LocationRecord, LogisticPreferenceView } from '@pits/persistence';
import type * as contract from '@pits/contract';
import type { z } from 'zod';

/** `data.installations[]` / `data.installation`. */
export function presentInstallation(installation: InstallationRecord): z.input<typeof contract.installation> {
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
export function presentLogisticPreference(view: LogisticPreferenceView): z.input<typeof contract.logisticPreference> {
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
