// The transfers routes of the v1 contract: create, list, detail, approve, reject, and the ship and
// receive extension; the full and list forms of a transfer and the short forms actions return,
// with the reference's examples.
import { z } from 'zod';
import { TRANSFER_STATUSES } from '@pits/domain';
import { jakartaRefExample, jakartaWithAddressExample } from './adjustment-schemas.js';
import { TEXT_LIMITS, storedText, textField } from './text-schemas.js';
import { calendarDate, calendarDateInput, timestamp } from './date-schemas.js';
import { queryId } from './query-schemas.js';
import { MAX_PER_PAGE, simplePaginationSchema } from './pagination-schemas.js';
import { quantityInput } from './decimal-schemas.js';
import { MAX_ITEMS_PER_REQUEST, bodyId, productIdText, productRefFields, refuseRepeatedProducts, requireOneProductRef } from './line-schemas.js';
import { envelopeA } from './envelope-schemas.js';
import { actionBody, decisionTrailFields, documentListFields, documentLocationFields, documentNumber, partnerActor, rejectBody } from './document-schemas.js';
import { actorExample } from './document-schemas.js';
import { EXAMPLE_CREATED_AT, type Example } from './examples.js';
import { lotAllocations, lotPinInputField } from './lot-schemas.js';

/** `pending`, `approved`, `rejected`, `in_transit` or `completed`. */
export const transferStatus = z.enum(TRANSFER_STATUSES);

// ---------------------------------------------------------------------------------------------
// Requests

/**
 * One line of a create-transfer body, optionally pinned to one lot of a lot-tracked product
 * (docs/lots.md#holds-and-transfers). Unknown keys are ignored.
 */
export const transferLineInput = z
  .object({
    ...productRefFields,
    quantity: quantityInput,
    notes: textField({ max: TEXT_LIMITS.notes }).optional(),
    ...lotPinInputField,
  })
  .superRefine(requireOneProductRef)
  .meta({ id: 'TransferLineInput', description: 'One product line of a new transfer: product_id or sku, exactly one; lot_number pins a lot-tracked product to one lot.' });

/**
 * Body of `POST /api/partner/v1/transfers`. The two locations must differ (refused on
 * `to_location_id`), `expected_arrival_date` may not be before `transfer_date` (refused on
 * `expected_arrival_date`), and a product given twice is refused on the later line.
 *
 * @example parseWith(createTransferBody, body)
 */
export const createTransferBody = z
  .object({
    from_location_id: bodyId,
    to_location_id: bodyId,
    transfer_date: calendarDateInput,
    expected_arrival_date: calendarDateInput.optional(),
    reference_number: textField({ max: TEXT_LIMITS.code }).optional(),
    notes: textField({ max: TEXT_LIMITS.notes }).optional(),
    items: z.array(transferLineInput).min(1).max(MAX_ITEMS_PER_REQUEST),
  })
  .superRefine((body, ctx) => {
    if (body.from_location_id === body.to_location_id) {
      ctx.addIssue({ code: 'custom', path: ['to_location_id'], message: 'must differ from from_location_id' });
    }
    // Dates in YYYY-MM-DD form compare correctly as text.
    if (body.expected_arrival_date !== undefined && body.expected_arrival_date < body.transfer_date) {
      ctx.addIssue({ code: 'custom', path: ['expected_arrival_date'], message: 'must not be before transfer_date' });
    }
    refuseRepeatedProducts(body.items, ctx);
  })
  .meta({ id: 'CreateTransferBody', description: 'A stock move between two locations, pending approval.' });
export type CreateTransferBody = z.output<typeof createTransferBody>;

/** Query of `GET /api/engine/v1/transfers`: page, per_page (default 10, max 100) and five filters. */
export const transferListQuery = z
  .object({
    ...documentListFields(transferStatus),
    from_location_id: queryId.optional(),
    to_location_id: queryId.optional(),
    transfer_date_from: calendarDateInput.optional(),
    transfer_date_to: calendarDateInput.optional(),
  })
  .superRefine((query, ctx) => {
    const { transfer_date_from: from, transfer_date_to: to } = query;
    if (from !== undefined && to !== undefined && from > to) {
      ctx.addIssue({ code: 'custom', path: ['transfer_date_to'], message: 'must not be before transfer_date_from' });
    }
  })
  .meta({ id: 'TransferListQuery', description: 'Paging and filters of the transfers list.' });
export type TransferListQuery = z.output<typeof transferListQuery>;

/** Body of `PATCH /api/partner/v1/transfers/:id/reject`: `reason`, 1 to 500 characters. */
export const rejectTransferBody = rejectBody('RejectTransferBody', 'transfer');
export type RejectTransferBody = z.output<typeof rejectTransferBody>;

/** Body of approve, ship and receive: `{}` or no body; unknown keys ignored. */
export const transferActionBody = actionBody('TransferActionBody');

// ---------------------------------------------------------------------------------------------
// Responses

/** `TRF-YYYYMMDD-NNNNNN`; the id equals it. */
export const transferNumber = documentNumber('TRF');

/** A location of a created transfer: id, code, name and address (spec Transfer table). */
export const transferCreatedLocation = z
  .strictObject({ ...documentLocationFields, address: storedText(TEXT_LIMITS.address) })
  .meta({ id: 'TransferCreatedLocation', description: 'A source or destination location as create returns it.' });

/** A location of the transfer detail: the created form plus contact person and phone. */
export const transferLocation = transferCreatedLocation
  .extend({ contact_person: storedText(TEXT_LIMITS.actor), phone: storedText(TEXT_LIMITS.phone) })
  .meta({ id: 'TransferLocation', description: 'A source or destination location, with its contact.' });

/** A transfer line: total_value = quantity x unit_price (the product's cost price). */
export const transferItem = z
  .strictObject({
    id: z.int(),
    product_id: productIdText,
    product_name: storedText(TEXT_LIMITS.name),
    sku: storedText(TEXT_LIMITS.sku),
    quantity: z.number(),
    available_stock: z.number(),
    unit_price: z.number(),
    total_value: z.number(),
    notes: storedText(TEXT_LIMITS.notes),
    allocations: lotAllocations.meta({
      description:
        'The lots the line moves, first expired first out (or the one lot it names), with their quantities; the destination receives the same lots with the same dates. [] for a product without lots, and for a line that has not taken its lots yet.',
    }),
  })
  .meta({ id: 'TransferItem', description: 'A line; notes "" when none; allocations [] for a product without lots.' });

const transferHead = {
  id: transferNumber,
  transfer_number: transferNumber,
  transfer_date: calendarDate,
  expected_arrival_date: calendarDate.nullable(),
  actual_arrival_date: calendarDate.nullable(),
  reference_number: storedText(TEXT_LIMITS.code),
  status: transferStatus,
  notes: storedText(TEXT_LIMITS.notes),
  total_items: z.int().min(0),
  total_quantity: z.number(),
  ...decisionTrailFields,
  shipped_at: timestamp.nullable(),
  shipped_by: partnerActor.nullable(),
  received_at: timestamp.nullable(),
  received_by: partnerActor.nullable(),
  rejection_reason: storedText(TEXT_LIMITS.reason).nullable(),
};

const fullForm = { ...transferHead, total_value: z.number(), items: z.array(transferItem).max(MAX_ITEMS_PER_REQUEST) };

/** The full form as create returns it: locations without contact person and phone. */
export const transferCreated = z
  .strictObject({ ...fullForm, from_location: transferCreatedLocation, to_location: transferCreatedLocation })
  .meta({ id: 'TransferCreated', description: 'A new transfer with its lines; reference_number and notes are "" when none.' });

/** The detail form: the full form whose locations add contact person and phone. */
export const transferDetail = z
  .strictObject({ ...fullForm, from_location: transferLocation, to_location: transferLocation })
  .meta({ id: 'TransferDetail', description: 'A transfer with its lines; reference_number and notes are "" when none.' });

/** A list entry: locations with id, code and name only; no `total_value`, no items. */
export const transferListEntry = z
  .strictObject({
    ...transferHead,
    from_location: z.strictObject(documentLocationFields),
    to_location: z.strictObject(documentLocationFields),
  })
  .meta({ id: 'TransferListEntry', description: 'A transfer as the list shows it.' });

/** 201 of create: envelope A, `data.transfer` in full form, locations without contact person and phone. */
export const createTransferResponse = envelopeA(z.strictObject({ transfer: transferCreated })).meta({
  id: 'CreateTransferResponse',
  description: 'The created transfer.',
});

/** 200 of detail: envelope A, `data.transfer` in full form. */
export const transferDetailResponse = envelopeA(z.strictObject({ transfer: transferDetail })).meta({
  id: 'TransferDetailResponse',
  description: 'One transfer.',
});

/** 200 of list: envelope A, `data.transfers` and the simple pagination object. */
export const transferListResponse = envelopeA(
  z.strictObject({ transfers: z.array(transferListEntry).max(MAX_PER_PAGE), pagination: simplePaginationSchema }),
).meta({ id: 'TransferListResponse', description: 'A page of transfers, newest first.' });

const actionHead = { id: transferNumber, transfer_number: transferNumber };

/** 200 of approve: `data.transfer` = `{id, transfer_number, status: 'approved', approved_at, approved_by}`. */
export const approveTransferResponse = envelopeA(
  z.strictObject({
    transfer: z.strictObject({
      ...actionHead,
      status: z.literal('approved'),
      approved_at: timestamp,
      approved_by: partnerActor,
    }),
  }),
).meta({ id: 'ApproveTransferResponse', description: 'The transfer is approved; its quantities are reserved at the source.' });

/** 200 of reject: `data.transfer` = `{id, transfer_number, status: 'rejected', rejected_at, rejected_by, rejection_reason}`. */
export const rejectTransferResponse = envelopeA(
  z.strictObject({
    transfer: z.strictObject({
      ...actionHead,
      status: z.literal('rejected'),
      rejected_at: timestamp,
      rejected_by: partnerActor,
      rejection_reason: storedText(TEXT_LIMITS.reason),
    }),
  }),
).meta({ id: 'RejectTransferResponse', description: 'The transfer is rejected.' });

/** 200 of ship (extension): `data.transfer` = `{id, transfer_number, status: 'in_transit', shipped_at, shipped_by}`. */
export const shipTransferResponse = envelopeA(
  z.strictObject({
    transfer: z.strictObject({
      ...actionHead,
      status: z.literal('in_transit'),
      shipped_at: timestamp,
      shipped_by: partnerActor,
    }),
  }),
).meta({ id: 'ShipTransferResponse', description: 'The reserved goods left the source.' });

/** 200 of receive (extension): `data.transfer` = `{id, transfer_number, status: 'completed', received_at, received_by}`. */
export const receiveTransferResponse = envelopeA(
  z.strictObject({
    transfer: z.strictObject({
      ...actionHead,
      status: z.literal('completed'),
      received_at: timestamp,
      received_by: partnerActor,
    }),
  }),
).meta({ id: 'ReceiveTransferResponse', description: 'The goods arrived as good stock at the destination.' });

// ---------------------------------------------------------------------------------------------
// Examples (see `Example` in examples.ts)

/** The demo's Surabaya warehouse as transfers name it. */
const surabayaRef = { id: 2, code: 'WH-SBY-01', name: 'Gudang Surabaya' };

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
  created_by: actorExample,
  created_at: EXAMPLE_CREATED_AT,
  updated_at: EXAMPLE_CREATED_AT,
  ...transferNulls,
} as const;

export const transferDetailExample: Example<typeof transferDetail> = {
  ...pendingTransfer,
  from_location: { ...jakartaWithAddressExample, contact_person: 'Budi Santoso', phone: '+62 21 5555 0101' },
  to_location: { ...surabayaRef, address: 'Jl. Rungkut Industri III No. 21', contact_person: 'Sari Wulandari', phone: '+62 31 5555 0202' },
  total_value: 1380000,
  items: [
    { id: 1, product_id: '1', product_name: 'Kopi Arabica Gayo 250 g', sku: 'KOPI-ARABICA-250', quantity: 20, available_stock: 120, unit_price: 45000, total_value: 900000, notes: '', allocations: [] },
    { id: 2, product_id: '2', product_name: 'Teh Melati 100 g', sku: 'TEH-MELATI-100', quantity: 40, available_stock: 340, unit_price: 12000, total_value: 480000, notes: 'keep dry', allocations: [] },
  ],
};

/** What create answers: the full form, without the detail's contact fields on the locations. */
export const transferCreatedExample: Example<typeof transferCreated> = {
  ...transferDetailExample,
  from_location: jakartaWithAddressExample,
  to_location: { ...surabayaRef, address: 'Jl. Rungkut Industri III No. 21' },
};

export const transferListExample: Example<typeof transferListEntry>[] = [
  {
    ...pendingTransfer,
    from_location: jakartaRefExample,
    to_location: surabayaRef,
  },
];
