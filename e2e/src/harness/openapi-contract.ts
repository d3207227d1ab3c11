// The one contract check every gateway response goes through: the live /openapi.json, validated
// as an OpenAPI 3.1 document by @seriousme/openapi-schema-validator and used by openapi-backend
// to validate each response (status documented, JSON body against that status's schema, response
// headers against the documented ones).
import { createHash } from 'node:crypto';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OpenAPIBackend, type Document, SetMatchType, ValidationContext } from 'openapi-backend';
import { expect } from 'vitest';
import type { GatewayResponse, JsonBody } from './gateway-response.js';

/** Keywords of JSON Schema 2020-12 that a draft-07 validator would silently ignore. */
const DRAFT_2020_ONLY = ['prefixItems', '$dynamicRef', '$dynamicAnchor', 'unevaluatedProperties', 'unevaluatedItems', 'dependentSchemas', 'dependentRequired', 'minContains', 'maxContains'];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
// RFC 3339 date-time (the contract narrows it further with its own `pattern`).
const DATE_TIME = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[Zz]|[+-]\d{2}:\d{2})$/;
const DATE = /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])$/;

export interface LiveContract {
  /** The document as served. */
  document: JsonBody;
  api: OpenAPIBackend;
  /** Validates `value` against a named component schema (`#/components/schemas/<name>`). */
  validateComponent(name: string, value: unknown): { valid: boolean; errors: unknown };
  /** Validates `value` against an inline schema of the document (a parameter's). */
  validateSchema(schema: object, value: unknown): { valid: boolean; errors: unknown };
}

/** Per gateway URL, and per document text: every gateway of a run serves the same document, compiled once. */
const byUrl = new Map<string, Promise<LiveContract>>();
const byDocument = new Map<string, Promise<LiveContract>>();

function keywordsIn(value: unknown, found: Set<string>): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => keywordsIn(v, found));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (DRAFT_2020_ONLY.includes(k)) found.add(k);
      keywordsIn(v, found);
    }
  }
  return found;
}

function isUri(value: string): boolean {
  try {
    return new URL(value).protocol.length > 1;
  } catch {
    return false;
  }
}

async function compileContract(document: JsonBody): Promise<LiveContract> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document));
  expect(result.errors ?? [], 'GET /openapi.json is a valid OpenAPI document').toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version, 'OpenAPI version of /openapi.json').toBe('3.1');
  // openapi-backend compiles schemas with Ajv's default (draft-07) dialect, which agrees with
  // 2020-12 on every keyword this document uses; refuse a document that would need more.
  expect([...keywordsIn(document, new Set())], 'JSON Schema 2020-12-only keywords').toEqual([]);

  const api = new OpenAPIBackend({
    definition: structuredClone(document) as Document,
    // The definition was validated above as 3.1; openapi-backend's own check only knows 3.0.
    quick: true,
    strict: true,
    customizeAjv: (ajv) => ajv.addFormat('uuid', UUID).addFormat('date-time', DATE_TIME).addFormat('date', DATE).addFormat('uri', isUri),
  });
  await api.init();
  const componentValidator = api.validator.getAjv(ValidationContext.Response);
  const schemas = (api.definition as JsonBody).components.schemas as Record<string, object>;
  const compiled = new Map<string, (value: unknown) => boolean>();
  return {
    document,
    api,
    validateComponent(name, value) {
      let validate = compiled.get(name);
      if (validate === undefined) {
        const schema = schemas[name];
        if (schema === undefined) throw new Error(`no component schema ${name}`);
        validate = componentValidator.compile<unknown>(schema);
        compiled.set(name, validate);
      }
      const valid = validate(value);
      return { valid, errors: (validate as { errors?: unknown }).errors ?? null };
    },
    validateSchema(schema, value) {
      const validate = componentValidator.compile<unknown>(schema);
      const valid = validate(value);
      return { valid, errors: (validate as { errors?: unknown }).errors ?? null };
    },
  };
}

/** A delivery as a partner's endpoint receives it: the raw body and the request headers by lower-case name. */
export interface ReceivedWebhook {
  body: string;
  headers: Readonly<Record<string, string | undefined>>;
}

/**
 * Checks a delivery against the `webhooks` entry of its type in the live /openapi.json: the body
 * against the payload component the entry refers to, and every documented header present and
 * valid (an integer header as the number it spells). Returns the parsed payload.
 *
 * @example
 * expectWebhookContract(contract, { body: arrival.body, headers: { 'x-webhook-id': arrival.id } });
 */
export function expectWebhookContract(contract: LiveContract, received: ReceivedWebhook): JsonBody {
  const payload = JSON.parse(received.body) as JsonBody;
  const operation = (contract.document.webhooks as Record<string, { post?: JsonBody }> | undefined)?.[payload.type as string]?.post;
  expect(operation, `/openapi.json documents the ${String(payload.type)} webhook`).toBeDefined();
  const ref = operation!.requestBody.content['application/json'].schema.$ref as string;
  const checked = contract.validateComponent(ref.replace('#/components/schemas/', ''), payload);
  expect(checked.errors, `${String(payload.type)} payload against ${ref}`).toBeNull();
  expect(checked.valid).toBe(true);
  for (const parameter of operation!.parameters as Array<{ name: string; in: string; required: boolean; schema: { type: string } }>) {
    const value = received.headers[parameter.name.toLowerCase()];
    if (value === undefined) {
      expect(parameter.required, `${parameter.name} is optional`).toBe(false);
      continue;
    }
    const header = contract.validateSchema(parameter.schema, parameter.schema.type === 'integer' && /^\d+$/.test(value) ? Number(value) : value);
    expect(header.errors, `${parameter.name}: ${value}`).toBeNull();
  }
  return payload;
}

async function loadContract(baseUrl: string): Promise<LiveContract> {
  const res = await fetch(`${baseUrl}/openapi.json`);
  expect(res.status, 'GET /openapi.json').toBe(200);
  const text = await res.text();
  const digest = createHash('sha256').update(text).digest('hex');
  let contract = byDocument.get(digest);
  if (contract === undefined) {
    contract = compileContract(JSON.parse(text) as JsonBody);
    byDocument.set(digest, contract);
  }
  return contract;
}

/**
 * The live contract of a gateway, loaded once per base URL and checked (as a document) and
 * compiled once per distinct document.
 *
 * @example
 * const { document } = await liveContract(gateway.url);
 */
export function liveContract(baseUrl: string): Promise<LiveContract> {
  let contract = byUrl.get(baseUrl);
  if (contract === undefined) {
    contract = loadContract(baseUrl);
    byUrl.set(baseUrl, contract);
  }
  return contract;
}

function describeResponse(res: GatewayResponse): string {
  return `${res.method} ${res.path} → ${res.status} ${res.text.slice(0, 600)}`;
}

const STACK_OR_SQL = [
  /\n\s+at [^\n]+:\d+:\d+/, // a stack frame
  /\.(?:ts|js|mjs|cjs):\d+/, // a source location
  /node_modules|\/work\/|\/home\/|\/tmp\//, // an internal path
  /\b(?:select|insert into|update|delete from)\b[^"]{0,200}\b(?:from|values|set|where)\b/i, // SQL text
  /SQLITE_|sqlite_|\bpg_|violates|constraint|relation "|syntax error/i, // driver errors
];

/**
 * Checks a gateway response against the live /openapi.json and the invariants every response
 * has: a JSON body, `request_id` equal to the `X-Request-Id` header, and no stack trace, SQL or
 * internal path in the body. A documented operation must list the status, and body and headers
 * must validate against it. Responses outside every operation (404 for an unknown path, 405 for a
 * known path) must carry the ErrorEnvelope, and a 405's `Allow` must list exactly the methods the
 * document has for that path.
 *
 * @example
 * const res = await gateway.get('/api/partner/v1/tenants', { key });
 * await expectContract(res, 'GET', '/api/partner/v1/tenants');
 */
export async function expectContract(res: GatewayResponse, method: string, pathTemplate: string): Promise<GatewayResponse> {
  const contract = await liveContract(res.baseUrl);
  const where = describeResponse(res);
  const pathItem = contract.document.paths[pathTemplate] as Record<string, JsonBody> | undefined;
  const operation = pathItem?.[method.toLowerCase()] as JsonBody;
  const contentType = (res.headers['content-type'] ?? '').split(';')[0]!.trim();
  expect(res.headers['x-request-id'], `${where}: X-Request-Id`).toMatch(UUID);
  if (operation !== undefined && contentType !== 'application/json') {
    // A documented non-JSON response (the /docs page): only its status and type can be checked.
    expect(Object.keys(operation.responses?.[String(res.status)]?.content ?? {}), `${where}: content type documented`).toContain(contentType);
    return res;
  }
  // The document itself is published prose with code samples (HMAC verification calls `update`):
  // every other answer must show nothing internal.
  if (pathTemplate !== '/openapi.json') {
    for (const pattern of STACK_OR_SQL) expect(res.text, `${where}: nothing internal in the body`).not.toMatch(pattern);
  }
  expect(contentType, `${where}: content type`).toBe('application/json');
  expect(res.body, `${where}: JSON body`).toBeTypeOf('object');
  // Envelopes (every partner route and every error) carry the request id; the probes do not.
  if (operation === undefined || pathTemplate.startsWith('/api/')) {
    expect(res.body.request_id, `${where}: request_id equals X-Request-Id`).toBe(res.headers['x-request-id']);
  }

  if (operation === undefined) {
    const envelope = contract.validateComponent('ErrorEnvelope', res.body);
    expect(envelope.errors, `${where}: ErrorEnvelope`).toBeNull();
    if (pathItem === undefined) {
      expect(res.status, `${where}: a path missing from the document is not served`).toBe(404);
    } else {
      expect(res.status, `${where}: a method missing from the document is not served`).toBe(405);
      const documented = Object.keys(pathItem).map((m) => m.toUpperCase());
      const allowed = (res.headers['allow'] ?? '').split(',').map((m) => m.trim()).filter((m) => m !== '' && m !== 'HEAD');
      expect(allowed.sort(), `${where}: Allow lists the documented methods`).toEqual(documented.sort());
    }
    return res;
  }

  const status = String(res.status);
  expect(Object.keys(operation.responses), `${where}: status documented for ${method} ${pathTemplate}`).toContain(status);
  const documentedTypes = Object.keys(operation.responses[status].content ?? {});
  expect(documentedTypes, `${where}: content type documented`).toContain('application/json');
  const body = contract.api.validateResponse(res.body, operation.operationId as string, res.status);
  expect(body.errors, `${where}: body matches the ${status} schema of ${operation.operationId}`).toBeNull();
  const headers = contract.api.validateResponseHeaders(res.headers, operation.operationId as string, { statusCode: res.status, setMatchType: SetMatchType.Superset });
  expect(headers.errors, `${where}: headers ${JSON.stringify(res.headers)} match the ${status} response of ${operation.operationId}`).toBeNull();
  return res;
}
