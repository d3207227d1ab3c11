// A partner's webhook endpoints, registered by internal teams on its behalf: the URL must pass the
// policy of docs/webhooks.md#endpoint-urls (the same rule as the gateway's), the signing secret is
// returned by create only and stored encrypted with the configured key; an endpoint's event types
// can be changed and it can be paused; recent deliveries can be read and a finished one sent again.
import { z } from 'zod';
import { safeText, safeTextCheck, webhookEventType } from '@pits/contract';
import { AppError, checkWebhookUrlForRegistration, domainError } from '@pits/domain';
import {
  type DeliveryView,
  type WebhookEndpointRecord,
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listDeliveries,
  listWebhookEndpoints,
  redeliver,
  updateWebhookEndpoint,
  withTransaction,
} from '@pits/persistence';
import { requirePartner } from './partner-router.js';
import { idInput } from './procedure-inputs.js';
import { protectedProcedure, router } from './trpc.js';

/** Event types of an input: at least one, none twice (a repeat is refused on its index). */
const eventTypes = z
  .array(webhookEventType)
  .min(1)
  .superRefine((types, ctx) => {
    types.forEach((type, index) => {
      if (types.indexOf(type) !== index) ctx.addIssue({ code: 'custom', path: [index], message: 'is listed twice' });
    });
  });

const createInput = z.strictObject({
  partnerId: idInput,
  url: z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).max(2000).superRefine(safeTextCheck),
  eventTypes,
  description: safeText.trim().max(200).optional(),
});

const updateInput = z
  .strictObject({ partnerId: idInput, id: idInput, eventTypes: eventTypes.optional(), active: z.boolean({ error: 'must be true or false' }).optional() })
  .superRefine((input, ctx) => {
    if (input.eventTypes === undefined && input.active === undefined) ctx.addIssue({ code: 'custom', path: [], message: 'must give eventTypes, active or both' });
  });

/** The operations name a delivery after the partners' path parameter (`id`); here the input is `deliveryId`. */
function onDeliveryId(error: unknown): unknown {
  if (error instanceof AppError && error.error.details.field === 'id') {
    return new AppError(domainError(error.kind, error.message, { field: 'deliveryId', issue: error.error.details.issue }));
  }
  return error;
}

/** The schema each procedure parses its input with, by procedure (gathered in router.ts as `procedureInputs`). */
export const webhookInputs = {
  create: createInput,
  list: z.strictObject({ partnerId: idInput }),
  update: updateInput,
  delete: z.strictObject({ partnerId: idInput, id: idInput }),
  deliveries: z.strictObject({
    partnerId: idInput,
    limit: z.int().min(1).max(100).default(20),
    status: z.enum(['pending', 'succeeded', 'failed']).optional(),
    endpointId: idInput.optional(),
  }),
  redeliver: z.strictObject({ partnerId: idInput, deliveryId: idInput }),
};

export const webhookRouter = router({
  /**
   * A new endpoint of the partner for the given event types. `secret` (`whsec_…`) signs its
   * deliveries; it is shown here once and no procedure returns it again. Unknown partner:
   * NOT_FOUND on `partnerId`. A URL that is not https, carries user information, or points to a
   * host that is not public (in any spelling, or by what its name resolves to), or a name that
   * does not resolve: BAD_REQUEST, kind VALIDATION_ERROR on `url`.
   */
  // The host name is resolved before the transaction opens, so no lock waits on DNS.
  create: protectedProcedure
    .meta({ ownTransaction: true })
    .input(webhookInputs.create)
    .mutation(async ({ ctx, input }): Promise<{ endpoint: WebhookEndpointRecord; secret: string }> => {
      await requirePartner(ctx.database, input.partnerId);
      const allowed = await checkWebhookUrlForRegistration(input.url, ctx.webhookUrls.policy, ctx.webhookUrls.resolve);
      if (!allowed.ok) throw new AppError(allowed.error);
      const { url, eventTypes, description } = input;
      return withTransaction(ctx.database, (tx) => createWebhookEndpoint(tx, ctx.cipher, input.partnerId, { url, eventTypes, description }, ctx.now()));
    }),

  /** The partner's endpoints, by id, without their secrets. */
  list: protectedProcedure
    .input(webhookInputs.list)
    .query(async ({ ctx, input }): Promise<WebhookEndpointRecord[]> => {
      await requirePartner(ctx.database, input.partnerId);
      return listWebhookEndpoints(ctx.database, input.partnerId);
    }),

  /**
   * Changes an endpoint's event types (replacing them; the rules of create) and whether it is
   * active, at least one of the two, and returns it as it now is. A paused endpoint gets no new
   * events; deliveries already queued for it are still sent. Neither given: BAD_REQUEST, kind
   * VALIDATION_ERROR. Unknown, deleted or another partner's endpoint: NOT_FOUND on `id`.
   *
   * @example
   * await api.webhooks.update.mutate({ partnerId: 1, id: 4, active: false });
   */
  update: protectedProcedure
    .input(webhookInputs.update)
    .mutation(async ({ ctx, input }): Promise<WebhookEndpointRecord> => {
      await requirePartner(ctx.database, input.partnerId);
      return updateWebhookEndpoint(ctx.database, input.partnerId, input.id, { eventTypes: input.eventTypes, isActive: input.active }, ctx.now());
    }),

  /**
   * Removes an endpoint and returns it as it was: no new deliveries go to it, and its pending ones
   * end as failed. Unknown, deleted or another partner's: NOT_FOUND on `id`.
   */
  delete: protectedProcedure
    .input(webhookInputs.delete)
    .mutation(async ({ ctx, input }): Promise<WebhookEndpointRecord> => {
      await requirePartner(ctx.database, input.partnerId);
      const endpoint = (await listWebhookEndpoints(ctx.database, input.partnerId)).find((e) => e.id === input.id);
      if (!endpoint) throw new AppError(domainError('NOT_FOUND', `webhook endpoint ${input.id} does not exist`, { field: 'id' }));
      await deleteWebhookEndpoint(ctx.database, input.partnerId, input.id, ctx.now());
      return endpoint;
    }),

  /**
   * The partner's recent deliveries, newest first (`limit` 1 to 100, default 20), each with every
   * attempt: status code or a generic error reason, and at most 1 KiB of the response body.
   */
  deliveries: protectedProcedure
    .input(webhookInputs.deliveries)
    .query(async ({ ctx, input }): Promise<DeliveryView[]> => {
      await requirePartner(ctx.database, input.partnerId);
      return listDeliveries(ctx.database, input.partnerId, { limit: input.limit, status: input.status, endpointId: input.endpointId });
    }),

  /**
   * Sends a succeeded or failed delivery again: it is pending and due now, its attempt log kept.
   * Still pending: CONFLICT, kind INVALID_STATE. Unknown, another partner's, or to a deleted
   * endpoint: NOT_FOUND on `deliveryId`.
   */
  redeliver: protectedProcedure
    .input(webhookInputs.redeliver)
    .mutation(async ({ ctx, input }): Promise<{ id: number; status: 'pending'; nextAttemptAt: string }> => {
      await requirePartner(ctx.database, input.partnerId);
      const now = ctx.now();
      try {
        await redeliver(ctx.database, input.partnerId, input.deliveryId, now);
      } catch (error) {
        throw onDeliveryId(error);
      }
      return { id: input.deliveryId, status: 'pending', nextAttemptAt: now.toISOString() };
    }),
});
