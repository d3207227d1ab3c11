// The inbound routes of the v1 contract: the list (envelope B, Laravel-style rows with embedded
// product and location), the detail (envelope A), and receive; with the reference's examples.
import { z } from 'zod';
import { INBOUND_STATUSES } from '@pits/domain';
import { requiredOr } from './field-messages.js';
import { TEXT_LIMITS, digitText, safeTextCheck, storedText, textField } from './text-schemas.js';
import { isoTimestampInput, microsecondTimestamp, timestamp } from './date-schemas.js';
import { queryId } from './query-schemas.js';
import { MAX_PER_PAGE, pageQuery, perPageQuery, rangePaginationSchema } from './pagination-schemas.js';
import { decimalString, fixedDecimalString, quantityInput } from './decimal-schemas.js';
import { MAX_ITEMS_PER_REQUEST, repeatedKeys, skuInput } from './line-schemas.js';
import { envelopeA, envelopeB } from './envelope-schemas.js';
import { EXAMPLE_CREATED_AT, EXAMPLE_LATER_AT, type Example } from './examples.js';
import { lotLineInputFields, refuseProductionAfterExpiry } from './lot-schemas.js';

/** `pending`, `partial`, `received` or `cancelled`. */
export const inboundStatus = z.enum(INBOUND_STATUSES);

// ---------------------------------------------------------------------------------------------
// Requests

/** Query of `GET /api/partner/v1/inbound`: page, per_page (default 20, max 100), status, location_id. */
export const inboundListQuery = z
  .object({
    page: pageQuery,
    per_page: perPageQuery(20),
    status: inboundStatus.optional(),
    location_id: queryId.optional(),
  })
  .meta({ id: 'InboundListQuery', description: 'Paging and filters of the inbound list.' });
export type InboundListQuery = z.output<typeof inboundListQuery>;

/**
 * One line of a receive body. `condition` (default `good`) and `grid_id` are extensions; so is the
 * lot of a lot-tracked product, whose shelf life the server checks against the product's
 * inbound_expired (docs/lots.md#receiving).
 */
export const receiptLineInput = z
  .object({
    item_id: z
      .string({ error: requiredOr('must be a string of digits') })
      .superRefine(safeTextCheck)
      .regex(/^\d+$/, { error: 'must be a string of digits' })
      .meta({ maxLength: TEXT_LIMITS.echo })
      .optional(),
    sku: skuInput.optional(),
    received_quantity: quantityInput,
    received_at: isoTimestampInput.optional(),
    received_by: textField({ trim: true, min: 1, max: TEXT_LIMITS.actor }).optional(),
    condition: z.enum(['good', 'damaged']).default('good'),
    grid_id: textField({ trim: true, min: 1, max: TEXT_LIMITS.code }).optional(),
    ...lotLineInputFields,
  })
  .superRefine((line, ctx) => {
    if (line.item_id !== undefined && line.sku !== undefined) ctx.addIssue({ code: 'custom', path: ['sku'], message: 'must not be given together with item_id' });
    if (line.item_id === undefined && line.sku === undefined) ctx.addIssue({ code: 'custom', path: ['item_id'], message: 'is required (or give sku instead)' });
  })
  .superRefine(refuseProductionAfterExpiry)
  .meta({
    id: 'ReceiptLineInput',
    description:
      "One received line: item_id is the detail's items[].id; or sku names the shipment's line of that product (exactly one of the two). lot_number (and the dates of a new lot) for a lot-tracked product: a lot with less shelf life left than the product's inbound_expired is refused with 422 SHELF_LIFE_TOO_SHORT.",
  });

/**
 * Body of `POST /api/partner/v1/inbound/{id}/receive`: 1 to 500 lines, no `item_id` twice (refused
 * on the later line's `items[i].item_id`; so one lot per item and receipt). Quantities come out as
 * canonical decimal strings.
 *
 * @example parseWith(receiveInboundBody, { items: [{ item_id: '9001', received_quantity: 5 }] })
 */
export const receiveInboundBody = z
  .object({ items: z.array(receiptLineInput).min(1).max(MAX_ITEMS_PER_REQUEST) })
  .superRefine((body, ctx) => {
    // '07' and '7' name the same item. A line named by item_id and another by SKU are compared once the SKU is resolved.
    const keys = body.items.map((item) => (item.item_id !== undefined ? item.item_id.replace(/^0+(?=\d)/, '') : item.sku === undefined ? undefined : `sku:${item.sku}`));
    for (const { index, first } of repeatedKeys(keys)) {
      const field = body.items[index]!.item_id !== undefined ? 'item_id' : 'sku';
      ctx.addIssue({
        code: 'custom',
        path: ['items', index, field],
        message: `is the same item as items[${first}].${field}`,
      });
    }
  })
  .meta({ id: 'ReceiveInboundBody', description: 'Quantities received against an inbound shipment.' });
export type ReceiveInboundBody = z.output<typeof receiveInboundBody>;

// ---------------------------------------------------------------------------------------------
// Responses

const twoDecimals = fixedDecimalString(2);

/** The product embedded in inbound details; prices and dimensions are strings with two decimals. */
export const inboundProduct = z
  .strictObject({
    product_id: z.int(),
    category_id: z.int(),
    name: storedText(TEXT_LIMITS.name),
    sku: storedText(TEXT_LIMITS.sku),
    barcode: storedText(TEXT_LIMITS.sku),
    description: storedText(TEXT_LIMITS.productDescription),
    brand: storedText(TEXT_LIMITS.description).nullable(),
    product_type: storedText(TEXT_LIMITS.label),
    published_price: twoDecimals,
    cost_price: twoDecimals,
    weight: twoDecimals,
    width: twoDecimals,
    height: twoDecimals,
    length: twoDecimals,
    status: storedText(TEXT_LIMITS.label),
    is_bundle: z.boolean(),
    is_managed_by_fulfillment: z.boolean(),
    advance_qc: z.boolean(),
    production_batch: z.boolean(),
    cold_storage: z.boolean(),
    fulfillment_manage_by: storedText(TEXT_LIMITS.code).nullable(),
    outbound_expired: z.int(),
    inbound_expired: z.int(),
    outer_barcode: storedText(TEXT_LIMITS.sku).nullable(),
    created_by: storedText(TEXT_LIMITS.actor),
    updated_by: storedText(TEXT_LIMITS.actor),
    deleted_by: storedText(TEXT_LIMITS.actor).nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    deleted_at: timestamp.nullable(),
  })
  .meta({ id: 'Product', description: 'A product as embedded in inbound details.' });

const locationFields = {
  location_id: z.int(),
  name: storedText(TEXT_LIMITS.name),
  code: storedText(TEXT_LIMITS.code),
  type: storedText(TEXT_LIMITS.label),
  address: storedText(TEXT_LIMITS.address),
  city: storedText(TEXT_LIMITS.place),
  state: storedText(TEXT_LIMITS.place),
  zip: storedText(TEXT_LIMITS.zip),
  subdistrict: storedText(TEXT_LIMITS.place),
  country: storedText(TEXT_LIMITS.place),
  pic_name: storedText(TEXT_LIMITS.actor),
  phone: storedText(TEXT_LIMITS.phone),
  latitude: decimalString,
  longitude: decimalString,
  is_default: z.boolean(),
  is_pickup: z.boolean(),
  status: storedText(TEXT_LIMITS.label),
  origin_code: storedText(TEXT_LIMITS.label).nullable(),
  created_by: storedText(TEXT_LIMITS.actor),
  created_at: timestamp,
};

/** A location as the tenant locations list returns it. */
export const tenantLocation = z
  .strictObject(locationFields)
  .meta({ id: 'TenantLocation', description: 'A location of the tenant.' });

/** A location as the inbound list embeds it: adds is_return, updated_by, deleted_by, deleted_at, updated_at. */
export const inboundLocation = z
  .strictObject({
    ...locationFields,
    is_return: z.boolean(),
    updated_by: storedText(TEXT_LIMITS.actor),
    deleted_by: storedText(TEXT_LIMITS.actor).nullable(),
    deleted_at: timestamp.nullable(),
    updated_at: timestamp,
  })
  .meta({ id: 'InboundLocation', description: 'The receiving location of an inbound shipment.' });

/** One line of an inbound list entry (`details` and `inbound_details`). */
export const inboundDetailLine = z
  .strictObject({
    inbound_detail_id: z.int(),
    inbound_id: z.int(),
    product_id: z.int(),
    expected_quantity: z.number(),
    notes: storedText(TEXT_LIMITS.notes),
    created_by: storedText(TEXT_LIMITS.actor).nullable(),
    updated_by: storedText(TEXT_LIMITS.actor).nullable(),
    deleted_by: storedText(TEXT_LIMITS.actor).nullable(),
    received_by: storedText(TEXT_LIMITS.actor).nullable(),
    deleted_at: timestamp.nullable(),
    created_at: timestamp,
    updated_at: timestamp,
    product: inboundProduct,
  })
  .meta({ id: 'InboundDetailLine', description: 'An expected product line of an inbound shipment.' });

/** An entry of `data.inbounds`; `inbound_date` carries microseconds. */
export const inboundListEntry = z
  .strictObject({
    inbound_id: z.int(),
    code: storedText(TEXT_LIMITS.code),
    inbound_date: microsecondTimestamp,
    source_type: storedText(TEXT_LIMITS.label),
    source_id: z.int(),
    source_code: storedText(TEXT_LIMITS.code),
    location_id: z.int(),
    status: inboundStatus,
    received_at: timestamp.nullable(),
    cancelled_at: timestamp.nullable(),
    notes: storedText(TEXT_LIMITS.notes),
    created_by: storedText(TEXT_LIMITS.actor),
    updated_by: storedText(TEXT_LIMITS.actor),
    created_at: timestamp,
    updated_at: timestamp,
    details: z.array(inboundDetailLine).max(MAX_ITEMS_PER_REQUEST),
    details_count: z.int().min(0),
    location: inboundLocation,
    inbound_details: z.array(inboundDetailLine).max(MAX_ITEMS_PER_REQUEST),
  })
  .meta({ id: 'InboundListEntry', description: 'An inbound shipment as the list shows it.' });

/** 200 of list: envelope B, `data.inbounds` and the range pagination object. */
export const inboundListResponse = envelopeB(
  z.strictObject({ inbounds: z.array(inboundListEntry).max(MAX_PER_PAGE), pagination: rangePaginationSchema }),
).meta({ id: 'InboundListResponse', description: 'A page of inbound shipments, newest first.' });

/**
 * A line of the inbound detail. `received_at` and `received_by` are null until the line's first
 * receipt (the spec shows only received lines).
 */
export const inboundItem = z
  .strictObject({
    id: digitText,
    product_id: z.int(),
    sku: storedText(TEXT_LIMITS.sku),
    name: storedText(TEXT_LIMITS.name),
    quantity: z.number(),
    unit: storedText(TEXT_LIMITS.label),
    unit_price: z.number(),
    expected_quantity: z.number(),
    good_received_quantity: z.number(),
    damaged_received_quantity: z.number(),
    grid_id: storedText(TEXT_LIMITS.code),
    received_at: timestamp.nullable(),
    received_by: storedText(TEXT_LIMITS.actor).nullable(),
  })
  .meta({ id: 'InboundItem', description: 'A line of an inbound shipment; id is the item_id receive takes.' });

/** The detail shape, `data.inbound`: `id` is the list's inbound_id as a string. */
export const inboundDetail = z
  .strictObject({
    id: digitText,
    reference_number: storedText(TEXT_LIMITS.code),
    status: inboundStatus,
    location: z.strictObject({ id: digitText, code: storedText(TEXT_LIMITS.code), name: storedText(TEXT_LIMITS.name), address: storedText(TEXT_LIMITS.address) }),
    items: z.array(inboundItem).max(MAX_ITEMS_PER_REQUEST),
    notes: storedText(TEXT_LIMITS.notes),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'InboundDetail', description: 'One inbound shipment.' });

/** 200 of detail: envelope A, `data.inbound`. */
export const inboundDetailResponse = envelopeA(z.strictObject({ inbound: inboundDetail })).meta({
  id: 'InboundDetailResponse',
  description: 'One inbound shipment.',
});

/** 200 of receive: envelope A, `data.inbound` with the cumulative figures of the received lines. */
export const receiveInboundResponse = envelopeA(
  z.strictObject({
    inbound: z.strictObject({
      id: digitText,
      status: inboundStatus,
      updated_at: timestamp,
      items: z.array(
        z.strictObject({
          id: digitText,
          product_id: z.int(),
          sku: storedText(TEXT_LIMITS.sku),
          received_quantity: z.number(),
          pending_quantity: z.number(),
          grid_id: storedText(TEXT_LIMITS.code),
          received_at: timestamp,
          received_by: storedText(TEXT_LIMITS.actor),
        }),
      ).max(MAX_ITEMS_PER_REQUEST),
    }),
  }),
).meta({ id: 'ReceiveInboundResponse', description: 'The shipment after the receipt.' });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

export const jakartaLocationExample: Example<typeof tenantLocation> = {
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

export const surabayaLocationExample: Example<typeof tenantLocation> = {
  ...jakartaLocationExample,
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
  created_at: EXAMPLE_CREATED_AT,
  updated_at: EXAMPLE_CREATED_AT,
  product: productExample,
};

const inboundLocationExample: Example<typeof inboundLocation> = {
  ...jakartaLocationExample,
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
    created_at: EXAMPLE_CREATED_AT,
    updated_at: EXAMPLE_CREATED_AT,
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
      good_received_quantity: 60, damaged_received_quantity: 0, grid_id: 'A-01-03', received_at: EXAMPLE_LATER_AT, received_by: 'Budi Santoso',
    },
    {
      id: '2', product_id: 3, sku: 'SAMBAL-BAWANG-200', name: 'Sambal Bawang 200 ml', quantity: 24, unit: 'pcs', unit_price: 21000, expected_quantity: 24,
      good_received_quantity: 18, damaged_received_quantity: 2, grid_id: 'RCV-01', received_at: EXAMPLE_LATER_AT, received_by: 'Budi Santoso',
    },
  ],
  notes: 'Supplier Gayo: monthly coffee',
  created_at: EXAMPLE_CREATED_AT,
  updated_at: EXAMPLE_LATER_AT,
};
