// Every operation of the served reference is illustrated, and every illustration is true: each
// example validates against the schema published beside it (JSON Schema, Ajv) and against the
// route's own zod schemas, which is what the gateway itself runs. New routes are covered as they
// are added to the route list; one without examples fails here.
import { createAdjustmentResponse, envelopeA } from '@pits/contract';
import { createCredentialCipher } from '@pits/persistence';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { partnerRoutes } from '../routes/partner-routes.js';
import { PUBLIC_ROUTES } from '../routes/public-routes.js';
import { type Route, defineRoute } from '../routes/route-spec.js';
import { referenceExampleProblems } from '../testing/reference-check.js';
import { partnerGuide } from './guides.js';
import { EXAMPLE_REQUEST_ID, buildOpenApiDocument } from './openapi-document.js';

const routes = partnerRoutes({ cipher: createCredentialCipher('r'.repeat(64)), urlPolicy: { allowPrivate: false }, resolveHost: () => Promise.resolve([]) });
const build = (list: readonly Route[]) => buildOpenApiDocument(list, PUBLIC_ROUTES, { version: 'test', description: partnerGuide() });
const document = build(routes);

type Operation = { operationId: string; responses: Record<string, { content?: Record<string, { example?: unknown; examples?: Record<string, { value: unknown }> }> }> };
const operations = Object.values(document.paths as Record<string, Record<string, Operation>>).flatMap((methods) => Object.values(methods));

describe('the examples of the reference', () => {
  it('cover every request body, query parameter and response of every operation, and match the published schemas', () => {
    expect(referenceExampleProblems(document)).toEqual([]);
  });

  it.each(routes.map((route) => [route.name, route] as const))('%s: its examples pass its own zod schemas', (_name, route) => {
    if (route.body) {
      expect(route.example, 'a route with a body has a body example').toBeDefined();
      expect(route.body.safeParse(route.example).error).toBeUndefined();
    }
    if (route.query) {
      expect(route.queryExample, 'a route with query parameters has a query example').toBeDefined();
      expect(route.query.safeParse(route.queryExample).error).toBeUndefined();
    }
    expect(route.responseExample, 'every route has a success example (null for a route whose data is null)').not.toBeUndefined();
    const operation = operations.find((o) => o.operationId === route.name)!;
    const success = operation.responses[String(route.status)]!.content!['application/json']!.example as { data: unknown; request_id: string };
    // The whole envelope as the route sends it, and its data exactly as the handler would return it.
    expect(route.response.safeParse(success).error).toBeUndefined();
    expect(success.data).toEqual(route.responseExample);
    expect(success.request_id).toBe(EXAMPLE_REQUEST_ID);
  });

  it('give every integer a format and both bounds: ±(2^53 - 1), the integers a JSON number holds exactly, where it has none tighter', () => {
    const integers: Record<string, unknown>[] = [];
    const walk = (value: unknown): void => {
      if (Array.isArray(value)) value.forEach(walk);
      else if (value !== null && typeof value === 'object') {
        if ((value as { type?: unknown }).type === 'integer') integers.push(value as Record<string, unknown>);
        Object.values(value).forEach(walk);
      }
    };
    walk(document);
    expect(integers.length).toBeGreaterThan(100);
    for (const integer of integers) {
      expect(integer).toHaveProperty('format');
      expect(integer).toHaveProperty('maximum');
      expect('minimum' in integer || 'exclusiveMinimum' in integer).toBe(true);
    }
    const schemas = (document.components as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas;
    // Real bounds stay: per_page 1 to 100, quantities within what keeps totals exact (docs/input-rules.md#quantities-and-totals).
    expect(schemas['AdjustmentLineInput']!.properties['quantity']).toMatchObject({ anyOf: expect.arrayContaining([{ type: 'number', maximum: 100000000000, exclusiveMinimum: 0 }]) });
    const perPage = (document.paths as Record<string, Record<string, { parameters: { name: string; schema: unknown }[] }>>)['/api/engine/v1/adjustments']!.get!.parameters.find((p) => p.name === 'per_page');
    expect(JSON.stringify(perPage?.schema)).toMatch(/"minimum":1.*"maximum":100|"maximum":100.*"minimum":1/);
  });

  it('give each refusal the code it is filed under, with the field at fault when there is one', () => {
    const create = operations.find((o) => o.operationId === 'adjustments.create')!;
    const refusals = create.responses['422']!.content!['application/json']!.examples!;
    expect(Object.keys(refusals).sort()).toEqual(['IDEMPOTENCY_KEY_REUSED', 'VALIDATION_ERROR']);
    // Worded by the route's own schema: what the gateway answers when the body leaves the field out.
    expect(refusals['VALIDATION_ERROR']!.value).toEqual({
      status: 'unprocessable_entity',
      error: { code: 'VALIDATION_ERROR', message: 'location_id is required', details: { field: 'location_id', issue: 'is required' } },
      request_id: EXAMPLE_REQUEST_ID,
    });
    const approve = operations.find((o) => o.operationId === 'adjustments.approve')!;
    expect(Object.keys(approve.responses['422']!.content!['application/json']!.examples!).sort()).toEqual([
      'IDEMPOTENCY_KEY_REUSED',
      'INSUFFICIENT_STOCK',
      'INVALID_STATE',
      'VALIDATION_ERROR',
    ]);
  });

  it('fail for a route that has no examples, or an example its schema refuses', () => {
    const bare = defineRoute({
      name: 'things.create',
      method: 'POST',
      path: '/api/partner/v1/things',
      summary: 'things',
      tag: 'Things',
      tenantScoped: false,
      body: z.object({ n: z.int().min(1) }).meta({ id: 'ThingBody' }),
      query: z.object({ page: z.int().min(1).optional() }),
      envelope: 'A',
      status: 201,
      response: envelopeA(z.object({ n: z.int() })),
      errors: ['VALIDATION_ERROR'],
      handler: () => Promise.resolve({ n: 1 }),
    });
    const problems = referenceExampleProblems(build([bare]));
    expect(problems).toEqual(
      expect.arrayContaining([
        'POST /api/partner/v1/things: the request body has no example',
        'POST /api/partner/v1/things: query parameter page has no example',
        'POST /api/partner/v1/things: response 201 has no example',
      ]),
    );
    const wrong = { ...routes.find((r) => r.name === 'adjustments.create')!, responseExample: { adjustment: { id: 7 } } };
    const wrongProblems = referenceExampleProblems(build([wrong]));
    expect(wrongProblems.join('\n')).toContain('POST /api/partner/v1/adjustments: example example of response 201 does not match its schema');
    expect(createAdjustmentResponse.safeParse({ status: 'ok', data: wrong.responseExample, errors: null, request_id: EXAMPLE_REQUEST_ID }).success).toBe(false);
  });
});
