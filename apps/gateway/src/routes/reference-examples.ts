// Example records for the reference (/openapi.json and /docs), in the values a partner sees from
// the demo data of `npm start`: the Toko Nusantara tenant, its warehouses in Jakarta (location 1)
// and Surabaya (location 2) and its products 1 to 5. Each is typed by the contract schema it
// illustrates, so the compiler refuses a dropped or renamed field; the reference check validates
// every example again against the published document.
import type {
  adjustmentCreated,
  adjustmentDetail,
  adjustmentListEntry,
  area,
  inboundDetail,
  inboundDetailLine,
  inboundListEntry,
  inboundLocation,
  inboundProduct,
  installation,
  logisticPreference,
  morePaginationSchema,
  partnerActor,
  rangePaginationSchema,
  reservation,
  simplePaginationSchema,
  stockLevelEntry,
  stockMovementEntry,
  tenantLocation,
  transferCreated,
  transferDetail,
  transferListEntry,
  webhookDelivery,
  webhookEndpoint,
} from '@pits/contract';
import type { z } from 'zod';

type Example<S extends z.ZodType> = z.input<S>;

export const TENANT_ID = '0b6f1c52-3a5e-4d8b-9a51-2f0c7e9d4a11';
export const INVITED_TENANT_ID = '7d2e4f10-8c3b-4a6e-b1d5-93f0a2c6e845';
const CREATED = '2026-11-22T09:30:12.481Z';
const LATER = '2026-11-22T10:04:55.120Z';

export const actor: Example<typeof partnerActor> = { id: 1, name: 'Demo Partner', email: 'developers@demo-partner.example' };

/** The figures of a first page holding `count` of `total` records. */
export function simplePage(total: number, perPage = 10): Example<typeof simplePaginationSchema> {
  return { current_page: 1, per_page: perPage, total, last_page: Math.max(1, Math.ceil(total / perPage)) };
}
export function rangePage(total: number, perPage = 20): Example<typeof rangePaginationSchema> {
  return { ...simplePage(total, perPage), from: total === 0 ? null : 1, to: total === 0 ? null : Math.min(total, perPage) };
}
export function morePage(total: number, perPage = 10): Example<typeof morePaginationSchema> {
  return { ...rangePage(total, perPage), has_more_pages: total > perPage };
}

// ---------------------------------------------------------------------------------------------
// Tenants

export const installationExample: Example<typeof installation> = {
  id: '476c5f5d-bc67-408b-946b-56267ebb86b7',
  partner_id: '1',
  tenant_id: TENANT_ID,
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

export const jakartaLocation: Example<typeof tenantLocation> = {
  location_id: 1,
  name: 'Gudang Jakarta Barat',
  code: 'WH-JKT-01',
  type: 'warehouse',
  address: 'Jl. Daan Mogot KM 12 No. 8',
  city: 'Kota Jakarta Barat',
  state: 'Daerah Khusus Ibukota Jakarta',
  zip: '11730',
  subdistrict: 'Cengkareng Barat',
  country: 'Indonesia',
  pic_name: 'Budi Santoso',
  phone: '+62 21 5555 0101',
  latitude: '-6.14590000',
  longitude: '106.72910000',
  is_default: true,
  is_pickup: true,
  status: 'active',
  origin_code: null,
  created_by: 'ops.jakarta',
  created_at: '2026-03-02T01:00:00.000Z',
};

export const surabayaLocation: Example<typeof tenantLocation> = {
  ...jakartaLocation,
  location_id: 2,
  name: 'Gudang Surabaya',
  code: 'WH-SBY-01',
  address: 'Jl. Rungkut Industri III No. 21',
  city: 'Kota Surabaya',
  state: 'Jawa Timur',
  zip: '60293',
  subdistrict: 'Kali Rungkut',
  pic_name: 'Sari Wulandari',
  phone: '+62 31 5555 0202',
  latitude: '-7.32910000',
  longitude: '112.76630000',
  is_default: false,
  created_at: '2026-05-19T03:20:00.000Z',
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

// ---------------------------------------------------------------------------------------------
// Adjustments

const jakartaRef = { id: 1, code: 'WH-JKT-01', name: 'Gudang Jakarta Barat' };
const jakartaWithAddress = { ...jakartaRef, address: 'Jl. Daan Mogot KM 12 No. 8' };
const surabayaRef = { id: 2, code: 'WH-SBY-01', name: 'Gudang Surabaya' };

/** A pending adjustment's state fields: created by the demo partner, not yet decided. */
const pendingAdjustment = {
  status: 'pending',
  created_by: actor,
  created_at: CREATED,
  updated_at: CREATED,
  approved_at: null,
  approved_by: null,
  rejected_at: null,
  rejected_by: null,
  rejection_reason: null,
} as const;

export const adjustmentCreatedExample: Example<typeof adjustmentCreated> = {
  id: 'ADJ-20261122-000004',
  adjustment_number: 'ADJ-20261122-000004',
  location: jakartaWithAddress,
  type: 'increase',
  stock_source: 'good',
  reason: 'Cycle count correction',
  total_amount: 144000,
  item_count: 1,
  ...pendingAdjustment,
  items: [{ id: 5, product_id: '2', product_name: 'Teh Melati 100 g', sku: 'TEH-MELATI-100', type: 'increase', quantity: 12, unit_cost: 12000, total_cost: 144000, notes: 'rak B4' }],
};

export const adjustmentDetailExample: Example<typeof adjustmentDetail> = {
  id: 'ADJ-20261122-000003',
  adjustment_number: 'ADJ-20261122-000003',
  location: jakartaWithAddress,
  type: 'decrease',
  stock_source: 'good',
  reason: 'Cycle count: fewer on the shelf than recorded',
  total_amount: 150000,
  item_count: 2,
  ...pendingAdjustment,
  items: [
    { id: 3, product_id: '2', product_name: 'Teh Melati 100 g', sku: 'TEH-MELATI-100', type: 'decrease', quantity: 5, unit_cost: 12000, total_cost: 60000, notes: '', current_stock: 340 },
    { id: 4, product_id: '1', product_name: 'Kopi Arabica Gayo 250 g', sku: 'KOPI-ARABICA-250', type: 'decrease', quantity: 2, unit_cost: 45000, total_cost: 90000, notes: 'torn bags', current_stock: 120 },
  ],
};

export const adjustmentListExample: Example<typeof adjustmentListEntry>[] = [
  {
    id: 'ADJ-20261122-000003',
    adjustment_number: 'ADJ-20261122-000003',
    location: jakartaRef,
    type: 'decrease',
    reason: 'Cycle count: fewer on the shelf than recorded',
    status: 'pending',
    total_amount: 150000,
    item_count: 2,
    created_at: CREATED,
    updated_at: CREATED,
  },
];

// ---------------------------------------------------------------------------------------------
// Transfers

const transferNulls = {
  actual_arrival_date: null,
  approved_at: null,
  approved_by: null,
  rejected_at: null,
  rejected_by: null,
  shipped_at: null,
  shipped_by: null,
  received_at: null,
  received_by: null,
  rejection_reason: null,
} as const;

/** What the list entry and the full form of the pending demo transfer share. */
const pendingTransfer = {
  id: 'TRF-20261122-000001',
  transfer_number: 'TRF-20261122-000001',
  transfer_date: '2026-11-22',
  expected_arrival_date: '2026-11-25',
  reference_number: 'REPL-SBY-0001',
  status: 'pending',
  notes: 'Weekly replenishment for Surabaya',
  total_items: 2,
  total_quantity: 60,
  created_by: actor,
  created_at: CREATED,
  updated_at: CREATED,
  ...transferNulls,
} as const;

export const transferDetailExample: Example<typeof transferDetail> = {
  ...pendingTransfer,
  from_location: { ...jakartaWithAddress, contact_person: 'Budi Santoso', phone: '+62 21 5555 0101' },
  to_location: { ...surabayaRef, address: 'Jl. Rungkut Industri III No. 21', contact_person: 'Sari Wulandari', phone: '+62 31 5555 0202' },
  total_value: 1380000,
  items: [
    { id: 1, product_id: '1', product_name: 'Kopi Arabica Gayo 250 g', sku: 'KOPI-ARABICA-250', quantity: 20, available_stock: 120, unit_price: 45000, total_value: 900000, notes: '' },
    { id: 2, product_id: '2', product_name: 'Teh Melati 100 g', sku: 'TEH-MELATI-100', quantity: 40, available_stock: 340, unit_price: 12000, total_value: 480000, notes: 'keep dry' },
  ],
};

/** What create answers: the full form, without the detail's contact fields on the locations. */
export const transferCreatedExample: Example<typeof transferCreated> = {
  ...transferDetailExample,
  from_location: jakartaWithAddress,
  to_location: { ...surabayaRef, address: 'Jl. Rungkut Industri III No. 21' },
};

export const transferListExample: Example<typeof transferListEntry>[] = [
  {
    ...pendingTransfer,
    from_location: jakartaRef,
    to_location: surabayaRef,
  },
];

// ---------------------------------------------------------------------------------------------
// Stock

export const stockLevelExample: Example<typeof stockLevelEntry> = {
  location_id: 1,
  product_id: '1',
  sku: 'KOPI-ARABICA-250',
  product_name: 'Kopi Arabica Gayo 250 g',
  good: 120,
  damaged: 0,
  reserved: 20,
  reserved_for_transfers: 12,
  reserved_for_orders: 8,
  available: 100,
  version: 14,
};

export const stockMovementExample: Example<typeof stockMovementEntry> = {
  id: '7',
  location_id: 1,
  product_id: '5',
  sku: 'KERUPUK-UDANG-500',
  bucket: 'good',
  quantity_change: 48,
  quantity_before: 0,
  quantity_after: 48,
  cause_type: 'adjustment',
  cause_id: 'ADJ-20261122-000001',
  document_number: 'ADJ-20261122-000001',
  actor: 'partner:1:Demo Partner',
  occurred_at: CREATED,
};

// ---------------------------------------------------------------------------------------------
// Reservations (order holds)

/** An active hold of 15 minutes (the default expiry) for a marketplace order. */
export const reservationExample: Example<typeof reservation> = {
  id: 'RSV-20261122-000001',
  reservation_number: 'RSV-20261122-000001',
  reference: 'TOKO-ORDER-58213',
  location_id: 1,
  status: 'active',
  expires_at: '2026-11-22T09:45:12.481Z',
  created_at: CREATED,
  updated_at: CREATED,
  consumed_at: null,
  released_at: null,
  release_reason: null,
  created_by: actor,
  items: [
    { product_id: '1', sku: 'KOPI-ARABICA-250', product_name: 'Kopi Arabica Gayo 250 g', quantity: 2, consumed_quantity: 0 },
    { product_id: '2', sku: 'TEH-MELATI-100', product_name: 'Teh Melati 100 g', quantity: 6, consumed_quantity: 0 },
  ],
};

/** The same hold, given a new expiry an hour after the call. */
export const reservationExtendedExample: Example<typeof reservation> = {
  ...reservationExample,
  expires_at: '2026-11-22T11:04:55.120Z',
  updated_at: LATER,
};

/** The same hold after the order was cancelled. */
export const reservationReleasedExample: Example<typeof reservation> = {
  ...reservationExample,
  status: 'released',
  updated_at: LATER,
  released_at: LATER,
  release_reason: 'Customer cancelled the order',
};

/** The same hold after a partial shipment: 4 of the 6 tea packs shipped, the other 2 released. */
export const reservationConsumedExample: Example<typeof reservation> = {
  ...reservationExample,
  status: 'consumed',
  updated_at: LATER,
  consumed_at: LATER,
  items: [
    { product_id: '1', sku: 'KOPI-ARABICA-250', product_name: 'Kopi Arabica Gayo 250 g', quantity: 2, consumed_quantity: 2 },
    { product_id: '2', sku: 'TEH-MELATI-100', product_name: 'Teh Melati 100 g', quantity: 6, consumed_quantity: 4 },
  ],
};

// ---------------------------------------------------------------------------------------------
// Inbound

export const productExample: Example<typeof inboundProduct> = {
  product_id: 1,
  category_id: 12,
  name: 'Kopi Arabica Gayo 250 g',
  sku: 'KOPI-ARABICA-250',
  barcode: '8991234500017',
  description: 'Single-origin arabica from Aceh Tengah, medium roast, ground.',
  brand: 'Nusantara',
  product_type: 'physical',
  published_price: '65000.00',
  cost_price: '45000.00',
  weight: '0.25',
  width: '10.00',
  height: '18.00',
  length: '6.00',
  status: 'published',
  is_bundle: false,
  is_managed_by_fulfillment: true,
  advance_qc: false,
  production_batch: false,
  cold_storage: false,
  fulfillment_manage_by: null,
  outbound_expired: 0,
  inbound_expired: 0,
  outer_barcode: null,
  created_by: 'ops.jakarta',
  updated_by: 'ops.jakarta',
  deleted_by: null,
  created_at: '2026-03-02T01:10:00.000Z',
  updated_at: '2026-03-02T01:10:00.000Z',
  deleted_at: null,
};

const inboundLineExample: Example<typeof inboundDetailLine> = {
  inbound_detail_id: 1,
  inbound_id: 1,
  product_id: 1,
  expected_quantity: 60,
  notes: '',
  created_by: 'ops.purchasing',
  updated_by: 'ops.purchasing',
  deleted_by: null,
  received_by: null,
  deleted_at: null,
  created_at: CREATED,
  updated_at: CREATED,
  product: productExample,
};

const inboundLocationExample: Example<typeof inboundLocation> = {
  ...jakartaLocation,
  is_return: false,
  updated_by: 'ops.jakarta',
  deleted_by: null,
  deleted_at: null,
  updated_at: '2026-03-02T01:00:00.000Z',
};

export const inboundListExample: Example<typeof inboundListEntry>[] = [
  {
    inbound_id: 1,
    code: 'INB-20261122-000001',
    inbound_date: '2026-11-22T09:30:12.481000Z',
    source_type: 'purchase',
    source_id: 118,
    source_code: 'PO-2026-0118',
    location_id: 1,
    status: 'pending',
    received_at: null,
    cancelled_at: null,
    notes: 'Supplier Gayo: monthly coffee',
    created_by: 'ops.purchasing',
    updated_by: 'ops.purchasing',
    created_at: CREATED,
    updated_at: CREATED,
    details: [inboundLineExample],
    details_count: 1,
    location: inboundLocationExample,
    inbound_details: [inboundLineExample],
  },
];

export const inboundDetailExample: Example<typeof inboundDetail> = {
  id: '1',
  reference_number: 'INB-20261122-000001',
  status: 'partial',
  location: { id: '1', code: 'WH-JKT-01', name: 'Gudang Jakarta Barat', address: 'Jl. Daan Mogot KM 12 No. 8' },
  items: [
    {
      id: '1', product_id: 1, sku: 'KOPI-ARABICA-250', name: 'Kopi Arabica Gayo 250 g', quantity: 60, unit: 'pcs', unit_price: 45000, expected_quantity: 60,
      good_received_quantity: 60, damaged_received_quantity: 0, grid_id: 'A-01-03', received_at: LATER, received_by: 'Budi Santoso',
    },
    {
      id: '2', product_id: 3, sku: 'SAMBAL-BAWANG-200', name: 'Sambal Bawang 200 ml', quantity: 24, unit: 'pcs', unit_price: 21000, expected_quantity: 24,
      good_received_quantity: 18, damaged_received_quantity: 2, grid_id: 'RCV-01', received_at: LATER, received_by: 'Budi Santoso',
    },
  ],
  notes: 'Supplier Gayo: monthly coffee',
  created_at: CREATED,
  updated_at: LATER,
};

// ---------------------------------------------------------------------------------------------
// Webhooks and areas

export const webhookEndpointExample: Example<typeof webhookEndpoint> = {
  id: '1',
  url: 'https://hooks.gudang-app.example/pits/events',
  event_types: ['inbound.status_changed', 'adjustment.status_changed', 'transfer.status_changed'],
  description: 'warehouse app',
  is_active: true,
  created_at: CREATED,
  updated_at: CREATED,
};

export const deliveryExample: Example<typeof webhookDelivery> = {
  id: '5',
  event_id: 'b27e4e94-3ced-4fb1-acd0-d4b3d328629e',
  event_type: 'inbound.status_changed',
  endpoint_id: '1',
  url: 'https://hooks.gudang-app.example/pits/events',
  status: 'succeeded',
  attempts: 2,
  next_attempt_at: null,
  last_status_code: 200,
  last_error: null,
  delivered_at: '2026-11-22T10:05:26.304Z',
  created_at: '2026-11-22T10:04:55.120Z',
  attempt_log: [
    { attempt: 1, started_at: '2026-11-22T10:04:55.388Z', duration_ms: 10001, status_code: null, error: 'timeout after 10000 ms', response_body: null, succeeded: false },
    { attempt: 2, started_at: '2026-11-22T10:05:26.190Z', duration_ms: 114, status_code: 200, error: null, response_body: '{"received":true}', succeeded: true },
  ],
};

export const areaExample: Example<typeof area> = {
  region_id: 25639,
  country: 'Indonesia',
  country_code: 'ID',
  state: 'Daerah Khusus Ibukota Jakarta',
  state_code: '31',
  city: 'Kota Administrasi Jakarta Barat',
  city_code: '31.73',
  district: 'Cengkareng',
  district_code: '31.73.01',
  subdistrict: 'Cengkareng Barat',
  subdistrict_code: '31.73.01.1001',
  postcode: '11730',
  longitude: '106.72379100',
  latitude: '-6.13867708',
};
