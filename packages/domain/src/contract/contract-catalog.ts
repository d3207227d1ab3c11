// Every schema that documents or validates a v1 route, in one list, for the OpenAPI generator and
// for the test that proves each one converts to JSON Schema.
import type { z } from 'zod';
import {
  adjustmentActionResponse,
  adjustmentDetailResponse,
  adjustmentListQuery,
  adjustmentListResponse,
  approveAdjustmentBody,
  createAdjustmentBody,
  createAdjustmentResponse,
  rejectAdjustmentBody,
} from './adjustment-schemas.js';
import { areaDetailQuery, areaDetailResponse, areaSearchQuery, areaSearchResponse } from './area-schemas.js';
import { errorEnvelope } from './common-schemas.js';
import { inboundDetailResponse, inboundListQuery, inboundListResponse, receiveInboundBody, receiveInboundResponse } from './inbound-schemas.js';
import { stockLevelsResponse, stockMovementsQuery, stockMovementsResponse, stockQuery } from './stock-schemas.js';
import {
  authorizeTenantBody,
  authorizeTenantResponse,
  availableLogisticsResponse,
  deauthorizeTenantBody,
  deauthorizeTenantResponse,
  tenantListQuery,
  tenantListResponse,
  tenantLocationsResponse,
} from './tenant-schemas.js';
import {
  approveTransferResponse,
  createTransferBody,
  createTransferResponse,
  receiveTransferResponse,
  rejectTransferBody,
  rejectTransferResponse,
  shipTransferResponse,
  transferActionBody,
  transferDetailResponse,
  transferListQuery,
  transferListResponse,
} from './transfer-schemas.js';
import {
  deliveriesQuery,
  listDeliveriesResponse,
  listWebhooksResponse,
  registerWebhookBody,
  registerWebhookResponse,
  webhookActionResponse,
  webhookEvent,
} from './webhook-schemas.js';

/**
 * One contract schema. Requests (bodies and queries) convert with `z.toJSONSchema(schema, { io: 'input' })`
 * because they transform their input; responses convert as they are.
 */
export interface ContractSchemaEntry {
  name: string;
  direction: 'request' | 'response';
  schema: z.ZodType;
}

const request = (name: string, schema: z.ZodType): ContractSchemaEntry => ({ name, direction: 'request', schema });
const response = (name: string, schema: z.ZodType): ContractSchemaEntry => ({ name, direction: 'response', schema });

/**
 * Every request and response schema of the v1 contract and its extensions.
 *
 * @example
 * for (const { schema, direction } of contractSchemas)
 *   z.toJSONSchema(schema, direction === 'request' ? { io: 'input' } : {});
 */
export const contractSchemas: readonly ContractSchemaEntry[] = [
  request('createAdjustmentBody', createAdjustmentBody),
  request('adjustmentListQuery', adjustmentListQuery),
  request('approveAdjustmentBody', approveAdjustmentBody),
  request('rejectAdjustmentBody', rejectAdjustmentBody),
  response('createAdjustmentResponse', createAdjustmentResponse),
  response('adjustmentDetailResponse', adjustmentDetailResponse),
  response('adjustmentListResponse', adjustmentListResponse),
  response('adjustmentActionResponse', adjustmentActionResponse),

  request('createTransferBody', createTransferBody),
  request('transferListQuery', transferListQuery),
  request('transferActionBody', transferActionBody),
  request('rejectTransferBody', rejectTransferBody),
  response('createTransferResponse', createTransferResponse),
  response('transferDetailResponse', transferDetailResponse),
  response('transferListResponse', transferListResponse),
  response('approveTransferResponse', approveTransferResponse),
  response('rejectTransferResponse', rejectTransferResponse),
  response('shipTransferResponse', shipTransferResponse),
  response('receiveTransferResponse', receiveTransferResponse),

  request('inboundListQuery', inboundListQuery),
  request('receiveInboundBody', receiveInboundBody),
  response('inboundListResponse', inboundListResponse),
  response('inboundDetailResponse', inboundDetailResponse),
  response('receiveInboundResponse', receiveInboundResponse),

  request('authorizeTenantBody', authorizeTenantBody),
  request('deauthorizeTenantBody', deauthorizeTenantBody),
  request('tenantListQuery', tenantListQuery),
  response('authorizeTenantResponse', authorizeTenantResponse),
  response('deauthorizeTenantResponse', deauthorizeTenantResponse),
  response('tenantListResponse', tenantListResponse),
  response('tenantLocationsResponse', tenantLocationsResponse),
  response('availableLogisticsResponse', availableLogisticsResponse),

  request('areaSearchQuery', areaSearchQuery),
  request('areaDetailQuery', areaDetailQuery),
  response('areaSearchResponse', areaSearchResponse),
  response('areaDetailResponse', areaDetailResponse),

  request('stockQuery', stockQuery),
  request('stockMovementsQuery', stockMovementsQuery),
  response('stockLevelsResponse', stockLevelsResponse),
  response('stockMovementsResponse', stockMovementsResponse),

  request('registerWebhookBody', registerWebhookBody),
  response('registerWebhookResponse', registerWebhookResponse),
  response('webhookEvent', webhookEvent),
  response('listWebhooksResponse', listWebhooksResponse),
  response('webhookActionResponse', webhookActionResponse),
  request('deliveriesQuery', deliveriesQuery),
  response('listDeliveriesResponse', listDeliveriesResponse),

  response('errorEnvelope', errorEnvelope),
];
