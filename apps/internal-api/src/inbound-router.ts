// Inbound shipments, the internal side: internal teams announce what a location should receive
// (create), call it off while nothing has arrived (cancel), and look shipments up. Receiving is the
// warehouses' (the partners' gateway). Quantities come out as exact decimal strings, never floats.
import { z } from 'zod';
import {
  AppError,
  INBOUND_STATUSES,
  MAX_ITEMS_PER_REQUEST,
  domainError,
  fromScaled,
  isoTimestampInput,
  quantityInput,
  repeatedKeys,
  toFixedString,
  toPlainString,
} from '@pits/domain';
import { type InboundAggregate, cancelInbound, createInbound, findInbound, isUniqueViolation, listInbounds } from '@pits/persistence';
import { INTERNAL_ACTOR, definedOnly, idInput, pageFields, paginationOf, tenantId, twoPlaceDecimal } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

/** One expected line: the item id receive takes, its product, and how much is expected, received and still pending. */
export interface InboundLineOutput {
  id: number;
  product: { id: number; sku: string; name: string };
  /** Exact decimal strings; `pending = expected - receivedGood - receivedDamaged`. */
  expected: string;
  receivedGood: string;
  receivedDamaged: string;
  pending: string;
  unit: string;
  /** Two places (`"12.50"`). */
  unitPrice: string;
  notes: string;
  gridId: string | null;
  receivedAt: string | null;
  receivedBy: string | null;
}

/** An inbound shipment as the internal API shows it. */
export interface InboundOutput {
  id: number;
  tenantId: string;
  code: string;
  inboundDate: string;
  sourceType: string;
  sourceId: number;
  sourceCode: string;
  location: { id: number; code: string; name: string };
  status: string;
  notes: string;
  receivedAt: string | null;
  cancelledAt: string | null;
  createdBy: string;
  updatedBy: string;
  createdAt: string;
  updatedAt: string;
  lines: InboundLineOutput[];
}

const quantity = (scaled: number) => toPlainString(fromScaled(scaled));

export function toInboundOutput({ shipment: s, location, details }: InboundAggregate): InboundOutput {
  return {
    id: s.id,
    tenantId: s.tenant_id,
    code: s.code,
    inboundDate: s.inbound_date,
    sourceType: s.source_type,
    sourceId: s.source_id,
    sourceCode: s.source_code,
    location: { id: location.id, code: location.code, name: location.name },
    status: s.status,
    notes: s.notes,
    receivedAt: s.received_at,
    cancelledAt: s.cancelled_at,
    createdBy: s.created_by,
    updatedBy: s.updated_by,
    createdAt: s.created_at,
    updatedAt: s.updated_at,
    lines: details.map(({ row, product }) => ({
      id: row.id,
      product: { id: product.id, sku: product.sku, name: product.name },
      expected: quantity(row.expected_quantity),
      receivedGood: quantity(row.received_good),
      receivedDamaged: quantity(row.received_damaged),
      pending: quantity(row.expected_quantity - row.received_good - row.received_damaged),
      unit: row.unit,
      // PostgreSQL's numeric prints eight places and SQLite's text two: both read as two.
      unitPrice: toFixedString(row.unit_price, 2),
      notes: row.notes,
      gridId: row.grid_id,
      receivedAt: row.received_at,
      receivedBy: row.received_by,
    })),
  };
}

/**
 * Codes of this form are the tenant's generated numbers. A hand-picked one could later equal the
 * next generated number, and every create without a code would then fail on it.
 */
const GENERATED_CODE = /^INB-\d{8}-\d+$/;

const lineInput = z.strictObject({
  productId: idInput,
  expectedQuantity: quantityInput,
  unit: z.string().trim().min(1).max(20).optional(),
  /** Defaults to the product's cost price. */
  unitPrice: twoPlaceDecimal.optional(),
  notes: z.string().max(1000).optional(),
});

const createInput = z
  .strictObject({
    tenantId,
    locationId: idInput,
    sourceType: z.string().trim().min(1).max(50),
    sourceId: z.int().min(0),
    sourceCode: z.string().trim().min(1).max(100),
    code: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .refine((code) => !GENERATED_CODE.test(code), 'must not have the form INB-YYYYMMDD-NNNNNN, which generated codes use')
      .optional(),
    inboundDate: isoTimestampInput.optional(),
    notes: z.string().max(1000).optional(),
    lines: z.array(lineInput).min(1).max(MAX_ITEMS_PER_REQUEST),
  })
  .superRefine((input, ctx) => {
    for (const { index, first } of repeatedKeys(input.lines.map((line) => line.productId))) {
      ctx.addIssue({ code: 'custom', path: ['lines', index, 'productId'], message: `is the same product as lines[${first}].productId` });
    }
  });

/** The operation names lines after the partners' contract (`items[2].product_id`); here they are `lines[2].productId`. */
function onLineFields(error: unknown): unknown {
  if (!(error instanceof AppError) || error.kind !== 'VALIDATION_ERROR') return error;
  const rename = (field: string) => field.replace(/^items\[(\d+)\]\.product_id$/, 'lines[$1].productId');
  const issues = (error.error.issues ?? [error.error.details]).map((i) => ({ field: rename(i.field), issue: i.issue }));
  const first = issues[0]!;
  return new AppError(domainError('VALIDATION_ERROR', error.message, { field: first.field, issue: first.issue, issues }));
}

const shipmentRef = z.strictObject({ tenantId, id: idInput });

export const inboundRouter = router({
  /**
   * A pending shipment to the tenant's location, one line per product (1 to 500 lines, no product
   * twice). `code` defaults to the next `INB-YYYYMMDD-NNNNNN`; `inboundDate` (ISO timestamp) to now;
   * a line's `unit` to `pcs` and `unitPrice` to the product's cost price. A location or product
   * that is not the tenant's: BAD_REQUEST on `locationId` / `lines[i].productId`; a code the tenant
   * already uses: BAD_REQUEST on `code`.
   */
  create: protectedProcedure.input(createInput).mutation(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    try {
      const created = await createInbound(
        ctx.database,
        {
          tenantId: input.tenantId,
          locationId: input.locationId,
          sourceType: input.sourceType,
          sourceId: input.sourceId,
          sourceCode: input.sourceCode,
          code: input.code,
          inboundDate: input.inboundDate === undefined ? undefined : new Date(input.inboundDate),
          notes: input.notes,
          createdBy: INTERNAL_ACTOR,
          lines: input.lines.map(({ productId, expectedQuantity, ...rest }) => ({ productId, expectedQuantity, ...definedOnly(rest) })),
        },
        ctx.now(),
      );
      return toInboundOutput(created);
    } catch (error) {
      if (isUniqueViolation(error)) {
        // Without a code, only a code stored before generated codes were reserved can collide: naming one gets past it.
        const issue = input.code === undefined ? 'the generated code is taken for this tenant; give a code' : 'is taken for this tenant';
        throw new AppError(domainError('VALIDATION_ERROR', `inbound code ${input.code ?? '(generated)'} is taken for this tenant`, { field: 'code', issue }));
      }
      throw onLineFields(error);
    }
  }),

  /**
   * Calls off a pending shipment: status `cancelled`, `cancelledAt` now, and an
   * `inbound.status_changed` event. Anything but pending: CONFLICT, kind INVALID_STATE. Unknown or
   * another tenant's: NOT_FOUND on `id`.
   */
  cancel: protectedProcedure.input(shipmentRef).mutation(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    return toInboundOutput(await cancelInbound(ctx.database, { tenantId: input.tenantId, id: input.id, actor: INTERNAL_ACTOR }, ctx.now()));
  }),

  /** A page of the tenant's shipments, newest first; `status` and `locationId` filter exactly. Unknown tenant: NOT_FOUND on `tenantId`. */
  list: protectedProcedure
    .input(z.strictObject({ tenantId, status: z.enum(INBOUND_STATUSES).optional(), locationId: idInput.optional(), ...pageFields }))
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const { rows, total } = await listInbounds(ctx.database, input.tenantId, { status: input.status, locationId: input.locationId }, input);
      return { inbounds: rows.map(toInboundOutput), pagination: paginationOf(total, input, rows.length) };
    }),

  /** One shipment with its lines; unknown or another tenant's: NOT_FOUND on `id`. */
  byId: protectedProcedure.input(shipmentRef).query(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    const shipment = await findInbound(ctx.database, input.tenantId, input.id);
    if (!shipment) throw new AppError(domainError('NOT_FOUND', `inbound shipment ${input.id} does not exist`, { field: 'id' }));
    return toInboundOutput(shipment);
  }),
});
