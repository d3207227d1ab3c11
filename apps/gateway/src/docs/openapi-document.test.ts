import { TEXT_LIMITS, UNCHECKED_TEXT, WEBHOOK_EVENT_EXAMPLES, WEBHOOK_EVENT_SCHEMAS, createAdjustmentBody, deliveryEventType, envelopeA } from '@pits/contract';
import { WEBHOOK_HEADERS } from '@pits/domain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument } from './openapi-document.js';
import { defineRoute } from '../routes/route-spec.js';

type WebhookOperation = {
  operationId: string;
  description: string;
  tags: string[];
  security: unknown[];
  parameters: { name: string; in: string; required: boolean; schema: Record<string, unknown> }[];
  requestBody: { required: boolean; content: Record<string, { schema: { $ref?: string }; example: unknown }> };
  responses: Record<string, { description: string }>;
};
type Doc = { webhooks: Record<string, { post: WebhookOperation }>; tags: { name: string }[]; paths: Record<string, Record<string, { parameters: { name: string; in: string; required: boolean }[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>; components: { schemas: Record<string, unknown> } };

const query = z.object({ page: z.coerce.number().int().min(1).default(1), status: z.enum(['a', 'b']).optional() }).meta({ id: 'SomeQuery' });
const thingsResponse = envelopeA(z.object({ n: z.number() })).meta({ id: 'ThingsResponse' });
const route = defineRoute({
  name: 'things.list',
  method: 'GET',
  path: '/api/partner/v1/things/:id',
  params: { id: { description: "The thing's id, as `id` in its answer", example: '7', sandbox: 'product' } },
  summary: 'things',
  tag: 'Things',
  tenantScoped: true,
  query,
  envelope: 'A',
  status: 200,
  response: thingsResponse,
  errors: ['NOT_FOUND'],
  handler: () => Promise.resolve({ n: 0 }),
});

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument([route], [{ method: 'GET', path: '/openapi.json', summary: 'doc', description: 'the document', contentType: 'application/json', schema: null }], { version: 't' }) as unknown as Doc;
  it('turns a named query schema into query parameters, with path and tenant parameters', () => {
    const parameters = doc.paths['/api/partner/v1/things/{id}']!.get!.parameters;
    expect(parameters.map((p) => [p.name, p.in, p.required])).toEqual([
      ['id', 'path', true],
      ['X-Tenant-Id', 'header', true],
      ['page', 'query', false],
      ['status', 'query', false],
    ]);
    expect(doc.components.schemas.SomeQuery).toBeUndefined();
    expect(doc.components.schemas.ThingsResponse).toBeDefined();
  });
  it('describes a path id in words with an example, pre-filled with the sandbox record this server knows; an undescribed one is a bug', () => {
    type Parameter = { name: string; example?: unknown; description?: string };
    const idOf = (built: unknown) => ((built as Doc).paths['/api/partner/v1/things/{id}']!.get!.parameters as Parameter[]).find((p) => p.name === 'id')!;
    expect(idOf(doc)).toMatchObject({ example: '7', description: "The thing's id, as `id` in its answer, e.g. `7`. Another tenant's or an unknown id is 404." });
    const sandboxed = idOf(buildOpenApiDocument([route], [], { version: 't', sandboxIds: { product: '3', reservation: 'RSV-20260101-000002' } }));
    expect(sandboxed).toMatchObject({ example: '3', description: "The thing's id, as `id` in its answer, e.g. `3`. Pre-filled with this sandbox's first product. Another tenant's or an unknown id is 404." });
    // A sandbox that does not know the record keeps the reference's example.
    expect(idOf(buildOpenApiDocument([route], [], { version: 't', sandboxIds: { reservation: 'RSV-20260101-000002' } }))).toMatchObject({ example: '7' });
    const { params: _params, ...undescribed } = route;
    expect(() => buildOpenApiDocument([undescribed], [], { version: 't' })).toThrow('route things.list does not describe its path parameter :id');
  });
  it('documents the errors a route can answer and a JSON public route as an object', () => {
    const responses = doc.paths['/api/partner/v1/things/{id}']!.get!.responses;
    // 422: the path parameter is checked on every route that has one (docs/input-rules.md#text).
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '403', '404', '422', '429', '500', '503']);
    // A 503 (database unreachable or past its deadline) and a 429 say when to retry.
    for (const status of ['429', '503']) expect((responses[status] as { headers?: Record<string, unknown> }).headers).toHaveProperty('Retry-After');
    expect(doc.paths['/openapi.json']!.get!.responses['200']!.content!['application/json']!.schema).toEqual({ type: 'object' });
  });
  it('gives free text the text pattern, except the error fields that may repeat unchecked input, and does not publish their marker', () => {
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, { pattern?: string; maxLength?: number }> }>;
    expect(schemas['FieldIssue']!.properties['field']).toEqual({ type: 'string', maxLength: TEXT_LIMITS.echo });
    expect(schemas['FieldIssue']!.properties['issue']).toEqual({ type: 'string', maxLength: TEXT_LIMITS.echo });
    expect(JSON.stringify(doc)).not.toContain(UNCHECKED_TEXT);
    // The same length on text that was checked keeps the pattern.
    const checked = buildOpenApiDocument([{ ...route, response: envelopeA(z.object({ note: z.string().max(TEXT_LIMITS.echo) })).meta({ id: 'NoteResponse' }) }], [], { version: 't' }) as unknown as Doc;
    expect((checked.components.schemas['NoteResponse'] as { properties: { data: { properties: { note: { pattern?: string } } } } }).properties.data.properties.note.pattern).toBeDefined();
  });
  it('publishes the bounds of quantities and unit costs that keep every total exact (docs/input-rules.md#quantities-and-totals)', () => {
    const create = defineRoute({
      name: 'adjustments.create',
      method: 'POST',
      path: '/api/partner/v1/adjustments',
      summary: 'create',
      tag: 'Things',
      tenantScoped: true,
      body: createAdjustmentBody,
      envelope: 'A',
      status: 201,
      response: thingsResponse,
      errors: ['VALIDATION_ERROR'],
      handler: () => Promise.resolve({ n: 1 }),
    });
    const built = buildOpenApiDocument([create], [], { version: 't' }) as unknown as Doc;
    const line = built.components.schemas['AdjustmentLineInput'] as { properties: Record<string, { anyOf: object[]; description: string }> };
    expect(line.properties['quantity']!.anyOf).toContainEqual({ type: 'number', maximum: 100000000000, exclusiveMinimum: 0 });
    expect(line.properties['unit_cost']!.anyOf).toContainEqual({ type: 'number', maximum: 10000000000000, minimum: 0 });
    expect(line.properties['quantity']!.description).toContain('15 significant digits');
  });
  it('has a webhooks section: every event type, a signed POST whose body is the type\'s payload schema, retried unless answered 2xx', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...deliveryEventType.options].sort());
    for (const [type, schema] of Object.entries(WEBHOOK_EVENT_SCHEMAS)) {
      const operation = doc.webhooks[type]!.post;
      const name = z.globalRegistry.get(schema)!.id!;
      const body = operation.requestBody.content['application/json']!;
      expect(body.schema, type).toEqual({ $ref: `#/components/schemas/${name}` });
      expect(doc.components.schemas[name], type).toMatchObject({ type: 'object', properties: { type: { const: type } } });
      // The example shown is a payload the schema accepts.
      expect(schema.parse(body.example), type).toEqual(WEBHOOK_EVENT_EXAMPLES[type as keyof typeof WEBHOOK_EVENT_SCHEMAS]);
      expect(operation.requestBody.required).toBe(true);
      expect(operation.parameters.map((p) => [p.name, p.in, p.required])).toEqual(Object.values(WEBHOOK_HEADERS).map((name) => [name, 'header', true]));
      expect(operation.tags).toEqual(['Webhooks']);
      // The receiver takes no API key of this service: the signature headers authenticate the sender.
      expect(operation.security).toEqual([]);
      expect(operation.description).toMatch(/at least once/);
      expect(operation.description).toContain('event_id');
      expect(Object.keys(operation.responses)).toEqual(['2XX', '4XX', '5XX', 'default']);
      expect(operation.responses['default']!.description).toMatch(/at most 8 attempts, the next one after 10 s, 40 s/);
    }
    expect(doc.tags.map((t) => t.name)).toContain('Webhooks');
    const signature = doc.webhooks['stock.level_changed']!.post.parameters.find((p) => p.name === WEBHOOK_HEADERS.signature)!;
    expect(signature.schema).toMatchObject({ pattern: '^v1=[0-9a-f]{64}$' });
  });
});
