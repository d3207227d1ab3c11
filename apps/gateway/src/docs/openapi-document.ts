// The OpenAPI 3.1 document, generated from the same route specs and zod schemas that serve and
// validate requests. Named schemas (zod `.meta({ id })`) become components. Each operation carries
// the examples of its route spec (request body, query parameters, the success envelope) and one
// example refusal per error code it can answer. The `webhooks` section describes what the service
// sends to partners' endpoints, one operation per event type (webhook-document.ts).
import { EXAMPLE_TENANT_ID, INT32_MAX, TEXT_LIMITS, UNCHECKED_TEXT, errorEnvelope } from '@pits/contract';
import { ERROR_KINDS, type ErrorKind } from '@pits/domain';
import { z } from 'zod';
import { ERROR_STATUS, errorBody } from '../http/index.js';
import type { Route } from '../routes/route-spec.js';
import { type RouteView, errorExample } from './error-examples.js';
import { ERROR_CONDITIONS } from './guides.js';
import { SANDBOX_RECORDS, type SandboxIds } from './sandbox-ids.js';
import { MAX_UNIX_SECONDS, WEBHOOK_TAG, webhookOperations } from './webhook-document.js';

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
  /** What the route is for, beyond its summary. */
  description: string;
  /** An example answer (JSON routes). */
  example?: unknown;
  /** A liveness or readiness probe: never counted against a rate limit (docs/rate-limits.md#without-a-valid-key). */
  probe?: true;
}

/**
 * A request body's schema as client generators read it. A field with a default may be left out,
 * and the schema says so (it is not `required`); but openapi-typescript, the generator the README
 * names, types a property that has a `default` in a component schema as always present, so a
 * client could not send a hold without `expires_in`. Request schemas therefore state each default
 * in words (their descriptions mostly do already) instead of as `default`.
 */
function defaultsInWords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(defaultsInWords);
  if (value === null || typeof value !== 'object') return value;
  const { default: fallback, ...schema } = Object.fromEntries(Object.entries(value).map(([key, v]) => [key, key === 'examples' || key === 'example' ? v : defaultsInWords(v)])) as Json;
  if (fallback === undefined) return schema;
  const description = typeof schema.description === 'string' ? schema.description : '';
  // An object that defaults to `{}` is a body that may be left out: the operation's `required: false` says so.
  const worded = /\bdefault\b/i.test(description) || (typeof fallback === 'object' && fallback !== null && Object.keys(fallback).length === 0);
  return worded ? schema : { ...schema, description: `${description}${description === '' || description.endsWith('.') ? '' : '.'}${description === '' ? '' : ' '}Default: \`${JSON.stringify(fallback)}\`.` };
}

class Components {
  readonly schemas = new Map<string, Json>();
  private readonly seen = new Map<string, string>();

  /**
   * Converts a schema, moving its named parts into components; returns the schema to embed.
   * `request`: a request body's, whose defaults are stated in words (`defaultsInWords`).
   */
  add(schema: z.ZodType, io: 'input' | 'output', request = false): Json {
    const json = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
    const converted = (request ? defaultsInWords(json) : json) as Json;
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

/** Bounds of the rate-limit figures: the settings' ranges (docs/rate-limits.md); a reset is at most MAX_UNIX_SECONDS. */
const MAX_LIMIT = 1_000_000;
const MAX_WINDOW_SECONDS = 3600;

const RATE_LIMIT_SENT =
  'Sent on every answer to a request with a valid API key, success or refusal, for the tightest bucket that applies; ' +
  "on a 401 and on the public routes, for the client address's budget of requests without a valid key " +
  '(docs/rate-limits.md); absent when the rate-limit store failed and the request went through uncounted.';

/** Response headers the gateway sends, declared once and referred to by every response that carries them. */
const HEADERS: Record<string, Json> = {
  RateLimit: {
    description: `The IETF RateLimit header: \`limit=<n>, remaining=<n>, reset=<seconds>\`. ${RATE_LIMIT_SENT}`,
    schema: { type: 'string', maxLength: 64, pattern: '^limit=\\d+, remaining=\\d+, reset=\\d+$' },
  },
  'RateLimit-Policy': {
    description: `The IETF RateLimit-Policy header: \`<limit>;w=<window seconds>\` of each bucket that applies, the reported one first. ${RATE_LIMIT_SENT}`,
    schema: { type: 'string', maxLength: 64, pattern: '^\\d+;w=\\d+(, \\d+;w=\\d+)*$' },
  },
  'X-RateLimit-Limit': {
    description: `Requests allowed in the window of the tightest bucket. ${RATE_LIMIT_SENT}`,
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_LIMIT },
  },
  'X-RateLimit-Remaining': {
    description: `Requests left in that window. ${RATE_LIMIT_SENT}`,
    schema: { type: 'integer', format: 'int32', minimum: 0, maximum: MAX_LIMIT },
  },
  'X-RateLimit-Reset': {
    description: `Unix time (seconds) when the window resets. ${RATE_LIMIT_SENT}`,
    schema: { type: 'integer', format: 'int64', minimum: 0, maximum: MAX_UNIX_SECONDS },
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying: until the bucket resets on 429, a fixed delay on 503.',
    schema: { type: 'integer', format: 'int32', minimum: 1, maximum: MAX_WINDOW_SECONDS },
  },
  'X-Request-Id': {
    description: 'The request id (a UUID v4), as request_id in a JSON body; sent on every answer.',
    schema: { type: 'string', format: 'uuid', maxLength: 36 },
  },
};

const headerRefs = (names: readonly string[]): Json => Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));

const RATE_LIMIT_HEADER_NAMES = ['RateLimit', 'RateLimit-Policy', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'];

/**
 * The headers of an answer with this status: the request id always; the rate-limit headers once the
 * request was counted: every answer but 503, which an unreachable database answers while the key is
 * looked up, before any counting (a 401, and every request to a public route, counts against the
 * address's budget of requests without a valid key, before the route's handler runs); Retry-After
 * on 429 and 503.
 */
function answerHeaders(status: number, counted = true): Json {
  return headerRefs([
    'X-Request-Id',
    ...(status === 503 || !counted ? [] : RATE_LIMIT_HEADER_NAMES),
    ...(status === 429 || status === 503 ? ['Retry-After'] : []),
  ]);
}

/** The request_id of every example response (a fresh UUID v4 on a real one). */
export const EXAMPLE_REQUEST_ID = '3f6c1f9e-2b7d-4c11-9a0e-5d8e7f6a1b2c';

/** The success envelope around a route's example data, as the route's envelope shapes it. */
function successExample(spec: Route): Json {
  const { responseExample: data } = spec;
  return spec.envelope === 'A'
    ? { status: 'ok', data, errors: null, request_id: EXAMPLE_REQUEST_ID }
    : { status: spec.status, message: 'Ok', data, errors: null, request_id: EXAMPLE_REQUEST_ID };
}

/** Fixed lengths of string formats: a UUID is 36 characters, a date YYYY-MM-DD 10. */
const FORMAT_LENGTHS: Record<string, number> = { uuid: 36, date: 10 };

/**
 * Text as the input rules allow it (docs/input-rules.md#text): no U+0000 and no unpaired UTF-16
 * surrogate, anything else. Every text field is refused otherwise, and everything stored passed the
 * same rule, so answers obey it too. It reads the same with and without a regex's `u` flag.
 */
const TEXT_PATTERN = '^(?:[^\\u0000\\uD800-\\uDFFF]|[\\uD800-\\uDBFF][\\uDC00-\\uDFFF])*$';

/**
 * What every schema of the document states alike: an integer's format follows from its bounds
 * (int32 when they fit, else int64; zod bounds `z.int()` by ±(2^53 - 1), the integers a JSON number
 * holds exactly), a string of a fixed-length format has that length as its maximum, and free text
 * (a string without a format, pattern or set of values) follows the text rule, `TEXT_PATTERN`;
 * except the error fields that may repeat a client's own unchecked input (an unknown key), which
 * the contract marks with `UNCHECKED_TEXT`: they are bounded by the body's size alone, and the
 * marker is not published.
 */
function withFormatFacts(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withFormatFacts);
  if (value === null || typeof value !== 'object') return value;
  const { [UNCHECKED_TEXT]: unchecked, ...schema } = Object.fromEntries(Object.entries(value).map(([key, v]) => [key, withFormatFacts(v)])) as Json;
  if (schema.type === 'integer' && schema.format === undefined) {
    const min = (schema.minimum ?? schema.exclusiveMinimum) as number | undefined;
    const max = (schema.maximum ?? schema.exclusiveMaximum) as number | undefined;
    if (min !== undefined && max !== undefined) schema.format = min >= -INT32_MAX - 1 && max <= INT32_MAX ? 'int32' : 'int64';
  }
  if (schema.type === 'string' && typeof schema.format === 'string' && schema.maxLength === undefined && FORMAT_LENGTHS[schema.format] !== undefined) {
    schema.maxLength = FORMAT_LENGTHS[schema.format];
  }
  const freeText = schema.type === 'string' && [schema.format, schema.pattern, schema.enum, schema.const].every((fact) => fact === undefined);
  if (freeText && unchecked !== true) schema.pattern = TEXT_PATTERN;
  return schema;
}

/**
 * The error responses of a route (a partner route, or the view of a public one): one per status,
 * with the example refusal of each kind; `notes` adds why, by status, to the description.
 */
function errorResponses(kinds: Iterable<ErrorKind>, route: RouteView, notes: Readonly<Partial<Record<number, string>>> = {}, counted = true): Record<string, Json> {
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
          description: `Error envelope; error.code is ${kinds.map((kind) => `\`${kind}\``).join(' or ')}${notes[status] === undefined ? '' : `: ${notes[status]}`}.`,
          headers: answerHeaders(status, counted),
          content: {
            'application/json': {
              schema: { $ref: '#/components/schemas/ErrorEnvelope' },
              examples: Object.fromEntries(kinds.map((kind) => [kind, { summary: kind, description: ERROR_CONDITIONS[kind], value: errorBody(errorExample(kind, route), EXAMPLE_REQUEST_ID) }])),
            },
          },
        },
      ]),
  );
}

/** A page or script the gateway serves from its own files (the reference's renderer is about 3.5 MB). */
const SERVED_TEXT: Json = { type: 'string', maxLength: 16_777_216, description: 'The file as this version of the service ships it.' };

/** What each tag groups, for the reference's sections. */
const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  Tenants: 'Connecting to a merchant (authorize, deauthorize) and reading its locations and logistics preferences.',
  Adjustments: 'Stock adjustments: create, approve or reject an increase or decrease of good or damaged stock.',
  Transfers: 'Stock transfers between two locations of a tenant: create, approve, reject, ship and receive.',
  Products: "The tenant's catalogue, by id, SKU, barcode or name.",
  Stock: 'Stock levels per location and product, the movement ledger, and stock counts (compare-and-set).',
  Reservations: 'Order holds: stock held for an order until it ships, is cancelled or expires.',
  Inbound: 'Inbound shipments to a location: list, read and receive them.',
  Webhooks: 'Webhook endpoints, deliveries, redelivery and test events; the webhooks section lists every event with its payload and signature headers, and the guide chapter Webhooks shows how to verify them.',
  Areas: 'Administrative areas (province, city, district, subdistrict) and postcodes.',
  Service: 'Probes, this document and the reference page; no API key needed.',
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
  /** The sandbox's records (DOCS_SANDBOX_IDS): path ids are pre-filled with them, so Test Request finds a record. */
  sandboxIds?: SandboxIds;
}

/**
 * A path parameter as its route's spec describes it, with the example Test Request pre-fills: the
 * sandbox's record when this server knows it, else the reference's example. A route that leaves
 * a parameter undescribed is a bug: the document is not built.
 */
function pathParameter(spec: Route, name: string, sandboxIds: SandboxIds): Json {
  const doc = spec.params?.[name];
  if (doc === undefined) throw new Error(`route ${spec.name} does not describe its path parameter :${name} (params in its spec)`);
  const sandboxId = doc.sandbox === undefined ? undefined : sandboxIds[doc.sandbox];
  const example = sandboxId ?? doc.example;
  const prefilled = sandboxId === undefined || doc.sandbox === undefined ? '' : ` Pre-filled with this sandbox's ${SANDBOX_RECORDS[doc.sandbox]}.`;
  return {
    name,
    in: 'path',
    required: true,
    schema: { type: 'string', minLength: 1, maxLength: TEXT_LIMITS.head },
    example,
    description: `${doc.description}, e.g. \`${example}\`.${prefilled} ${spec.tenantScoped ? "Another tenant's" : "Another partner's"} or an unknown id is 404.`,
  };
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
    const parameters: Json[] = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => pathParameter(spec, m[1]!, info.sandboxIds ?? {}));
    if (spec.tenantScoped) {
      parameters.push({
        name: 'X-Tenant-Id',
        in: 'header',
        required: true,
        schema: { type: 'string', format: 'uuid' },
        example: sandboxTenantId ?? EXAMPLE_TENANT_ID,
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
              // A write without a body is parsed as `{}` (validateBody): where that is a valid body, the body may be left out.
              required: !spec.body.safeParse({}).success,
              content: { 'application/json': { schema: components.add(spec.body, 'input', true), ...(spec.example === undefined ? {} : { example: spec.example }) } },
            },
          }
        : {}),
      responses: {
        [String(spec.status)]: {
          description: SUCCESS_DESCRIPTIONS[spec.envelope],
          headers: answerHeaders(spec.status),
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
    // Probes are never counted (docs/rate-limits.md#without-a-valid-key): no budget to report, no 429.
    const counted = route.probe !== true;
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = {
      operationId: `public${route.path.replace(/[^a-z]+/gi, '_')}`,
      summary: route.summary,
      description: route.description,
      tags: ['Service'],
      // No key needed: an empty requirement says so explicitly.
      security: [{}],
      responses: {
        '200': {
          description: route.summary,
          headers: answerHeaders(200, counted),
          content: {
            [route.contentType]: {
              schema: route.schema ? components.add(route.schema, 'output') : route.contentType === 'application/json' ? { type: 'object' } : SERVED_TEXT,
              ...(route.example === undefined ? {} : { example: route.example }),
            },
          },
        },
        ...(route.path === '/readyz'
          ? {
              '503': {
                description: 'The database is unreachable, or the process starts or stops.',
                headers: answerHeaders(503),
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Readiness' }, example: { status: 'unavailable', database: 'unreachable' } } },
              },
            }
          : {}),
        // Counted against the client address's budget of requests without a valid key, before the
        // handler runs; anything unexpected answers the error envelope, as on every route.
        ...errorResponses(
          counted ? ['RATE_LIMITED', 'INTERNAL_ERROR'] : ['INTERNAL_ERROR'],
          { name: `public${route.path}`, path: route.path, tag: 'Service', tenantScoped: false },
          { 429: 'too many requests without a valid key from this address in the window' },
          counted,
        ),
      },
    };
  }

  // What this service sends to partners' endpoints: OpenAPI 3.1 webhooks, one per event type.
  const webhooks = webhookOperations((schema) => components.add(schema, 'output'));

  const tags = [...new Set([...specs.map((s) => s.tag), WEBHOOK_TAG, ...(publicRoutes.length > 0 ? ['Service'] : [])])];
  return withFormatFacts({
    openapi: '3.1.0',
    info: {
      title: 'Partner Inventory and Tenant Service',
      version: info.version,
      description:
        info.description ??
        'The v1 partner API: stock adjustments, transfers, inbound shipments, tenants and areas. ' +
          `Every error uses one envelope; error.code is one of ${ERROR_KINDS.join(', ')}.`,
      contact: { name: 'Partner integrations: the team that issued your API key' },
      license: { name: 'Proprietary: for partners under their partner agreement', identifier: 'LicenseRef-Proprietary' },
    },
    // The partner API, published to partners (not an internal server).
    servers: [{ url: '/', description: 'The gateway serving this document (production, staging or local alike)', 'x-internal': false }],
    // Every partner operation needs the key; the reference's request panel offers it up front.
    security: [{ apiKey: [] }],
    tags: tags.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Operations of ${name}.` })),
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
      headers: HEADERS,
    },
    paths,
    webhooks,
  }) as Json;
}
