// The contract's request and response schemas, taken from the routes that serve them: each
// converts to JSON Schema under a unique id, and every body and query refuses hostile input on the
// right field without throwing (docs/input-rules.md#text). A route added later is covered without a list to update.
import { errorEnvelope, formatIssuePath, parseWith } from '@pits/contract';
import { createCredentialCipher } from '@pits/persistence';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { partnerRoutes } from './partner-routes.js';

interface SchemaEntry {
  /** The schema's id, as the OpenAPI document names it. */
  name: string;
  direction: 'request' | 'response';
  schema: z.ZodType;
}

const routes = partnerRoutes({ cipher: createCredentialCipher('c'.repeat(64)), urlPolicy: { allowPrivate: false }, resolveHost: () => Promise.resolve([]) });

/** Each schema the routes use once (several routes share one), and the error envelope every route can answer. */
function contractSchemas(): SchemaEntry[] {
  const seen = new Map<z.ZodType, SchemaEntry>();
  const add = (schema: z.ZodType | undefined, direction: SchemaEntry['direction']) => {
    if (schema === undefined || seen.has(schema)) return;
    seen.set(schema, { name: String(z.globalRegistry.get(schema)?.id), direction, schema });
  };
  for (const route of routes) {
    add(route.body, 'request');
    add(route.query, 'request');
    add(route.response, 'response');
  }
  add(errorEnvelope, 'response');
  return [...seen.values()];
}

const schemas = contractSchemas();
const requests = schemas.filter((e) => e.direction === 'request');

describe('the schemas of the partner routes', () => {
  it('finds the bodies, queries and responses of every route', () => {
    expect(schemas.map((e) => e.name)).toEqual(
      expect.arrayContaining(['CreateAdjustmentBody', 'InboundListQuery', 'RegisterWebhookBody', 'AreaDetailResponse', 'ListDeliveriesResponse', 'ErrorEnvelope']),
    );
    expect(requests.length).toBeGreaterThanOrEqual(19);
  });

  it.each(schemas.map((entry) => [entry.name, entry] as const))('%s converts to JSON Schema', (_name, entry) => {
    const json = z.toJSONSchema(entry.schema, entry.direction === 'request' ? { io: 'input' } : {});
    expect(json).toBeTypeOf('object');
  });

  it('gives every schema a unique id and a description for the OpenAPI document', () => {
    const ids = schemas.map(({ schema }) => {
      const meta = z.globalRegistry.get(schema);
      expect(meta?.description, `${String(meta?.id)} description`).toBeTruthy();
      return meta?.id;
    });
    expect(ids.every((id) => typeof id === 'string')).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('converts all of them in one document without clashing ids', () => {
    const registry = z.registry<{ id: string }>();
    for (const { schema, name } of schemas) registry.add(schema, { id: name });
    expect(() => z.toJSONSchema(registry, { io: 'input' })).not.toThrow();
  });

  it('documents query defaults and integer types as a client reads them', () => {
    const query = schemas.find((e) => e.name === 'InboundListQuery');
    const json = z.toJSONSchema(query!.schema, { io: 'input' }) as { $defs: Record<string, { properties: Record<string, object> }> };
    expect(json.$defs['InboundListQuery']?.properties['per_page']).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
  });
});

/** A valid input of every request schema, by id, with every optional text field present and each array holding one element. */
const VALID_REQUESTS: Record<string, Record<string, unknown>> = {
  CreateAdjustmentBody: {
    location_id: 3,
    type: 'increase',
    stock_source: 'good',
    reason: 'recount',
    items: [{ product_id: '1042', quantity: '2', unit_cost: '10', notes: 'shelf' }],
  },
  AdjustmentListQuery: { page: '1', per_page: '10', status: 'pending', location_id: '3', type: 'increase' },
  ApproveAdjustmentBody: {},
  RejectAdjustmentBody: { reason: 'wrong count' },
  CreateTransferBody: {
    from_location_id: 1,
    to_location_id: 2,
    transfer_date: '2026-02-01',
    expected_arrival_date: '2026-02-03',
    reference_number: 'PO-1',
    notes: 'weekly',
    items: [{ product_id: '1042', quantity: '2', notes: 'fragile' }],
  },
  TransferListQuery: { status: 'pending', from_location_id: '1', to_location_id: '2', transfer_date_from: '2026-01-01', transfer_date_to: '2026-01-31' },
  TransferActionBody: {},
  RejectTransferBody: { reason: 'not needed' },
  CreateReservationBody: { location_id: 3, reference: 'ORD-1001', expires_in: 900, items: [{ sku: 'MUG', quantity: '2' }] },
  ReservationListQuery: { page: '1', per_page: '10', status: 'active', location_id: '3', reference: 'ORD-1001', sku: 'MUG' },
  ExtendReservationBody: { expires_in: 3600 },
  ReleaseReservationBody: { reason: 'order cancelled' },
  ConsumeReservationBody: { items: [{ product_id: '1042', quantity: '1' }] },
  InboundListQuery: { status: 'pending', location_id: '3' },
  ReceiveInboundBody: {
    items: [{ item_id: '9001', received_quantity: '5', received_at: '2026-01-31T08:00:00Z', received_by: 'Budi', condition: 'good', grid_id: 'RCV-1' }],
  },
  AuthorizeTenantBody: { tenant_id: '0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b', days_connected: 3, installation_type: 'custom' },
  DeauthorizeTenantBody: { tenant_id: '0b7e4c1a-2f3d-4e5f-8a9b-1c2d3e4f5a6b', uninstall_reason: 'closing' },
  TenantPageQuery: {},
  AreaSearchQuery: { search_by: 'city', search_value: 'Jakarta' },
  AreaDetailQuery: { subdistrict_code: '31.74.05.1001' },
  StockQuery: { location_id: '3', product_id: '1042,1043', sku: 'MUG,CUP' },
  StockLotsQuery: { location_id: '3', product_id: '1042,1043', sku: 'MUG,CUP', expiring_before: '2027-01-01', sellable: 'true' },
  StockCountBody: { location_id: 3, stock_source: 'good', items: [{ sku: 'MUG', counted: '4', expected: '5' }] },
  ProductListQuery: { page: '1', per_page: '20', sku: 'MUG,CUP', barcode: '8991001', search: 'mug' },
  StockMovementsQuery: { from: '2026-01-01', to: '2026-01-31T00:00:00Z', cursor: 'abc' },
  RegisterWebhookBody: { url: 'https://partner.example/hook', event_types: ['inbound.status_changed'], description: 'inbound' },
  UpdateWebhookBody: { event_types: ['inbound.status_changed'], active: false },
  DeliveriesQuery: { status: 'failed', endpoint_id: '4' },
};

type JsonSchema = { type?: string; properties?: Record<string, JsonSchema>; items?: JsonSchema; anyOf?: JsonSchema[]; $ref?: string; enum?: unknown[]; format?: string; pattern?: string };

/**
 * Every path at which the JSON Schema of a request accepts a string, with whether it is free text
 * (no enum, format or pattern narrows it). Arrays are entered at their first element.
 */
function stringPaths(schema: JsonSchema, defs: Record<string, JsonSchema>, path: (string | number)[] = []): { path: (string | number)[]; free: boolean }[] {
  const resolved = schema.$ref ? defs[schema.$ref.replace('#/$defs/', '')]! : schema;
  const found: { path: (string | number)[]; free: boolean }[] = [];
  const strings = [resolved, ...(resolved.anyOf ?? [])].filter((s) => s.type === 'string');
  if (strings.length > 0) found.push({ path, free: strings.some((s) => !s.enum && !s.format && !s.pattern) });
  for (const [key, child] of Object.entries(resolved.properties ?? {})) found.push(...stringPaths(child, defs, [...path, key]));
  if (resolved.items) found.push(...stringPaths(resolved.items, defs, [...path, 0]));
  return found;
}

function withValue(input: Record<string, unknown>, path: (string | number)[], value: string): unknown {
  const copy = structuredClone(input) as Record<string | number, unknown>;
  let target = copy;
  for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
  target[path.at(-1)!] = value;
  return copy;
}

describe('hostile text in every request (docs/input-rules.md#text)', () => {
  it('has a valid sample of every request schema', () => {
    for (const { name, schema } of requests) {
      expect(VALID_REQUESTS[name], name).toBeDefined();
      expect(parseWith(schema, VALID_REQUESTS[name]), name).toMatchObject({ ok: true });
    }
  });

  const cases = requests.flatMap(({ name, schema }) => {
    const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema & { $defs?: Record<string, JsonSchema> };
    return stringPaths(json, json.$defs ?? {}).flatMap(({ path, free }) =>
      [
        ['NUL', '\u0000', 'must not contain the NUL character'],
        ['a lone surrogate', '\ud800', 'must not contain unpaired surrogates (invalid Unicode)'],
      ].map(([what, bad, issue]) => [`${name} ${formatIssuePath(path)}: ${what!}`, { schema, name, path, free, bad: bad!, issue: issue! }] as const),
    );
  });

  it('finds the text fields it checks', () => {
    const fields = cases.map(([title]) => title);
    for (const expected of ['CreateAdjustmentBody reason: NUL', 'CreateAdjustmentBody items[0].notes: NUL', 'ReceiveInboundBody items[0].grid_id: NUL', 'AreaSearchQuery search_value: NUL', 'StockMovementsQuery cursor: NUL']) {
      expect(fields).toContain(expected);
    }
  });

  it.each(cases)('%s is refused on that field', (_title, { schema, name, path, free, bad, issue }) => {
    const sample = VALID_REQUESTS[name]!;
    const original = path.reduce<unknown>((value, key) => (value as Record<string | number, unknown>)[key], sample);
    for (const text of [`${String(original ?? 'x')}${bad}`, bad]) {
      const result = parseWith(schema, withValue(sample, path, text));
      expect(result.ok, JSON.stringify(text)).toBe(false);
      if (result.ok) continue;
      expect(result.error.details.field).toBe(formatIssuePath(path));
      // Free text says why; an enum, a date or a pattern already refuses any such character.
      if (free) expect(result.error.details.issue).toBe(issue);
    }
  });
});

describe('hostile values anywhere in a request', () => {
  const HOSTILE: unknown[] = [null, 0, -1, 1e308, true, '', '\u0000', '\udc00', [], [null], {}, { __proto__: { polluted: true } }, JSON.parse('{"__proto__": {"polluted": true}}')];

  /** Every path of the sample, containers included. */
  function paths(value: unknown, path: (string | number)[] = []): (string | number)[][] {
    if (typeof value !== 'object' || value === null) return [path];
    const entries: [string | number, unknown][] = Array.isArray(value) ? value.map((v, i) => [i, v]) : Object.entries(value);
    return [path, ...entries.flatMap(([key, child]) => paths(child, [...path, key]))];
  }

  it.each(requests.map((e) => [e.name, e] as const))('%s refuses them without throwing, and nothing reaches Object.prototype', (name, { schema }) => {
    const sample = VALID_REQUESTS[name]!;
    for (const path of paths(sample).filter((p) => p.length > 0)) {
      for (const value of HOSTILE) {
        const input = structuredClone(sample) as Record<string | number, unknown>;
        let target = input;
        for (const key of path.slice(0, -1)) target = target[key] as Record<string | number, unknown>;
        target[path.at(-1)!] = value;
        expect(() => parseWith(schema, input), `${formatIssuePath(path)} = ${JSON.stringify(value)}`).not.toThrow();
      }
    }
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  });
});
