// Inbound shipments, the internal side: internal teams announce what a location should receive
// (create), call it off while nothing has arrived (cancel), and look shipments up. Receiving is the
// warehouses' (the partners' gateway). Quantities come out as exact decimal strings, never floats.
import { z } from 'zod';
import { MAX_ITEMS_PER_REQUEST, isoTimestampInput, quantityInput, repeatedKeys, safeText } from '@pits/contract';
import { AppError, INBOUND_STATUSES, domainError, toFixedString, toPlainString } from '@pits/domain';
import { type InboundRecord, cancelInbound, createInbound, findInbound, isUniqueViolation, listInbounds } from '@pits/persistence';
import { INTERNAL_ACTOR, definedOnly, idInput, pageFields, paginationOf, tenantId, twoPlaceDecimal } from './procedure-inputs.js';
import { requireTenant } from './tenant-router.js';
import { protectedProcedure, router } from './trpc.js';

/**
 * An inbound shipment as the internal API shows it, with one line per expected product: the
 * item id receive takes, and how much is expected, received (good, damaged) and still pending
 * (`expected - receivedGood - receivedDamaged`), as exact decimal strings; `unitPrice` has two
 * places. Its return type is the procedures' output type.
 *
 * @example toInboundOutput(shipment).lines[0]?.pending // '3'
 */
export function toInboundOutput(s: InboundRecord) {
  return {
    id: s.id,
    tenantId: s.tenantId,
    code: s.code,
    inboundDate: s.inboundDate,
    sourceType: s.sourceType,
    sourceId: s.sourceId,
    sourceCode: s.sourceCode,
    location: { id: s.location.id, code: s.location.code, name: s.location.name },
    status: s.status,
    notes: s.notes,
    receivedAt: s.receivedAt,
    cancelledAt: s.cancelledAt,
    createdBy: s.createdBy,
    updatedBy: s.updatedBy,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    lines: s.details.map((line) => ({
      id: line.id,
      product: { id: line.product.id, sku: line.product.sku, name: line.product.name },
      expected: toPlainString(line.expectedQuantity),
      receivedGood: toPlainString(line.receivedGood),
      receivedDamaged: toPlainString(line.receivedDamaged),
      pending: toPlainString(line.expectedQuantity.minus(line.receivedGood).minus(line.receivedDamaged)),
      unit: line.unit,
      unitPrice: toFixedString(line.unitPrice, 2),
      notes: line.notes,
      gridId: line.gridId,
      receivedAt: line.receivedAt,
      receivedBy: line.receivedBy,
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
  unit: safeText.trim().min(1).max(20).optional(),
  /** Defaults to the product's cost price. */
  unitPrice: twoPlaceDecimal.optional(),
  notes: safeText.max(1000).optional(),
});

const createInput = z
  .strictObject({
    tenantId,
    locationId: idInput,
    sourceType: safeText.trim().min(1).max(50),
    sourceId: z.int().min(0),
    sourceCode: safeText.trim().min(1).max(100),
    code: safeText
      .trim()
      .min(1)
      .max(100)
      .refine((code) => !GENERATED_CODE.test(code), 'must not have the form INB-YYYYMMDD-NNNNNN, which generated codes use')
      .optional(),
    inboundDate: isoTimestampInput.optional(),
    notes: safeText.max(1000).optional(),
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

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const inboundInputs = {
  create: createInput,
  cancel: shipmentRef,
  list: z.strictObject({ tenantId, status: z.enum(INBOUND_STATUSES).optional(), locationId: idInput.optional(), ...pageFields }),
  byId: shipmentRef,
};

export const inboundRouter = router({
  /**
   * A pending shipment to the tenant's location, one line per product (1 to 500 lines, no product
   * twice). `code` defaults to the next `INB-YYYYMMDD-NNNNNN`; `inboundDate` (ISO timestamp) to now;
   * a line's `unit` to `pcs` and `unitPrice` to the product's cost price. A location or product
   * that is not the tenant's: BAD_REQUEST on `locationId` / `lines[i].productId`; a code the tenant
   * already uses: BAD_REQUEST on `code`.
   */
  create: protectedProcedure.input(inboundInputs.create).mutation(async ({ ctx, input }) => {
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
  cancel: protectedProcedure.input(inboundInputs.cancel).mutation(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    return toInboundOutput(await cancelInbound(ctx.database, { tenantId: input.tenantId, id: input.id, actor: INTERNAL_ACTOR }, ctx.now()));
  }),

  /** A page of the tenant's shipments, newest first; `status` and `locationId` filter exactly. Unknown tenant: NOT_FOUND on `tenantId`. */
  list: protectedProcedure
    .input(inboundInputs.list)
    .query(async ({ ctx, input }) => {
      await requireTenant(ctx.database, input.tenantId);
      const { rows, total } = await listInbounds(ctx.database, input.tenantId, { status: input.status, locationId: input.locationId }, input);
      return { inbounds: rows.map(toInboundOutput), pagination: paginationOf(total, input, rows.length) };
    }),

  /** One shipment with its lines; unknown or another tenant's: NOT_FOUND on `id`. */
  byId: protectedProcedure.input(inboundInputs.byId).query(async ({ ctx, input }) => {
    await requireTenant(ctx.database, input.tenantId);
    const shipment = await findInbound(ctx.database, input.tenantId, input.id);
    if (!shipment) throw new AppError(domainError('NOT_FOUND', `inbound shipment ${input.id} does not exist`, { field: 'id' }));
    return toInboundOutput(shipment);
  }),
});
