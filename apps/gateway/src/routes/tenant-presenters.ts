// Tenant resources in the v1 contract's shapes.
import type { InstallationView, LocationRow, LogisticPreferenceView } from '@pits/persistence';

/** `data.installations[]` / `data.installation`. */
export function presentInstallation(row: InstallationView) {
  return {
    id: row.id,
    partner_id: String(row.partner_id),
    tenant_id: row.tenant_id,
    tenant_type: row.tenant_type,
    app_id: row.app_id,
    app_key: row.app_key,
    installation_type: row.installation_type,
    installed_at: row.installed_at,
    days_connected: row.days_connected,
    uninstall_at: row.uninstall_at,
    uninstall_reason: row.uninstall_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** `data.locations[]` of tenant locations. */
export function presentTenantLocation(row: LocationRow) {
  return {
    location_id: row.id,
    name: row.name,
    code: row.code,
    type: row.type,
    address: row.address,
    city: row.city,
    state: row.state,
    zip: row.zip,
    subdistrict: row.subdistrict,
    country: row.country,
    pic_name: row.pic_name,
    phone: row.phone,
    latitude: row.latitude,
    longitude: row.longitude,
    is_default: row.is_default === 1,
    is_pickup: row.is_pickup === 1,
    status: row.status,
    origin_code: row.origin_code,
    created_by: row.created_by,
    created_at: row.created_at,
  };
}

/** `data.logistics[]`: credentials already masked by persistence. */
export function presentLogisticPreference(view: LogisticPreferenceView) {
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
