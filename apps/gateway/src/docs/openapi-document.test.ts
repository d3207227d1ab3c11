import { pageFacts } from '@pits/domain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument } from './openapi-document.js';
import { defineRoute } from '../routes/route-spec.js';

type Doc = { paths: Record<string, Record<string, { parameters: { name: string; in: string; required: boolean }[]; responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>>; components: { schemas: Record<string, unknown> } };

const query = z.object({ page: z.coerce.number().int().min(1).default(1), status: z.enum(['a', 'b']).optional() }).meta({ id: 'SomeQuery' });
const route = defineRoute({
  name: 'things.list',
  method: 'GET',
  path: '/api/partner/v1/things/:id',
  summary: 'things',
  tag: 'Things',
  tenantScoped: true,
  query,
  envelope: 'A',
  status: 200,
  response: z.object({ n: z.number() }).meta({ id: 'ThingsResponse' }),
  errors: ['NOT_FOUND'],
  handler: () => Promise.resolve(pageFacts(0, { page: 1, perPage: 1 })),
});

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument([route], [{ method: 'GET', path: '/openapi.json', summary: 'doc', contentType: 'application/json', schema: null }], { version: 't' }) as unknown as Doc;
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
  it('documents the errors a route can answer and a JSON public route as an object', () => {
    const responses = doc.paths['/api/partner/v1/things/{id}']!.get!.responses;
    expect(Object.keys(responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500']);
    expect(doc.paths['/openapi.json']!.get!.responses['200']!.content!['application/json']!.schema).toEqual({ type: 'object' });
  });
});
