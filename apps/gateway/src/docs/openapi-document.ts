// The OpenAPI 3.1 document, generated from the same route specs and zod schemas that serve and
// validate requests. Named schemas (zod `.meta({ id })`) become components. Each operation carries
// the examples of its route spec (request body, query parameters, the success envelope) and one
// example refusal per error code it can answer.
import { errorEnvelope } from '@pits/contract';
import { ERROR_KINDS, type ErrorKind } from '@pits/domain';
import { z } from 'zod';
import { ERROR_STATUS, errorBody } from '../http/index.js';
import { TENANT_ID } from '../routes/reference-examples.js';
import type { Route } from '../routes/route-spec.js';
import { errorExample } from './error-examples.js';
import { ERROR_CONDITIONS } from './guides.js';

type Json = Record<string, unknown>;

/** Errors any authenticated route can answer (503: the database was unreachable or too slow, docs/operating-guarantees.md#database-outages). */
const COMMON_ERRORS: ErrorKind[] = ['UNAUTHORIZED', 'RATE_LIMITED', 'INTERNAL_ERROR', 'SERVICE_UNAVAILABLE'];
const WRITE_ERRORS: ErrorKind[] = ['INVALID_REQUEST', 'REQUEST_TIMEOUT', 'PAYLOAD_TOO_LARGE', 'UNSUPPORTED_MEDIA_TYPE', 'IDEMPOTENCY_KEY_REUSED'];
const TENANT_ERRORS: ErrorKind[] = ['INVALID_REQUEST', 'FORBIDDEN'];

/** Public routes outside the partner contract, described here so the document lists every route served. */
export interface PublicRoute {
  method: 'GET';
  path: string;
  summary: string;
  contentType: 'application/json' | 'text/html' | 'text/javascript';
  schema: z.ZodType | null;
  /** An example answer (JSON routes). */
  example?: unknown;
}

class Components {
  readonly schemas = new Map<string, Json>();
  private readonly seen = new Map<string, string>();

  /** Converts a schema, moving its named parts into components; returns the schema to embed. */
  add(schema: z.ZodType, io: 'input' | 'output'): Json {
    const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
    const defs = (converted.$defs ?? {}) as Record<string, Json>;
    delete converted.$defs;
    delete converted.$schema;
    const rename = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) {
      const text = JSON.stringify(def);
      const previous = this.seen.get(id);
      rename.set(id, previous === undefined || previous === text ? id : `${id}${io === 'input' ? 'Input' : 'Output'}`);
    }
    const relink = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(relink);
      if (value && typeof value === 'object') {
        return Object.fromEntries(
          Object.entries(value).map(([k, v]) => {
            if (k === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')) {
              const id = v.slice('#/$defs/'.length);
              return [k, `#/components/schemas/${rename.get(id) ?? id}`];
            }
            return [k, relink(v)];
          }),
        );
      }
      return value;
    };
    for (const [id, def] of Object.entries(defs)) {
      const name = rename.get(id)!;
      this.seen.set(name, JSON.stringify(def));
      this.schemas.set(name, relink(def) as Json);
    }
    return relink(converted) as Json;
  }
}

const openApiPath = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');

/** On 429 and 503: when to try again. */
const RETRY_AFTER_HEADER: Json = { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } };

/** The request_id of every example response (a fresh UUID v4 on a real one). */
export const EXAMPLE_REQUEST_ID = '3f6c1f9e-2b7d-4c11-9a0e-5d8e7f6a1b2c';

/** The success envelope around a route's example data, as the route's envelope shapes it. */
function successExample(spec: Route): Json {
  const { responseExample: data } = spec;
  return spec.envelope === 'A'
    ? { status: 'ok', data, errors: null, request_id: EXAMPLE_REQUEST_ID }
    : { status: spec.status, message: 'Ok', data, errors: null, request_id: EXAMPLE_REQUEST_ID };
}

/**
 * zod writes `z.int()` as bounded by ±(2^53 - 1), which says nothing to a reader: such a bound is
 * dropped wherever a schema has no tighter one of its own.
 */
function withoutSafeIntegerBounds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSafeIntegerBounds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key, v]) => !(['minimum', 'maximum'].includes(key) && Math.abs(v as number) === Number.MAX_SAFE_INTEGER))
      .map(([key, v]) => [key, withoutSafeIntegerBounds(v)]),
  );
}

function errorResponses(kinds: Iterable<ErrorKind>, spec: Route): Record<string, Json> {
  const byStatus = new Map<number, ErrorKind[]>();
  for (const kind of new Set(kinds)) {
    const status = ERROR_STATUS[kind].http;
    byStatus.set(status, [...(byStatus.get(status) ?? []), kind]);
  }
  return Object.fromEntries(
    [...byStatus.entries()]
      .sort(([a], [b]) => a - b)
      .map(([status, kinds]) => [
        String(status),
        {
          // Codes in backticks: the reference renders descriptions as Markdown, where _ would start emphasis.
          description: `Error envelope; error.code is ${kinds.map((kind) => `\`${kind}\``).join(' or ')}.`,
          ...(status === 429 || status === 503 ? { headers: { 'Retry-After': RETRY_AFTER_HEADER } } : {}),
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ErrorEnvelope' },
              examples: Object.fromEntries(kinds.map((kind) => [kind, { summary: kind, description: ERROR_CONDITIONS[kind], value: errorBody(errorExample(kind, spec), EXAMPLE_REQUEST_ID) }])),
            },
          },
        },
      ]),
  );
}

const RATE_HEADERS = {
  'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests allowed in the window of the tightest bucket.' },
  'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in that window.' },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Unix time (seconds) when the window resets.' },
  'X-Request-Id': { schema: { type: 'string', format: 'uuid' }, description: 'Same as request_id in the body.' },
};

/** What a success answer is, in the words the Errors and Getting started chapters use (no "envelope A/B" jargon). */
const SUCCESS_DESCRIPTIONS: Record<'A' | 'B', string> = {
  A: 'Success: `status` is `"ok"`, the result is in `data`, `errors` is null.',
  B: 'Success: `status` is the number `200`, the result is in `data`, `errors` is null.',
};

/**
 * What the document says about the server it is served by.
 * `sandboxTenantId`: the demo tenant of the database this gateway serves (npm start passes it);
 * the `X-Tenant-Id` example, which "Test Request" pre-fills, is then a tenant that really answers.
 */
export interface DocumentInfo {
  version: string;
  description?: string;
  sandboxTenantId?: string | null;
}

/**
 * @example
 * const doc = buildOpenApiDocument(specs, publicRoutes, { version }); // serve as GET /openapi.json
 */
export function buildOpenApiDocument(specs: readonly Route[], publicRoutes: readonly PublicRoute[], info: DocumentInfo): Json {
  const sandboxTenantId = info.sandboxTenantId ?? null;
  const tenantHeaderDescription = sandboxTenantId === null
    ? 'The tenant acted for; it must be authorized for the partner. The example is not a tenant of this server: put your tenant\'s id here (`npm start` prints the sandbox\'s as "Demo tenant id").'
    : 'The tenant acted for; it must be authorized for the partner. Pre-filled with this sandbox\'s demo tenant ("Demo tenant id" of `npm start`).';
  const components = new Components();
  components.add(errorEnvelope, 'output'); // named ErrorEnvelope: every error response refers to it
  const paths: Record<string, Record<string, Json>> = {};

  for (const spec of specs) {
    const path = openApiPath(spec.path);
    const parameters: Json[] = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => ({
      name: m[1],
      in: 'path',
      required: true,
      schema: { type: 'string' },
    }));
    if (spec.tenantScoped) {
      parameters.push({
        name: 'X-Tenant-Id',
        in: 'header',
        required: true,
        schema: { type: 'string', format: 'uuid' },
        example: sandboxTenantId ?? TENANT_ID,
        description: tenantHeaderDescription,
      });
    }
    const methods = [spec.method, ...(spec.alsoMethods ?? [])];
    const writes = methods.some((m) => m !== 'GET');
    if (writes) {
      parameters.push({ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 255 }, description: 'Replays the first response for 24 h when the same key and body are sent again.' });
    }
    if (spec.query) {
      // A named query schema comes back as a $ref; its properties become the query parameters and
      // the object itself is not a component anybody refers to.
      let query = components.add(spec.query, 'input');
      const ref = typeof query.$ref === 'string' ? query.$ref.split('/').pop()! : undefined;
      const named = ref === undefined ? undefined : components.schemas.get(ref);
      if (ref !== undefined && named !== undefined) {
        query = named;
        components.schemas.delete(ref);
      }
      const properties = (query.properties ?? {}) as Record<string, Json>;
      const required = new Set((query.required ?? []) as string[]);
      const examples = (spec.queryExample ?? {}) as Record<string, unknown>;
      for (const [name, schema] of Object.entries(properties)) {
        parameters.push({ name, in: 'query', required: required.has(name) && !('default' in schema), schema, ...(name in examples ? { example: examples[name] } : {}) });
      }
    }
    // Path parameters are checked on every route that has them (a NUL is 422 on the parameter).
    const paramErrors: ErrorKind[] = parameters.some((p) => p.in === 'path') ? ['VALIDATION_ERROR'] : [];
    const errors = [...COMMON_ERRORS, ...spec.errors, ...paramErrors, ...(writes ? WRITE_ERRORS : []), ...(spec.tenantScoped ? TENANT_ERRORS : [])];
    const operation: Json = {
      operationId: spec.name,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: [spec.tag],
      security: [{ apiKey: [] }],
      parameters,
      ...(spec.body
        ? {
            requestBody: {
              required: true,
              content: { 'application/json': { schema: components.add(spec.body, 'input'), ...(spec.example === undefined ? {} : { example: spec.example }) } },
            },
          }
        : {}),
      responses: {
        [String(spec.status)]: {
          description: SUCCESS_DESCRIPTIONS[spec.envelope],
          headers: RATE_HEADERS,
          content: {
            'application/json': { schema: components.add(spec.response, 'output'), ...(spec.responseExample === undefined ? {} : { example: successExample(spec) }) },
          },
        },
        ...errorResponses(errors, spec),
      },
    };
    paths[path] ??= {};
    for (const method of methods) {
      paths[path][method.toLowerCase()] = method === spec.method ? operation : { ...operation, operationId: `${spec.name}.${method.toLowerCase()}` };
    }
  }

  for (const route of publicRoutes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: `public${route.path.replace(/[^a-z]+/gi, '_')}`,
      summary: route.summary,
      tags: ['Service'],
      security: [],
      responses: {
        '200': {
          description: route.summary,
          content: {
            [route.contentType]: {
              schema: route.schema ? components.add(route.schema, 'output') : { type: route.contentType === 'application/json' ? 'object' : 'string' },
              ...(route.example === undefined ? {} : { example: route.example }),
            },
          },
        },
        ...(route.path === '/readyz'
          ? { '503': { description: 'The database is unreachable.', content: { 'application/json': { schema: { type: 'object' }, example: { status: 'unavailable', database: 'unreachable' } } } } }
          : {}),
      },
    };
  }

  return withoutSafeIntegerBounds({
    openapi: '3.1.0',
    info: {
      title: 'Partner Inventory and Tenant Service',
      version: info.version,
      description:
        info.description ??
        'The v1 partner API: stock adjustments, transfers, inbound shipments, tenants and areas. ' +
          `Every error uses one envelope; error.code is one of ${ERROR_KINDS.join(', ')}.`,
    },
    servers: [{ url: '/' }],
    // Every partner operation needs the key; the reference's request panel offers it up front.
    security: [{ apiKey: [] }],
    tags: [...new Set(specs.map((s) => s.tag))].map((name) => ({ name })),
    components: {
      securitySchemes: {
        apiKey: {
          type: 'apiKey',
          in: 'header',
          name: 'Authorization',
          description: 'Your API key (`pk_live_…` or `pk_test_…`), bare or as `Bearer <key>`. See the Authentication chapter.',
        },
      },
      schemas: Object.fromEntries(components.schemas),
    },
    paths,
  }) as Json;
}
