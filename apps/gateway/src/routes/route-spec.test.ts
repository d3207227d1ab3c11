// The edge is typed: `npm run typecheck` compiles this file, and each `@ts-expect-error` below is a
// route that must not compile (a handler whose data misses a field, renames one or has a wrong
// type; an envelope, status or example that disagrees with the schemas). Were one to compile, its
// directive would be unused and the typecheck would fail. The runtime tests check the erased view.
import type * as domain from '@pits/contract';
import { areaDetailResponse, envelopeA, listWebhooksResponse, rejectAdjustmentBody } from '@pits/contract';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type EnvelopeSchema, type ResponseData, type RouteInput, defineRoute } from './route-spec.js';

const ENDPOINT = {
  id: '4',
  url: 'https://partner.example/hooks',
  event_types: ['inbound.status_changed' as const],
  description: 'inbound',
  is_active: true,
  created_at: '2026-11-22T08:00:00.000Z',
  updated_at: '2026-11-22T08:00:00.000Z',
};

/** Everything a route needs but its handler: a webhook list, envelope A. */
const LIST = {
  name: 'webhooks.list',
  method: 'GET' as const,
  path: '/api/partner/v1/webhooks',
  summary: 'List webhook endpoints',
  tag: 'Webhooks',
  tenantScoped: false,
  envelope: 'A' as const,
  status: 200 as const,
  response: listWebhooksResponse,
  errors: [],
};

const AREA = {
  region_id: 1,
  country: 'Indonesia',
  country_code: 'ID',
  state: 'Jawa Barat',
  state_code: '32',
  city: 'Kota Bandung',
  city_code: '32.73',
  district: 'Sukajadi',
  district_code: '32.73.01',
  subdistrict: 'Sukajadi',
  subdistrict_code: '32.73.01.1001',
  postcode: '40162',
  longitude: '107.59731234',
  latitude: '-6.88000000',
  created_at: '2026-11-22T08:00:00.000Z',
  updated_at: '2026-11-22T08:00:00.000Z',
};

describe('defineRoute: what compiles', () => {
  it('takes a handler that returns exactly the data of the response schema', () => {
    defineRoute({ ...LIST, handler: async () => ({ webhooks: [ENDPOINT] }) });
    defineRoute({ ...LIST, handler: async () => ({ webhooks: [] }) });
  });

  it('refuses a handler whose data misses a field', () => {
    const { is_active: _dropped, ...withoutIsActive } = ENDPOINT;
    // @ts-expect-error is_active is missing
    defineRoute({ ...LIST, handler: async () => ({ webhooks: [withoutIsActive] }) });
    // @ts-expect-error the envelope's data key itself is missing
    defineRoute({ ...LIST, handler: async () => ({}) });
  });

  it('refuses a handler whose data renames a field', () => {
    const { is_active, ...rest } = ENDPOINT;
    // @ts-expect-error is_active is sent as active
    defineRoute({ ...LIST, handler: async () => ({ webhooks: [{ ...rest, active: is_active }] }) });
    // @ts-expect-error webhooks is sent as endpoints
    defineRoute({ ...LIST, handler: async () => ({ endpoints: [ENDPOINT] }) });
  });

  it('refuses a handler whose data has a wrong type', () => {
    // @ts-expect-error id is a digit string in the contract, not a number
    defineRoute({ ...LIST, handler: async () => ({ webhooks: [{ ...ENDPOINT, id: 4 }] }) });
    // @ts-expect-error event_types holds the contract's event types only
    defineRoute({ ...LIST, handler: async () => ({ webhooks: [{ ...ENDPOINT, event_types: ['anything'] }] }) });
    // @ts-expect-error an action route's data is null
    defineRoute({ ...LIST, response: envelopeA(z.null()), handler: async () => ({ webhooks: [] }) });
  });

  it('checks what a presenter returns through the handler', () => {
    const presentWithoutUrl = (e: typeof ENDPOINT) => ({ id: e.id, event_types: e.event_types, description: e.description, is_active: e.is_active, created_at: e.created_at, updated_at: e.updated_at });
    // @ts-expect-error the presenter dropped url
    defineRoute({ ...LIST, handler: async () => ({ webhooks: [ENDPOINT].map(presentWithoutUrl) }) });
  });

  it('ties the envelope and the status to the response schema', () => {
    const detail = { ...LIST, name: 'areas.detail', path: '/api/partner/v1/areas/detail', response: areaDetailResponse, handler: async () => AREA };
    defineRoute({ ...detail, envelope: 'B', status: 200 });
    // @ts-expect-error areaDetailResponse is envelope B
    defineRoute({ ...detail, envelope: 'A', status: 200 });
    // @ts-expect-error envelope B's schema says status 200
    defineRoute({ ...detail, envelope: 'B', status: 201 });
    // @ts-expect-error listWebhooksResponse is envelope A
    defineRoute({ ...LIST, envelope: 'B', handler: async () => ({ webhooks: [] }) });
  });

  it('types the body a handler reads, and the example it publishes', () => {
    const reject = { ...LIST, name: 'adjustments.reject', method: 'PATCH' as const, response: envelopeA(z.null()), body: rejectAdjustmentBody, handler: async ({ body }: RouteInput<{ reason: string }, undefined>) => (body.reason === '' ? null : null) };
    defineRoute({ ...reject, example: { reason: 'Counted twice' } });
    // @ts-expect-error reason is a string
    defineRoute({ ...reject, example: { reason: 3 } });
    // @ts-expect-error this route has no body schema, so there is no body to read
    defineRoute({ ...LIST, handler: async ({ body }) => ({ webhooks: body.webhooks }) });
  });

  it('derives the data of every response schema of the contract, none of them unchecked', () => {
    type Domain = typeof domain;
    type ResponseSchemaName = Extract<keyof Domain, `${string}Response`>;
    /** Names of response schemas that are not envelopes, or whose data would accept anything. */
    type Unchecked = { [K in ResponseSchemaName]: Domain[K] extends EnvelopeSchema ? (unknown extends ResponseData<Domain[K]> ? K : never) : K }[ResponseSchemaName];
    expectTypeOf<Unchecked>().toBeNever();
    expectTypeOf<ResponseData<typeof listWebhooksResponse>>().toEqualTypeOf<{ webhooks: z.input<typeof domain.webhookEndpoint>[] }>();
    expectTypeOf<ResponseData<typeof areaDetailResponse>>().toEqualTypeOf<z.input<typeof domain.areaDetail>>();
  });
});

describe('defineRoute: the checked route', () => {
  const input: RouteInput<unknown, unknown> = {
    db: {} as RouteInput<unknown, unknown>['db'],
    partner: { partnerId: 7, name: 'Acme', email: 'ops@acme.test', tier: 'small', keyId: 70 },
    tenantId: '',
    body: { reason: 'Counted twice' },
    query: undefined,
    params: { id: 'ADJ-20261122-000001' },
    now: new Date('2026-11-22T08:00:00.000Z'),
    requestId: 'r-1',
  };

  it('keeps what the router and the reference read, and runs the handler with the input it is given', async () => {
    const route = defineRoute({
      ...LIST,
      name: 'adjustments.reject',
      method: 'PATCH',
      body: rejectAdjustmentBody,
      example: { reason: 'Counted twice' },
      response: envelopeA(z.null()),
      handler: async ({ body, params }) => {
        expect({ reason: body.reason, id: params.id }).toEqual({ reason: 'Counted twice', id: 'ADJ-20261122-000001' });
        return null;
      },
    });
    expect(route).toMatchObject({ name: 'adjustments.reject', method: 'PATCH', envelope: 'A', status: 200, body: rejectAdjustmentBody, example: { reason: 'Counted twice' } });
    expect(route.beforeTransaction).toBeUndefined();
    await expect(route.handler(input)).resolves.toBeNull();
  });

  it('runs beforeTransaction, when the spec has one, with the same input', async () => {
    const seen: string[] = [];
    const route = defineRoute({
      ...LIST,
      beforeTransaction: async ({ requestId }) => {
        seen.push(requestId);
      },
      handler: async () => ({ webhooks: [ENDPOINT] }),
    });
    await route.beforeTransaction?.(input);
    expect(seen).toEqual(['r-1']);
    await expect(route.handler(input)).resolves.toEqual({ webhooks: [ENDPOINT] });
  });
});
